"""The venue's web server: the dashboard, the referee console and the match history.

It serves the files under ``controller/web/static`` (GET and HEAD, nothing else) and two
generated ones: ``options.json`` (every game's options, ``controller.web.options``) and
``config.json``, that tells the pages where the broker's websockets listener
is, which venue to show, and (where configured) the credentials to log in with::

    {"broker": "ws://{host}:9001", "prefix": "billiards", "venue": "club",
     "dashboard": {"username": "dashboard", "password": "..."},
     "referee": null, "tables": ["t1"], "language": "ru", "request_ttl_s": 30,
     "public_url": "http://billiards.club.lan:8080/"}

``{host}`` in ``broker`` is replaced by the page with the host the page was loaded from, so
one configuration works from every machine on the venue's network. Without ``referee``
credentials the console asks for them. ``language`` is the venue's language for the pages
(a browser may pick another; ``null``: the browser's own); ``request_ttl_s`` how long a
console's request stays wanted (its MQTT 5 message expiry and its ``deadline``);
``public_url`` the pages' address for a phone (the QR codes of the consoles hold it, since
the TV's own address may be ``127.0.0.1``). A venue may
serve the same files from any web server instead, with a ``config.json`` of its own beside them.

Given a ``History`` (the tables' data directories), it also answers the match history, read
off the event loop: in a worker thread, or (``history_process``, where a table runs in the
same process: ``run``, ``demo``) in a worker process of its own, so that replaying a long
recording never holds the interpreter the table needs::

    /history.json            {"matches": [finished matches, newest first, without shots]}
    /history.json?page=2&per_page=50&table=t1&player=Бор&since=2026-12-01&until=2026-12-03
                             one page of those selected: {"matches", "total", "page", "pages",
                             "per_page"} (400 for an argument it cannot take)
    /history/<id>.json       one match with every shot (``controller.web.history``)
    /history/<id>.csv?lang=ru  its shots as CSV in that language (``csv_text``)
    /history/live/<table>.json   the match being played there, as recorded so far (no shots)

``WebServer`` is the one ``controller.web.http.HttpServer`` with these sites (``Pages``,
``HistorySite``) and any others given (the commissioning page): an ``async with`` context
manager; entered, it listens; ``url`` is where.
"""

from __future__ import annotations

import asyncio
import json
import logging
import mimetypes
import multiprocessing
import re
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from controller.web.history import History, HistoryQuery, csv_text
from controller.web.http import DEFAULT_LIMITS, TEXT, HttpServer, Limits, Request, Response, Site
from controller.web.options import text as options_text
from controller.words import catalogue

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
#: The pages' languages: one catalogue of words each (``controller.words.catalogue``), served
#: to the pages as ``lang/<code>.json``; ``lang/index.json`` lists them by their own names.
LANGUAGES = catalogue.languages()

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".md": TEXT,
    ".csv": "text/csv; charset=utf-8",
}
_HISTORY_ITEM = re.compile(r"^/history/([A-Za-z0-9_-]{1,80})\.(json|csv)$")
_HISTORY_LIVE = re.compile(r"^/history/live/([A-Za-z0-9_-]{1,80})\.json$")


@dataclass(frozen=True, slots=True)
class Credentials:
    """A broker user the pages log in as."""

    username: str
    password: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"username": self.username, "password": self.password}


