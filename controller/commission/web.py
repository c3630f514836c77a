"""The commissioning steps as a page, for the tablet at the table (``commission --web``).

The same session as at the terminal: the page shows the step to do, what the sensors answer as
it happens, and a button to say the step is done; at the end, the report and the suggested
change of the configuration, with a button to write it (a backup is kept). The service is
stopped while a table is commissioned, so the page is served on the service's own web address
(``[web]``), by the house's one HTTP server (``controller.web.http``). Only someone with the
address printed at the terminal can act: it carries a random key that every action must show.

The page speaks the language of the other pages (``i18n.js``: the address's ``?lang=``, else
the one picked on this browser, else the table's ``language``); its words are the catalogue's,
and what the session says (the steps, the findings, the report) is worded on the server in the
language the page asks for (``?lang=``), from the same catalogue keys as at the terminal.

    GET  /?key=K                the page
    GET  /state?lang=L          the session so far (JSON), worded in L
    POST /action?key=K&lang=L   {"action": "done" | "redo" | "apply" | "close"}
    GET  /i18n.js, /lang/L.json, /config.json   the pages' words, as the other pages get them
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.commission.analysis import Report
from controller.commission.session import REDO, Redo
from controller.commission.steps import QUIET_S, Step, StepKind, instruction
from controller.commission.text import finding_words, render
from controller.commission.words import Said, say
from controller.web.http import JSON, HttpServer, Limits, Request, Response
from controller.web.server import STATIC, lang_answer
from controller.words import catalogue
from hardware.events import SensorEvent

log = logging.getLogger(__name__)

PAGE = Path(__file__).with_name("page.html")
LANGUAGES = catalogue.languages()
MAX_BODY = 1024
HEARD = 12


@dataclass(slots=True)
class Board:
    """What the page shows: the steps, the one being done, what was heard, the outcome."""

    steps: list[Step]
    current: int | None = None
    heard: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HEARD))
    report: Report | None = None
    diff: str | None = None
    #: Whether the report's piezo thresholds are to be written (only to real boards).
    to_boards: bool = False
    applied: list[Said] | None = None
    closed: bool = False
    #: Each step's channels heard while it was done, with their edges.
    step_heard: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self, language: str = "en") -> dict[str, Any]:
        """Returns the session so far, what it says worded in ``language``."""
        report = self.report
        return {
            "steps": [{"id": s.id, "kind": str(s.kind), "instruction": instruction(s, language),
                       "heard": self.step_heard.get(s.id, {}),
                       "answered": s.expect is not None and s.expect in self.step_heard.get(
                           s.id, {})}
                      for s in self.steps],
            "current": self.current, "heard": list(self.heard),
            "report": render(report, language) if report is not None else None,
            "findings": [finding_words(f, language) for f in report.findings] if report else [],
            "diff": self.diff,
            "thresholds": [{"channel": t.channel, "value": t.value, "why": say(t.why, language)}
                           for t in report.thresholds] if report and self.to_boards else [],
            "applied": ("\n".join(say(a, language) for a in self.applied)
                        if self.applied is not None else None),
            "closed": self.closed,
        }


class WebInstaller:
    """An installer at the page: a step is done when they say so (``done``).

    ``perform`` does the step on a simulated table when there is one (``--simulate``).
    """

    def __init__(self, board: Board, perform: Callable[[Step], Awaitable[int]] | None = None):
        self.board = board
        self.perform = perform
        self.said_done = asyncio.Event()
        #: The installer asked to do the step being done again (``redo``).
        self.again = False

    def heard(self, ev: SensorEvent) -> None:
        """The session's listener: an event arrived. Each channel is one line of the list, its
        newest edge and how many it gave (a chattering channel does not flood it), and the
        step being done counts the channels it heard."""
        board = self.board
        before = next((h for h in board.heard if h["ch"] == ev.ch), None)
        if before is not None:
            board.heard.remove(before)
        board.heard.appendleft({"ch": ev.ch, "v": ev.v, "t": round(ev.t, 3),
                                "edges": (before["edges"] if before else 0) + 1})
        if board.current is not None:
            step = board.steps[board.current]
            counts = board.step_heard.setdefault(step.id, {})
            counts[ev.ch] = counts.get(ev.ch, 0) + 1

    async def do(self, step: Step) -> int | Redo | None:
        self.board.current = self.board.steps.index(step)
        self.said_done.clear()
        if step.kind is StepKind.QUIET:  # nothing to do but wait: no button for it
            if self.perform is not None:
                return await self.perform(step)
            await asyncio.sleep(QUIET_S)  # the step is this long by definition
            return None
        await self.said_done.wait()
        if self.again:  # what the step heard so far is forgotten; it is done again
            self.again = False
            self.board.step_heard.pop(step.id, None)
            return REDO
        return await self.perform(step) if self.perform is not None else None


class CommissionPage:
    """The page as a site of the house's one HTTP server (``async with``; ``url`` is its
    address, key included)."""

    def __init__(self, board: Board, installer: WebInstaller, host: str, port: int,
                 apply: Callable[[], Awaitable[list[Said]]], language: str = "en") -> None:
        self.board = board
        self.installer = installer
        #: The table's language (``config.json``): the page's unless it is asked for another.
        self.language = language
        self.key = secrets.token_urlsafe(12)
        self._apply = apply
        self.server = HttpServer([self], host, port, Limits(body=MAX_BODY))
        self.closed = asyncio.Event()

    @property
    def url(self) -> str:
        return f"{self.server.url}?key={self.key}"

    async def __aenter__(self) -> CommissionPage:
        await self.server.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.server.close()

    async def act(self, action: str, language: str = "en") -> tuple[int, dict[str, Any]]:
        """Returns the status and answer of an action from the page (its words in
        ``language``)."""
        board = self.board
        if action in ("done", "redo"):
            if board.current is None or board.report is not None:
                return 409, {"error": say("err.no_step", language)}
            self.installer.again = action == "redo"
            self.installer.said_done.set()
            return 200, {"ok": True}
        if action == "apply":
            if board.diff is None and not (board.to_boards and board.report is not None
                                           and board.report.thresholds):
                return 409, {"error": say("err.nothing_to_write", language)}
            if board.applied is None:
                try:
                    board.applied = await self._apply()
                except Exception as exc:  # the page hears why, and may try again
                    log.warning("writing the suggestions failed: %s", exc)
                    return 500, {"error": say("err.not_written", language, why=exc)}
            return 200, {"ok": True,
                         "applied": "\n".join(say(a, language) for a in board.applied)}
        if action == "close":
            board.closed = True
            self.closed.set()
            return 200, {"ok": True}
        return 400, {"error": say("err.unknown_action", language, action=repr(action))}

    async def answer(self, request: Request) -> Response:
        """The site: the page, its state and its actions (module docstring)."""
        status, kind, out = await self._route(request)
        return Response(status, out, kind, cache="no-store")

    def _language(self, request: Request) -> str:
        """Returns the language the page asks for (``?lang=``), else the table's."""
        asked = request.arg("lang")
        return asked if asked in LANGUAGES else self.language

    async def _route(self, request: Request) -> tuple[int, str, bytes]:
        method, path = request.method, request.path
        if method in ("GET", "HEAD") and path == "/":
            return 200, "text/html; charset=utf-8", PAGE.read_bytes()
        if method in ("GET", "HEAD") and path == "/state":
            state = self.board.to_json(self._language(request))
            return 200, JSON, json.dumps(state, ensure_ascii=False).encode()
        if method in ("GET", "HEAD") and path == "/i18n.js":
            return 200, "text/javascript; charset=utf-8", (STATIC / "i18n.js").read_bytes()
        if method in ("GET", "HEAD") and path == "/config.json":
            return 200, JSON, json.dumps({"language": self.language}).encode()
        if method in ("GET", "HEAD") and path.startswith("/lang/") and path.endswith(".json"):
            status, body, kind = lang_answer(path[len("/lang/"):-len(".json")])
            return status, kind, body
        if path == "/action":
            if method != "POST":
                return 405, JSON, b'{"error": "POST"}'
            if not secrets.compare_digest(request.arg("key"), self.key):
                return 403, JSON, b'{"error": "the key of this session is needed"}'
            try:
                action = json.loads(request.body or b"{}").get("action")
            except (ValueError, AttributeError):
                return 400, JSON, b'{"error": "not JSON"}'
            status, answer = await self.act(str(action), self._language(request))
            return status, JSON, json.dumps(answer).encode()
        return 404, JSON, b'{"error": "not found"}'
