"""The venue record over HTTP, for the pages (``controller.web``'s one server routes the
targets under ``/record/`` here; ``python -m controller record --web``)::

    /record/history.json?limit=50&before=T   finished matches across every table, newest first
    /record/player/<name>.json               one player's figures, in all and per game
    /record/players.json                     the venue's known names, the most recent first
    /record/sessions.json, sessions.csv      each table's sessions (start, end: Unix seconds)
    /record/gaps.json                        the seqs recorded as lost, per table
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from urllib.parse import parse_qs, urlsplit

from controller.record import stats
from controller.record.store import Store
from controller.web.http import Request, Response

log = logging.getLogger(__name__)

JSON = "application/json"
_PLAYER = re.compile(r"^/record/player/([^/]{1,100})\.json$")


def answer(store: Store, path: str, query: str = "") -> tuple[int, bytes, str] | None:
    """Returns ``(status, body, content type)`` for a target under /record/, None if there is
    no such target. Reads the store: call it off the event loop."""
    if path == "/record/history.json":
        args = parse_qs(query)
        try:
            limit = min(500, max(1, int(args.get("limit", ["50"])[0])))
            before = float(args["before"][0]) if "before" in args else None
        except ValueError:
            return 400, b"limit and before are numbers\n", "text/plain; charset=utf-8"
        return 200, _json({"matches": stats.history(store, limit, before)}), JSON
    if path == "/record/players.json":
        return 200, _json({"players": stats.roster(store)}), JSON
    if path == "/record/sessions.json":
        return 200, _json({"sessions": stats.sessions(store)}), JSON
    if path == "/record/sessions.csv":
        return 200, stats.sessions_csv(store).encode(), "text/csv; charset=utf-8"
    if path == "/record/gaps.json":
        return 200, _json({"gaps": [
            {"venue": v, "table": t, "epoch": e, "first": a, "last": b, "reason": r}
            for v, t, e, a, b, r in store.gaps()]}), JSON
    found = _PLAYER.match(path)
    if found:
        return 200, _json(stats.player(store, found.group(1))), JSON
    return None


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


class RecordSite:
    """The targets under ``/record/`` (``answer``) as a site of the project's one HTTP server
    (``controller.web.http``): the store is read in a thread, off the event loop; a store it
    cannot read is a 500 that says so."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def answer(self, request: Request) -> Response | None:
        path = request.path
        if not path.startswith("/record/") or request.method not in ("GET", "HEAD"):
            return None
        try:
            found = await asyncio.to_thread(answer, self.store, path, urlsplit(request.target).query)
        except Exception:  # a store it cannot read: said, and the page says so
            log.exception("venue record: cannot answer %s", path)
            return Response.text(500, "the venue record could not be read\n")
        if found is None:
            return Response.text(404, "not found\n")
        status, body, kind = found
        return Response(status, body, kind)