@dataclass(frozen=True, slots=True)
class WebConfig:
    """What ``config.json`` tells the pages."""

    broker: str = "ws://{host}:9001"
    venue: str = "club"
    prefix: str = "billiards"
    dashboard: Credentials | None = None
    referee: Credentials | None = None
    tables: tuple[str, ...] = field(default=())
    language: str | None = None
    request_ttl_s: float = 30.0
    #: The address phones reach the pages at (the QR codes hold it); None: the page's own.
    public_url: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Returns the payload of ``config.json``."""
        return {
            "broker": self.broker, "venue": self.venue, "prefix": self.prefix,
            "dashboard": self.dashboard.to_json() if self.dashboard else None,
            "referee": self.referee.to_json() if self.referee else None,
            "tables": list(self.tables), "language": self.language,
            "request_ttl_s": self.request_ttl_s, "public_url": self.public_url,
        }


class Pages:
    """The site of the pages: the files under ``root``, ``config.json`` and ``options.json``."""

    def __init__(self, config: WebConfig, root: Path = STATIC, history: bool = False) -> None:
        self.config = config
        self.root = root.resolve()
        self.history = history

    async def answer(self, request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return Response.text(405, "method not allowed\n")
        status, body, kind = self.resolve(request.target)
        return Response(status, body, kind)

    def resolve(self, target: str) -> tuple[int, bytes, str]:
        """Returns ``(status, body, content type)`` for a request target."""
        path = unquote(urlsplit(target).path)
        if path in ("", "/"):
            path = "/index.html"
        if path == "/config.json":
            shown = {**self.config.to_json(), "history": self.history}
            return 200, json.dumps(shown).encode(), _TYPES[".json"]
        if path == "/options.json":
            return 200, options_text().encode(), _TYPES[".json"]
        if path.startswith("/lang/") and path.endswith(".json"):
            return lang_answer(path[len("/lang/"):-len(".json")])
        try:
            file = (self.root / path.lstrip("/")).resolve()
            if not file.is_relative_to(self.root) or not file.is_file():
                return 404, b"not found\n", TEXT
            kind = _TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            return 200, file.read_bytes(), kind
        except (OSError, ValueError):  # a name the file system refuses (too long, a NUL): none of ours
            return 404, b"not found\n", TEXT


class HistorySite:
    """The site of the match history (module docstring), read off the event loop."""

    def __init__(self, history: History | None, in_process: bool = False) -> None:
        self.history = history
        self.in_process = in_process
        self._pool: ProcessPoolExecutor | None = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def answer(self, request: Request) -> Response | None:
        path = request.path
        if not path.startswith("/history") or request.method not in ("GET", "HEAD"):
            return None
        try:
            found = await self._read(request.target)
        except Exception:  # a recording it cannot read: said, and the page says so
            log.exception("match history: cannot read %s", path)
            return Response.text(500, "the match history could not be read\n")
        if found is None:
            return None
        status, body, kind = found
        return Response(status, body, kind, headers=_disposition(request.target, kind))

    async def warm(self) -> None:
        """Reads every recording once (the list's index), so that the first visitor does not."""
        try:
            await self._read("/history.json?page=1")
        except Exception:  # said again, with its traceback, when a page asks
            log.warning("match history: the index could not be read yet", exc_info=True)

    async def _read(self, target: str) -> tuple[int, bytes, str] | None:
        if self.history is not None and self.in_process:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, _in_worker, self.history.tables, target)
        return await asyncio.to_thread(history_answer, self.history, target)


