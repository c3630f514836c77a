"""The venue's web server: the dashboard, the referee console and the match history.

It serves the files under ``controller/web/static`` (GET and HEAD, nothing else) and two
generated ones: ``games.json`` (every game's record, options included) and ``options.json``
(every game's options; both ``controller.web.options``), and
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
the TV's own address may be ``127.0.0.1``); ``keepalive_s`` and ``reconnect_s``, only where
configured, the pages' MQTT keepalive and wait between tries to reconnect (without them
theirs, 4 s and 2 s: a broker that froze without closing its sockets is noticed within 1.5
keepalives). A venue may
serve the same files from any web server instead, with a ``config.json`` of its own beside them.

The match history is the venue record's (``controller.record``: ``record --web``, the demo),
a site given as ``record``; with one, ``config.json`` says ``"record": true`` (and
``"history": true``, as it does where a table's match in progress can be asked). A table's own
server (``run``) keeps one thing of its recordings (``controller.web.history``): the match
being played there as recorded so far, for a page opened mid-match (its start and earlier
racks), read in a worker process of its own (``history_process``: beside the table, so that
replaying a long recording never holds the interpreter the table needs)::

    /history/live/<table>.json   the match being played there, as recorded so far (no shots)

``WebServer`` is the one ``controller.web.http.HttpServer`` with these sites (``Pages``,
``LiveSite``, the record's) and any others given (the commissioning page): an ``async with`` context
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
from urllib.parse import unquote, urlsplit

from controller.web.history import History
from controller.web.http import DEFAULT_LIMITS, TEXT, HttpServer, Limits, Request, Response, Site
from controller.web.options import games_text
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
}
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
    #: The pages' MQTT keepalive (seconds); None: not said, the pages' own (4 s).
    keepalive_s: float | None = None
    #: The pages' wait between tries to reconnect (seconds); None: not said, theirs (2 s).
    reconnect_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        """Returns the payload of ``config.json``."""
        return {
            "broker": self.broker, "venue": self.venue, "prefix": self.prefix,
            "dashboard": self.dashboard.to_json() if self.dashboard else None,
            "referee": self.referee.to_json() if self.referee else None,
            "tables": list(self.tables), "language": self.language,
            "request_ttl_s": self.request_ttl_s, "public_url": self.public_url,
            **{key: value for key, value in (("keepalive_s", self.keepalive_s),
                                             ("reconnect_s", self.reconnect_s))
               if value is not None},
        }


class Pages:
    """The site of the pages: the files under ``root``, ``config.json``, ``games.json`` and
    ``options.json``.
    ``config.json`` adds ``history``: whether a page may ask what was recorded (the match in
    progress, ``live``, or the venue ``record``'s history), and ``record``: whether the
    history page has the record to read."""

    def __init__(self, config: WebConfig, root: Path = STATIC, live: bool = False,
                 record: bool = False) -> None:
        self.config = config
        self.root = root.resolve()
        self.live = live
        self.record = record

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
            shown = {**self.config.to_json(), "history": self.live or self.record, "record": self.record}
            return 200, json.dumps(shown).encode(), _TYPES[".json"]
        if path == "/options.json":
            return 200, options_text().encode(), _TYPES[".json"]
        if path == "/games.json":
            return 200, games_text().encode(), _TYPES[".json"]
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


class LiveSite:
    """The match in progress on a table, from its recordings (module docstring), read off the
    event loop: in a thread, or (``in_process``) in a worker process of its own."""

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
        if self.history is None or request.method not in ("GET", "HEAD"):
            return None
        if not path.startswith("/history/live/"):
            return None
        try:
            found = await self._read(path)
        except Exception:  # a recording it cannot read: said, and the page says so
            log.exception("match history: cannot read %s", path)
            return Response.text(500, "the match history could not be read\n")
        if found is None:
            return None
        status, body, kind = found
        return Response(status, body, kind)

    async def _read(self, path: str) -> tuple[int, bytes, str] | None:
        if self.history is not None and self.in_process:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, _in_worker, self.history.tables, path)
        return await asyncio.to_thread(live_answer, self.history, path)


class WebServer(HttpServer):
    """The venue's web server: ``extra`` sites (first), the venue ``record``'s (the match
    history), a table's match in progress from its recordings (``history``) and the pages,
    on the one ``HttpServer``."""

    def __init__(self, config: WebConfig, host: str = "127.0.0.1", port: int = 0,
                 root: Path = STATIC, history: History | None = None,
                 history_process: bool = False, extra: Sequence[Site] = (),
                 limits: Limits = DEFAULT_LIMITS, record: Site | None = None) -> None:
        self.config = config
        self.history = history
        self.pages = Pages(config, root, live=history is not None, record=record is not None)
        self.live_site = LiveSite(history, history_process)
        sites = [*extra, *([record] if record is not None else []), self.live_site, self.pages]
        super().__init__(sites, host, port, limits)

    @property
    def root(self) -> Path:
        return self.pages.root

    def resolve(self, target: str) -> tuple[int, bytes, str]:
        """Returns ``(status, body, content type)`` for a page's target."""
        return self.pages.resolve(target)

    async def start(self) -> None:
        await super().start()
        log.info("web pages at %s", self.url)

    async def close(self) -> None:
        self.live_site.close()
        await super().close()


def lang_answer(code: str) -> tuple[int, bytes, str]:
    """Returns ``(status, body, content type)`` for ``lang/<code>.json``: the pages' words of
    that language's catalogue, or the list of languages for ``index``; 404 for any other."""
    try:
        body = catalogue.page_languages() if code == "index" else catalogue.page_words(code)
    except catalogue.CatalogueError:
        return 404, b"not found\n", TEXT
    return 200, body, _TYPES[".json"]


def live_answer(history: History | None, path: str) -> tuple[int, bytes, str] | None:
    """Returns ``(status, body, content type)`` for ``/history/live/<table>.json`` (the
    module docstring), None for another target or without ``history``."""
    live = _HISTORY_LIVE.match(path)
    if live is None or history is None:
        return None
    playing = history.live(live.group(1))
    if playing is None:
        return 404, b"no match in progress\n", TEXT
    return 200, json.dumps(playing, ensure_ascii=False).encode(), _TYPES[".json"]


_WORKER_HISTORIES: dict[tuple[tuple[str, str], ...], History] = {}


def _in_worker(tables: dict[str, Path], path: str) -> tuple[int, bytes, str] | None:
    """``live_answer`` in the history's worker process, which keeps its replays cached."""
    key = tuple(sorted((table, str(data)) for table, data in tables.items()))
    if key not in _WORKER_HISTORIES:
        _WORKER_HISTORIES[key] = History(tables)
    return live_answer(_WORKER_HISTORIES[key], path)
