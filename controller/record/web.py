"""The venue record over HTTP, for the pages (``controller.web``'s one server routes the
targets under ``/record/`` here; ``python -m controller record --web``, the demo)::

    /record/history.json?page=2&per_page=50&table=t1&player=Бор&since=2026-12-01&tz=180
                                     one page of the finished matches across every table,
                                     the latest start first: {"matches", "total", "page", "pages",
                                     "per_page"} (``controller.record.queries``; ``player``:
                                     part of a name, ``name``: one name's, ``pid``: one
                                     roster entry's (one person); ``since``,
                                     ``until``: days, ``tz`` the page's minutes east of
                                     UTC; 400 for an argument it cannot take)
    /record/match/<venue~table~epoch~id>.json    one match with every shot (``?download``: a file)
    /record/match/<venue~table~epoch~id>.csv?lang=ru   its shots as CSV in that language
    /record/players/<id>.json        one roster entry's figures (one person), in all and per game
    /record/player/<name>.json       the figures of every match played under a name as written
    /record/players.json             each venue's roster (``controller.record.roster``), the
                                     most recently seen first
    /record/sessions.json            each table's sessions (start, end: Unix seconds)
    /record/sessions.csv?lang=ru&tz=180    the same for people, as a match's CSV (a BOM,
                                     ``;`` for Russian, the page's words, «Стол 6», local
                                     date and time; ``tz``: minutes east of UTC)
    /record/gaps.json                the seqs recorded as lost, per table
    /record/health.json              the recorder's health (``controller.record.health``),
                                     the messages it quarantined and the store's size
                                     (``Store.sizes``: rows stored, answers counted)
    /history/live/<table>.json       the match being played there, as recorded so far (what
                                     the dashboard and the console ask when opened mid-match)
"""

from __future__ import annotations

import asyncio
import datetime
import json
import logging
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from controller.record import queries, roster, stats
from controller.record.store import Store
from controller.web.http import Request, Response
from controller.words import catalogue

log = logging.getLogger(__name__)

