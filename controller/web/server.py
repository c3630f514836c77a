"""A tiny static file server for the dashboard and the referee console (asyncio, stdlib only).

It serves the files under ``controller/web/static`` (GET and HEAD, nothing else) and two
generated ones: ``options.json`` (every game's options, ``controller.web.options``) and
``config.json``, that tells the pages where the broker's websockets listener
is, which venue to show, and (where configured) the credentials to log in with::

    {"broker": "ws://{host}:9001", "prefix": "billiards", "venue": "club",
     "dashboard": {"username": "dashboard", "password": "..."},
     "referee": null, "tables": ["t1"], "language": "ru", "request_ttl_s": 30}

``{host}`` in ``broker`` is replaced by the page with the host the page was loaded from, so
one configuration works from every machine on the venue's network. Without ``referee``
credentials the console asks for them. ``language`` is the venue's language for the pages
(a browser may pick another; ``null``: the browser's own); ``request_ttl_s`` how long a
console's request stays wanted (its MQTT 5 message expiry and its ``deadline``). A venue may
serve the same files from any web server instead, with a ``config.json`` of its own beside them.

Given a ``History`` (the tables' data directories), it also answers the match history, read
off the event loop: in a worker thread, or (``history_process``, where a table runs in the
same process: ``run``, ``demo``) in a worker process of its own, so that replaying a long
recording never holds the interpreter the table needs::

    /history.json            {"matches": [finished matches, newest first, without shots]}
    /history/<id>.json       one match with every shot (``controller.web.history``)
    /history/<id>.csv        its shots as CSV
    /history/live/<table>.json   the match being played there, as recorded so far (no shots)

Given a ``record`` (the venue recorder's store, ``controller.record.web``), it answers the
targets under ``/record/`` from it (the venue's history and players across tables), off the
event loop.

``WebServer`` is an ``async with`` context manager: entered, it listens; ``url`` is where.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import mimetypes
import multiprocessing
import re
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import unquote, urlsplit

from controller.web.history import History, csv_text
from controller.web.options import text as options_text
from controller.words import catalogue

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
#: The pages' languages: one catalogue of words each (``controller.words.catalogue``), served
#: to the pages as ``lang/<code>.json``; ``lang/index.json`` lists them by their own names.
LANGUAGES = catalogue.languages()
MAX_HEADER = 16 * 1024

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".md": "text/plain; charset=utf-8",
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

    def to_json(self) -> dict[str, Any]:
        """Returns the payload of ``config.json``."""
        return {
            "broker": self.broker, "venue": self.venue, "prefix": self.prefix,
            "dashboard": self.dashboard.to_json() if self.dashboard else None,
            "referee": self.referee.to_json() if self.referee else None,
            "tables": list(self.tables), "language": self.language,
            "request_ttl_s": self.request_ttl_s,
        }


class WebServer:
    """Serves ``root`` and ``config.json`` over HTTP/1.1 (one request per connection)."""

    def __init__(self, config: WebConfig, host: str = "127.0.0.1", port: int = 0,
                 root: Path = STATIC, history: History | None = None,
                 history_process: bool = False,
                 record: Callable[[str, str], tuple[int, bytes, str] | None] | None = None) -> None:
        self.config = config
        self.history = history
        #: Answers ``(path, query)`` under /record/ (None: not found), from the venue's record.
        self.record = record
        self.history_process = history_process
        self._pool: ProcessPoolExecutor | None = None
        self.host = host
        self.port = port
        self.root = root.resolve()
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        """Returns the address of the dashboard (``http://host:port/``)."""
        host = self.host if self.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    async def start(self) -> None:
        """Listens; with port 0, ``port`` becomes the port the system chose."""
        self._server = await asyncio.start_server(self._serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("web pages at %s", self.url)

    async def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> WebServer:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def serve_forever(self) -> None:
        """Serves until cancelled."""
        if self._server is None:
            await self.start()
        assert self._server is not None
        await self._server.serve_forever()

    # ------------------------------------------------------------------ one request
    def resolve(self, target: str) -> tuple[int, bytes, str]:
        """Returns ``(status, body, content type)`` for a request target."""
        path = unquote(urlsplit(target).path)
        if path in ("", "/"):
            path = "/index.html"
        if path == "/config.json":
            shown = {**self.config.to_json(), "history": self.history is not None}
            return 200, json.dumps(shown).encode(), _TYPES[".json"]
        if path == "/options.json":
            return 200, options_text().encode(), _TYPES[".json"]
        if path.startswith("/lang/") and path.endswith(".json"):
            return lang_answer(path[len("/lang/"):-len(".json")])
        file = (self.root / path.lstrip("/")).resolve()
        if not file.is_relative_to(self.root) or not file.is_file():
            return 404, b"not found\n", "text/plain; charset=utf-8"
        kind = _TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        return 200, file.read_bytes(), kind

    def resolve_history(self, path: str) -> tuple[int, bytes, str] | None:
        """Returns ``(status, body, content type)`` for a history target, None for another
        target. Reads the tables' recordings: call it off the event loop."""
        return history_answer(self.history, path)

    async def _history(self, path: str) -> tuple[int, bytes, str] | None:
        if self.history is not None and self.history_process:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, _in_worker, self.history.tables, path)
        return await asyncio.to_thread(self.resolve_history, path)

    async def _answer(self, target: str) -> tuple[int, bytes, str]:
        path = unquote(urlsplit(target).path)
        if path.startswith("/record/") and self.record is not None:
            try:
                found = await asyncio.to_thread(self.record, path, urlsplit(target).query)
            except Exception:  # a store it cannot read: said, and the page says so
                log.exception("venue record: cannot answer %s", path)
                return 500, b"the venue record could not be read\n", "text/plain; charset=utf-8"
            return found or (404, b"not found\n", "text/plain; charset=utf-8")
        if path.startswith("/history"):
            try:
                answer = await self._history(path)
            except Exception:  # a recording it cannot read: said, and the page says so
                log.exception("match history: cannot read %s", path)
                return 500, b"the match history could not be read\n", "text/plain; charset=utf-8"
            if answer is not None:
                return answer
        return self.resolve(target)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async with one_exchange(writer):
            async with asyncio.timeout(10.0):
                head = await reader.readuntil(b"\r\n\r\n")
            if len(head) > MAX_HEADER:
                raise ValueError("header too long")
            method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
            if method not in ("GET", "HEAD"):
                status, body, kind = 405, b"method not allowed\n", "text/plain; charset=utf-8"
            else:
                status, body, kind = await self._answer(target)
            writer.write(response_head(status, kind, len(body), extra=_disposition(target, kind)))
            if method != "HEAD":
                writer.write(body)
            await writer.drain()


@contextlib.asynccontextmanager
async def one_exchange(writer: asyncio.StreamWriter) -> AsyncIterator[None]:
    """Closes the connection after one request and its answer; a client that sent no proper
    request (or went away) gets no answer."""
    try:
        yield
    except (ValueError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
            ConnectionError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


def response_head(status: int, kind: str, length: int, *, cache: str = "no-cache",
                  extra: str = "") -> bytes:
    """Returns the head of an HTTP/1.1 answer that closes its connection (``extra``: more
    header lines, each ending in CRLF)."""
    return (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {length}\r\nCache-Control: {cache}\r\n{extra}"
            "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n").encode()


def lang_answer(code: str) -> tuple[int, bytes, str]:
    """Returns ``(status, body, content type)`` for ``lang/<code>.json``: the pages' words of
    that language's catalogue, or the list of languages for ``index``; 404 for any other."""
    try:
        body = catalogue.page_languages() if code == "index" else catalogue.page_words(code)
    except catalogue.CatalogueError:
        return 404, b"not found\n", "text/plain; charset=utf-8"
    return 200, body, _TYPES[".json"]


def history_answer(history: History | None, path: str) -> tuple[int, bytes, str] | None:
    """Returns ``(status, body, content type)`` for a history target (see the module
    docstring), None for another target; an empty history without ``history``."""
    if path == "/history.json":
        matches = history.matches() if history else []
        return 200, json.dumps({"matches": matches}, ensure_ascii=False).encode(), _TYPES[".json"]
    live = _HISTORY_LIVE.match(path)
    if live:
        playing = history.live(live.group(1)) if history else None
        if playing is None:
            return 404, b"no match in progress\n", "text/plain; charset=utf-8"
        return 200, json.dumps(playing, ensure_ascii=False).encode(), _TYPES[".json"]
    found = _HISTORY_ITEM.match(path)
    if not found:
        return None
    match = history.match(found.group(1)) if history else None
    if match is None:
        return 404, b"no such match\n", "text/plain; charset=utf-8"
    if found.group(2) == "csv":
        return 200, csv_text(match).encode(), _TYPES[".csv"]
    return 200, json.dumps(match, ensure_ascii=False).encode(), _TYPES[".json"]


_WORKER_HISTORIES: dict[tuple[tuple[str, str], ...], History] = {}


def _in_worker(tables: dict[str, Path], path: str) -> tuple[int, bytes, str] | None:
    """``history_answer`` in the history's worker process, which keeps its replays cached."""
    key = tuple(sorted((table, str(data)) for table, data in tables.items()))
    if key not in _WORKER_HISTORIES:
        _WORKER_HISTORIES[key] = History(tables)
    return history_answer(_WORKER_HISTORIES[key], path)


def _disposition(target: str, kind: str) -> str:
    """Returns a Content-Disposition header line for an export (CSV, or JSON asked for with
    ``?download``), else nothing."""
    parts = urlsplit(target)
    export = kind.startswith("text/csv") or "download" in parts.query
    if not parts.path.startswith("/history/") or not export:
        return ""
    name = parts.path.rsplit("/", 1)[-1]
    return f'Content-Disposition: attachment; filename="{name}"\r\n'
