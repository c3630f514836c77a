"""The commissioning steps as a page, for the tablet at the table (``commission --web``).

The same session as at the terminal: the page shows the step to do, what the sensors answer as
it happens, and a button to say the step is done; at the end, the report and the suggested
change of the configuration, with a button to write it (a backup is kept). The service is
stopped while a table is commissioned, so the page is served on the service's own web address
(``[web]``). Only someone with the address printed at the terminal can act: it carries a
random key that every action must show.

    GET  /?key=K        the page
    GET  /state         the session so far (JSON)
    POST /action?key=K  {"action": "done" | "redo" | "apply" | "close"}
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from controller.commission.session import REDO, Redo
from controller.commission.steps import QUIET_S, Step, StepKind, instruction
from controller.web.server import one_exchange, response_head
from hardware.events import SensorEvent

log = logging.getLogger(__name__)

PAGE = Path(__file__).with_name("page.html")
MAX_BODY = 1024
HEARD = 12


@dataclass(slots=True)
class Board:
    """What the page shows: the steps, the one being done, what was heard, the outcome."""

    steps: list[Step]
    current: int | None = None
    heard: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HEARD))
    report: str | None = None
    findings: list[dict[str, Any]] = field(default_factory=list)
    diff: str | None = None
    thresholds: list[dict[str, Any]] = field(default_factory=list)
    applied: str | None = None
    closed: bool = False
    #: Each step's channels heard while it was done, with their edges.
    step_heard: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "steps": [{"id": s.id, "kind": str(s.kind), "instruction": instruction(s),
                       "heard": self.step_heard.get(s.id, {}),
                       "answered": s.expect is not None and s.expect in self.step_heard.get(
                           s.id, {})}
                      for s in self.steps],
            "current": self.current, "heard": list(self.heard), "report": self.report,
            "findings": self.findings, "diff": self.diff, "thresholds": self.thresholds,
            "applied": self.applied,
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
    """Serves the page (``async with``; ``url`` is its address, key included)."""

    def __init__(self, board: Board, installer: WebInstaller, host: str, port: int,
                 apply: Callable[[], Awaitable[str]]) -> None:
        self.board = board
        self.installer = installer
        self.host = host
        self.port = port
        self.key = secrets.token_urlsafe(12)
        self._apply = apply
        self._server: asyncio.Server | None = None
        self.closed = asyncio.Event()

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
        return f"http://{host}:{self.port}/?key={self.key}"

    async def __aenter__(self) -> CommissionPage:
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await self._server.wait_closed()

    async def act(self, action: str) -> tuple[int, dict[str, Any]]:
        """Returns the status and answer of an action from the page."""
        if action == "done":
            if self.board.current is None or self.board.report is not None:
                return 409, {"error": "no step is waiting"}
            self.installer.said_done.set()
            return 200, {"ok": True}
        if action == "redo":
            if self.board.current is None or self.board.report is not None:
                return 409, {"error": "no step is waiting"}
            self.installer.again = True
            self.installer.said_done.set()
            return 200, {"ok": True}
        if action == "apply":
            if self.board.diff is None and not self.board.thresholds:
                return 409, {"error": "there is nothing to write"}
            if self.board.applied is None:
                try:
                    self.board.applied = await self._apply()
                except Exception as exc:  # the page hears why, and may try again
                    log.warning("writing the suggestions failed: %s", exc)
                    return 500, {"error": f"not written: {exc}"}
            return 200, {"ok": True, "applied": self.board.applied}
        if action == "close":
            self.board.closed = True
            self.closed.set()
            return 200, {"ok": True}
        return 400, {"error": f"unknown action {action!r}"}

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async with one_exchange(writer):
            async with asyncio.timeout(10.0):
                head = await reader.readuntil(b"\r\n\r\n")
            method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            length = 0
            for line in head.decode("latin-1").split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length > MAX_BODY:
                raise ValueError("body too long")
            body = b""
            if length:
                async with asyncio.timeout(10.0):
                    body = await reader.readexactly(length)
            status, kind, out = await self._route(method, target, body)
            writer.write(response_head(status, kind, len(out), cache="no-store") + out)
            await writer.drain()

    async def _route(self, method: str, target: str, body: bytes) -> tuple[int, str, bytes]:
        parts = urlsplit(target)
        key = parse_qs(parts.query).get("key", [""])[0]
        as_json = "application/json"
        if method == "GET" and parts.path == "/":
            return 200, "text/html; charset=utf-8", PAGE.read_bytes()
        if method == "GET" and parts.path == "/state":
            return 200, as_json, json.dumps(self.board.to_json()).encode()
        if parts.path == "/action":
            if method != "POST":
                return 405, as_json, b'{"error": "POST"}'
            if not secrets.compare_digest(key, self.key):
                return 403, as_json, b'{"error": "the key of this session is needed"}'
            try:
                action = json.loads(body or b"{}").get("action")
            except (ValueError, AttributeError):
                return 400, as_json, b'{"error": "not JSON"}'
            status, answer = await self.act(str(action))
            return status, as_json, json.dumps(answer).encode()
        return 404, as_json, b'{"error": "not found"}'
