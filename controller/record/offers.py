"""The next match offered to each table (issue 42), computed from the store.

The recorder publishes, retained, ``<prefix>/<venue>/<table>/next``::

    {"v": 1, "source": "tournament" | "waiting", "offer": "<id>", "game": "<game id>" | null,
     "players": [{"id": "<roster id>", "name": "..."}, ...], "race_to": n | null,
     "options": {...}, "tournament": {"id", "match", "name", "round"} | null}

or an empty retained payload when the table has nothing next. A tournament match on the
table comes first (withheld while the table plays it: it is not next, it is on), else the
entry of the waiting list the table was offered (``controller.record.waiting``; only while
the table is not playing). ``game`` is the game of the table's last match (None before any):
a console starts the offer in it. ``offer`` names the offer: ``<tournament>:<match>`` or the
waiting entry's id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa

import tournament as core
from controller.record import roster, tournaments, waiting
from controller.record.store import Store

#: A table's offer: its topic's body, None for nothing next.
Offer = dict[str, Any] | None


def booked(store: Store, venue: str) -> dict[str, tuple[str, str]]:
    """Returns the venue's tables that have a tournament match: table -> (tournament, match)."""
    b = tournaments.booked.c
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(b.table_id, b.tournament_id, b.match_id)
                            .where(b.venue == venue)).all()
    return {table: (tid, match) for table, tid, match in rows}


def offers(store: Store, venue: str) -> dict[str, Offer]:
    """Returns every known table's offer at ``venue``, after letting the waiting list follow
    the tables (``waiting.settle``)."""
    now = waiting.tables_now(store, venue)
    on_tables = booked(store, venue)
    waiting.settle(store, venue, now, on_tables)
    names = {e["id"]: e["name"] for e in roster.entries(store, venue, limit=10_000)
             } if on_tables else {}  # only a tournament's players need the roster's names
    found: dict[str, Offer] = {table: None for table in now}
    for table_id, (tid, match) in on_tables.items():
        found[table_id] = _tournament(store, venue, tid, match, now.get(table_id), names)
    for entry in waiting.entries(store, venue):
        table = now.get(entry.offered_to or "")
        if table is not None and found.get(table.table) is None and not table.playing:
            found[table.table] = {
                "v": 1, "source": "waiting", "offer": entry.entry, "game": table.game,
                "players": [dict(p) for p in entry.players], "race_to": None, "options": {},
                "tournament": None}
    return found


def _tournament(store: Store, venue: str, tid: str, match: str, table: waiting.TableNow | None,
                names: Mapping[str, str]) -> Offer:
    """Returns the offer of tournament ``tid``'s ``match`` on ``table``, None while the table
    plays it (or it is no longer ready)."""
    made = tournaments.load(store, venue, tid)
    try:
        pairing = made.pairing(match)
    except core.TournamentError:
        return None
    if table is not None and table.playing and set(pairing.players) <= set(table.ids):
        return None
    named = {**tournaments.names(store, venue, tid), **names}
    t = tournaments.tournaments.c
    with store.engine.connect() as conn:
        title = conn.scalar(sa.select(t.name).where(t.venue == venue, t.tournament_id == tid))
    return {"v": 1, "source": "tournament", "offer": f"{tid}:{match}",
            "game": None if table is None else table.game,
            "players": [{"id": p, "name": named.get(p, p)} for p in pairing.players],
            "race_to": pairing.race, "options": {},
            "tournament": {"id": tid, "match": match, "name": title or "",
                           "round": made.draw.match(match).round}}


def everything(store: Store) -> dict[tuple[str, str], Offer]:
    """Returns every venue's tables' offers, keyed ``(venue, table)``."""
    return {(venue, table): offer for venue in store.venues()
            for table, offer in offers(store, venue).items()}


class Board:
    """What the recorder last published on each ``next`` topic and waiting list, so that it
    publishes only what changed (everything again after it starts: a restart loses nothing)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._sent: dict[str, bytes] = {}

    def due(self, store: Store) -> list[tuple[str, bytes]]:
        """Returns ``(topic, payload)`` of every offer and waiting list that changed since
        last published (an empty payload: nothing next). Reads and writes the store."""
        out: dict[str, bytes] = {}
        for (venue, table), offer in everything(store).items():
            body = b"" if offer is None else json.dumps(offer, ensure_ascii=False).encode()
            out[f"{self.prefix}/{venue}/{table}/next"] = body
        for venue in store.venues():
            out[f"{self.prefix}/{venue}/waiting"] = json.dumps(
                waiting.payload(store, venue), ensure_ascii=False).encode()
        return [(topic, body) for topic, body in sorted(out.items())
                if self._sent.get(topic) != body]

    def sent(self, topic: str, body: bytes) -> None:
        """Notes that ``body`` went out on ``topic``."""
        self._sent[topic] = body

    def forget(self) -> None:
        """Forgets what was sent: everything is published again (a new connection)."""
        self._sent.clear()