JSON = "application/json"
CSV = "text/csv; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
_PLAYER = re.compile(r"^/record/player/([^/]{1,100})\.json$")
_PLAYER_ID = re.compile(r"^/record/players/([A-Za-z0-9_-]{1,64})\.json$")
_MATCH = re.compile(r"^/record/match/([A-Za-z0-9_-]{1,64}~[A-Za-z0-9_-]{1,64}~[A-Za-z0-9_-]{0,64}"
                    r"~[A-Za-z0-9_.:-]{1,100})"
                    r"\.(json|csv)$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_LIVE = re.compile(r"^/history/live/([A-Za-z0-9_-]{1,64})\.json$")

Answer = tuple[int, bytes, str]


def answer(store: Store, path: str, query: str = "") -> Answer | None:
    """Returns ``(status, body, content type)`` for a target under /record/ or a table's
    ``/history/live/`` (``path`` unquoted), None if there is no such target. Reads the
    store: call it off the event loop."""
    args = parse_qs(query)
    playing = _LIVE.match(path)
    if playing:
        now = queries.live(store, playing.group(1))
        if now is None:
            return 404, b"no match in progress\n", TEXT
        return 200, _json(now), JSON
    if path == "/record/history.json":
        try:
            selected = history_query(args)
        except ValueError as exc:
            return 400, f"{exc}\n".encode(), TEXT
        return 200, _json(queries.page(store, selected)), JSON
    if path == "/record/players.json":
        return 200, _json({"players": [{"venue": venue, **entry} for venue in store.venues()
                                       for entry in roster.entries(store, venue)]}), JSON
    if path == "/record/sessions.json":
        return 200, _json({"sessions": stats.sessions(store)}), JSON
    if path == "/record/sessions.csv":  # for people: as a match's CSV (a program: .json)
        try:
            shown, tz = _language(args), history_query({"tz": args.get("tz", [""])}).tz_minutes
        except ValueError as exc:
            return 400, f"{exc}\n".encode(), TEXT
        return 200, queries.sessions_sheet(store, shown, tz).encode(), CSV
    if path == "/record/gaps.json":
        return 200, _json({"gaps": [
            {"venue": v, "table": t, "epoch": e, "first": a, "last": b, "reason": r}
            for v, t, e, a, b, r in store.gaps()]}), JSON
    found = _PLAYER.match(path)
    if found:
        return 200, _json(stats.player(store, found.group(1))), JSON
    found = _PLAYER_ID.match(path)
    if found:
        return 200, _json(stats.player(store, player_id=found.group(1))), JSON
    item = _MATCH.match(path)
    if item:
        match = queries.match(store, item.group(1))
        if match is None:
            return 404, b"no such match\n", TEXT
        if item.group(2) == "csv":
            return 200, queries.csv_text(match, _language(args)).encode(), CSV
        return 200, _json(match), JSON
    return None


#: A time zone's offset lies strictly within a day of UTC (``datetime.timezone``): ``tz``,
#: minutes east of UTC, at most this far either way.
_DAY_MINUTES = 24 * 60 - 1


def history_query(args: dict[str, list[str]]) -> queries.HistoryQuery:
    """Returns the list's selection; raises ValueError naming an argument it cannot take."""
    def one(name: str) -> str | None:
        value = args.get(name, [""])[0].strip()
        return value or None

    def number(name: str, default: int, low: int, top: int) -> int:
        raw = one(name)
        if raw is None:
            return default
        try:
            value = int(raw)
        except ValueError:
            value = low - 1
        if not low <= value <= top:
            raise ValueError(f"{name}: a whole number from {low} to {top}")
        return value

    for day in ("since", "until"):
        if (value := one(day)) is not None and not _is_day(value):
            raise ValueError(f"{day}: a date as YYYY-MM-DD")
    return queries.HistoryQuery(
        table=one("table"), player=one("player"), name=one("name"), player_id=one("pid"),
        since=one("since"), until=one("until"),
        tz_minutes=number("tz", 0, -_DAY_MINUTES, _DAY_MINUTES), page=number("page", 1, 1, 1_000_000),
        per_page=number("per_page", 50, 1, 500))


def _language(args: dict[str, list[str]]) -> str:
    """Returns ``?lang`` if the catalogue has it, else English."""
    language = args.get("lang", ["en"])[0]
    return language if language in catalogue.languages() else "en"


def _is_day(text: str) -> bool:
    """Whether ``text`` is a day of the calendar as YYYY-MM-DD (a day a page's time zone
    can move by a day either way: not the first or last the calendar holds)."""
    if not _DAY.match(text):
        return False
    try:
        day = datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return datetime.date.min < day < datetime.date.max


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def _disposition(path: str, query: str, kind: str) -> tuple[tuple[str, str], ...]:
    """Returns a Content-Disposition header for an export (a match's CSV, its JSON asked for
    with ``?download``, the sessions' CSV), else none."""
    if not (kind == CSV or (path.startswith("/record/match/") and "download" in query)):
        return ()
    name = path.rsplit("/", 1)[-1].replace("~", "-")
    return (("Content-Disposition", f'attachment; filename="{name}"'),)


class RecordSite:
    """The targets under ``/record/`` and ``/history/live/`` (``answer``) as a site of the
    project's one HTTP server (``controller.web.http``): the store is read in a thread, off
    the event loop; a store it cannot read is a 500 that says so. With the recorder's
    ``health`` (``controller.record.health``), ``/record/health.json`` serves it with the
    messages quarantined (the newest 20), whether or not the store can be read."""

    def __init__(self, store: Store, health: Callable[[], dict[str, Any]] | None = None) -> None:
        self.store = store
        self.health = health

    async def _health(self) -> Response:
        body: dict[str, Any] = {"recorder": self.health() if self.health else None}
        try:
            count, newest = await asyncio.to_thread(self.store.quarantined)
            body["quarantine"] = {"count": count, "newest": newest}
            body["store"] = await asyncio.to_thread(self.store.sizes)
        except Exception as exc:  # the store away: the recorder's health says so too
            body["quarantine"] = {"error": str(exc).splitlines()[0][:300]}
        return Response(200, _json(body), JSON)

    async def answer(self, request: Request) -> Response | None:
        path = request.path
        if request.method not in ("GET", "HEAD"):
            return None
        if not path.startswith(("/record/", "/history/live/")):
            return None
        if path == "/record/health.json":
            return await self._health()
        query = urlsplit(request.target).query
        try:
            found = await asyncio.to_thread(answer, self.store, path, query)
        except Exception:  # a store it cannot read: said, and the page says so
            log.exception("venue record: cannot answer %s", path)
            return Response.text(500, "the venue record could not be read\n")
        if found is None:
            return Response.text(404, "not found\n")
        status, body, kind = found
        return Response(status, body, kind, headers=_disposition(path, query, kind) if status == 200 else ())