class WebServer(HttpServer):
    """The venue's web server: the pages, the match history and ``extra`` sites (first), on
    the one ``HttpServer``."""

    def __init__(self, config: WebConfig, host: str = "127.0.0.1", port: int = 0,
                 root: Path = STATIC, history: History | None = None,
                 history_process: bool = False, extra: Sequence[Site] = (),
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.config = config
        self.history = history
        self.pages = Pages(config, root, history is not None)
        self.history_site = HistorySite(history, history_process)
        self._warm: asyncio.Task[None] | None = None
        super().__init__([*extra, self.history_site, self.pages], host, port, limits)

    @property
    def root(self) -> Path:
        return self.pages.root

    def resolve(self, target: str) -> tuple[int, bytes, str]:
        """Returns ``(status, body, content type)`` for a page's target."""
        return self.pages.resolve(target)

    def resolve_history(self, path: str) -> tuple[int, bytes, str] | None:
        """Returns ``(status, body, content type)`` for a history target, None for another
        target. Reads the tables' recordings: call it off the event loop."""
        return history_answer(self.history, path)

    async def start(self) -> None:
        await super().start()
        log.info("web pages at %s", self.url)
        # the index read once now, not by the first visitor; beside a table (history_process)
        # only when asked, so that a Pi spends a worker process on it only if someone looks
        if self.history is not None and not self.history_site.in_process:
            self._warm = asyncio.create_task(self.history_site.warm(), name="history-index")

    async def close(self) -> None:
        if self._warm is not None:
            self._warm.cancel()
        self.history_site.close()
        await super().close()


def lang_answer(code: str) -> tuple[int, bytes, str]:
    """Returns ``(status, body, content type)`` for ``lang/<code>.json``: the pages' words of
    that language's catalogue, or the list of languages for ``index``; 404 for any other."""
    try:
        body = catalogue.page_languages() if code == "index" else catalogue.page_words(code)
    except catalogue.CatalogueError:
        return 404, b"not found\n", TEXT
    return 200, body, _TYPES[".json"]


def history_answer(history: History | None, target: str) -> tuple[int, bytes, str] | None:
    """Returns ``(status, body, content type)`` for a history target (see the module
    docstring), None for another target; an empty history without ``history``."""
    parts = urlsplit(target)
    path, query = unquote(parts.path), parse_qs(parts.query)
    if path == "/history.json":
        if not _LIST_ARGS & query.keys():
            matches = history.matches() if history else []
            return 200, json.dumps({"matches": matches}, ensure_ascii=False).encode(), _TYPES[".json"]
        try:
            selected = _query(query)
        except ValueError as exc:
            return 400, f"{exc}\n".encode(), TEXT
        listed = history.page(selected) if history else {
            "matches": [], "total": 0, "page": 1, "pages": 1, "per_page": selected.per_page}
        return 200, json.dumps(listed, ensure_ascii=False).encode(), _TYPES[".json"]
    live = _HISTORY_LIVE.match(path)
    if live:
        playing = history.live(live.group(1)) if history else None
        if playing is None:
            return 404, b"no match in progress\n", TEXT
        return 200, json.dumps(playing, ensure_ascii=False).encode(), _TYPES[".json"]
    found = _HISTORY_ITEM.match(path)
    if not found:
        return None
    match = history.match(found.group(1)) if history else None
    if match is None:
        return 404, b"no such match\n", TEXT
    if found.group(2) == "csv":
        language = query.get("lang", ["en"])[0]
        return 200, csv_text(match, language if language in LANGUAGES else "en").encode(), _TYPES[".csv"]
    return 200, json.dumps(match, ensure_ascii=False).encode(), _TYPES[".json"]


#: The list's arguments: with any of them ``/history.json`` answers one page.
_LIST_ARGS = {"page", "per_page", "table", "player", "since", "until"}
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _query(query: dict[str, list[str]]) -> HistoryQuery:
    """Returns the list's selection; raises ValueError naming an argument it cannot take."""
    def one(name: str) -> str | None:
        value = query.get(name, [""])[0].strip()
        return value or None

    def number(name: str, default: int, top: int) -> int:
        raw = one(name)
        if raw is None:
            return default
        if not raw.isdigit() or not 1 <= int(raw) <= top:
            raise ValueError(f"{name}: a whole number from 1 to {top}")
        return int(raw)

    for day in ("since", "until"):
        if (value := one(day)) is not None and not _DAY.match(value):
            raise ValueError(f"{day}: a date as YYYY-MM-DD")
    return HistoryQuery(table=one("table"), player=one("player"), since=one("since"),
                        until=one("until"), page=number("page", 1, 1_000_000),
                        per_page=number("per_page", 50, 500))


_WORKER_HISTORIES: dict[tuple[tuple[str, str], ...], History] = {}


def _in_worker(tables: dict[str, Path], target: str) -> tuple[int, bytes, str] | None:
    """``history_answer`` in the history's worker process, which keeps its replays cached."""
    key = tuple(sorted((table, str(data)) for table, data in tables.items()))
    if key not in _WORKER_HISTORIES:
        _WORKER_HISTORIES[key] = History(tables)
    return history_answer(_WORKER_HISTORIES[key], target)


def _disposition(target: str, kind: str) -> tuple[tuple[str, str], ...]:
    """Returns a Content-Disposition header for an export (CSV, or JSON asked for with
    ``?download``), else none."""
    parts = urlsplit(target)
    export = kind.startswith("text/csv") or "download" in parts.query
    if not parts.path.startswith("/history/") or not export:
        return ()
    name = parts.path.rsplit("/", 1)[-1]
    return (("Content-Disposition", f'attachment; filename="{name}"'),)
