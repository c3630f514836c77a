"""Joining and leaving the waiting list (``controller.record.waiting``): the requests the
consoles send over MQTT and the targets of the recorder's HTTP server, answered alike.

Over MQTT a console (the browsers' user ``referee``) publishes on
``<prefix>/<venue>/waiting/request/join`` ``{"transaction", "kind": "pool" | "russian",
"players": [{"id", "name"}, …]}`` or ``…/request/leave`` ``{"transaction", "entry"}``; the
recorder answers on ``<prefix>/<venue>/waiting/response/<name>`` ``{"v": 1, "transaction",
"status": "ok", "entry": {…}}`` or ``{"v": 1, "transaction", "status": "error", "error":
kind, "detail"}`` (kinds: ``body``, ``kind``, ``players``, ``already``, ``full``, ``entry``,
``unknown``). A join delivered twice joins once (its entry is made from its transaction).

Over HTTP::

    GET  /record/waiting/<venue>.json   the venue's lists (as ``<prefix>/<venue>/waiting``)
    POST /record/waiting/<venue>        {"action": "join", "kind", "players"} -> 201 {"entry"}
                                        {"action": "leave", "entry"} -> 200: the director's
                                        login (``controller.record.director``)

Joining is a player's act: anyone on the venue's network may put himself on the list, as he
would write his name on the club's board, and a stranger can only add (a player once, at most
``waiting.LIST_MAX`` entries a kind). Taking an entry off is not: over HTTP it needs the
director's login, over MQTT the broker's referee user (a console at a table), so nobody
unknown can empty the list. A refused request is a 409 ``{"refused": kind, "detail"}``; a body
that is not JSON a 400.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from typing import Any

from controller.record import director, waiting
from controller.record.store import Store
from controller.web.http import JSON, Request, Response

_LIST = re.compile(r"^/record/waiting/([A-Za-z0-9_-]{1,64})(\.json)?$")
_TRANSACTION = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
#: The requests a console may send.
NAMES = ("join", "leave")


def answer(store: Store, venue: str, name: str, raw: bytes) -> dict[str, Any]:
    """Returns the answer to a console's request ``name`` with body ``raw`` (module
    docstring). Reads and writes the store: call it off the event loop."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        body = None
    transaction = body.get("transaction") if isinstance(body, dict) else None
    if not isinstance(transaction, str) or not _TRANSACTION.match(transaction):
        return _error(None, "body", "a JSON object with a transaction (1-64 of A-Z a-z 0-9 _ . : -)")
    assert isinstance(body, dict)
    try:
        if name == "join":
            made = waiting.join(store, venue, body.get("kind"), body.get("players"), transaction)
            return {"v": 1, "transaction": transaction, "status": "ok", "entry": made.shown()}
        if name == "leave":
            if not waiting.leave(store, venue, body.get("entry")):
                return _error(transaction, "entry", "no such entry on the list")
            return {"v": 1, "transaction": transaction, "status": "ok", "entry": None}
    except waiting.WaitingError as exc:
        return _error(transaction, exc.kind, str(exc))
    return _error(transaction, "unknown", f"requests: {', '.join(NAMES)}")


def _error(transaction: str | None, kind: str, detail: str) -> dict[str, Any]:
    return {"v": 1, "transaction": transaction, "status": "error", "error": kind,
            "detail": detail}


class WaitingSite:
    """The waiting list's targets (module docstring) as a site of the project's one HTTP
    server; a leave only with the director's login of ``password``."""

    def __init__(self, store: Store, password: str | None = None) -> None:
        self.store = store
        self._password = password or None

    async def answer(self, request: Request) -> Response | None:
        found = _LIST.match(request.path)
        if found is None:
            return None
        venue = found.group(1)
        if request.method in ("GET", "HEAD") and found.group(2):
            body = await asyncio.to_thread(waiting.payload, self.store, venue)
            return Response(200, _json(body), JSON)
        if request.method != "POST" or found.group(2):
            return Response.text(404, "not found\n")
        try:
            sent = json.loads(request.body or b"{}")
        except ValueError:
            sent = None
        if not isinstance(sent, dict) or sent.get("action") not in NAMES:
            return Response.text(400, "a JSON object: {\"action\": \"join\" | \"leave\", …}\n")
        if sent["action"] == "leave":
            refused = director.refusal(request, self._password)
            if refused is not None:
                return refused
        raw = json.dumps({**sent, "transaction": secrets.token_hex(8)}).encode()
        answered = await asyncio.to_thread(answer, self.store, venue, sent["action"], raw)
        if answered["status"] != "ok":
            return Response(409, _json({"refused": answered["error"],
                                        "detail": answered["detail"]}), JSON)
        return Response(201 if sent["action"] == "join" else 200,
                        _json({"entry": answered["entry"]}), JSON)


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()
