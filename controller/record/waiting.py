"""The waiting list on the venue record: players waiting for a table of a kind, in the order
they joined (issue 42; schema 0008, ``waiting``).

An entry is a player or a pair (roster ids: a name typed is the venue's entry of that name,
else a new id made from the entry, as the roster makes one for a name typed at a console) and
the kind of table it waits for: ``pool`` or ``russian`` (a Russian billiards table, 12 ft:
``KINDS``). A table's kind is the game of its last match: a game drawn with ivory balls (the
pyramid, Russian billiards) is played on a ``russian`` table, every other on a pool table; a
table that has played no match has no kind yet and is offered no one.

A table that is not playing (its last ``match_started`` has a ``match_over`` after it) and has
no tournament match is offered the first match of its kind the list makes and no other table
has (``settle``, ``offer``: a pair, or two players waiting alone, made one entry):
a conditional update in a transaction, and a unique key of one entry a table, so two tables
ending at once take two entries, never one twice. The next match started on that table with
the entry's roster ids takes the entry off the list; another match started there gives the
entry back to the list, first where it was. Everything is in the store: a restarted recorder
carries on from it.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from controller.record import roster
from controller.record.store import Store, messages, meta, tables
from rules.games import BallStyle, find_spec

waiting = sa.Table(
    "waiting", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("entry_id", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(16)), sa.Column("players", sa.Text),
    sa.Column("joined", sa.Float), sa.Column("offered_to", sa.String(64)),
    sa.Column("offered_after", sa.Text))

#: The kinds of table a player waits for.
KINDS = ("pool", "russian")
#: At most this many entries wait for one kind of table at a venue: a stranger cannot grow
#: the list for ever.
LIST_MAX = 40
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
NAME_MAX = 64


class WaitingError(ValueError):
    """A join or a leave the list cannot take (the reason is ``kind``, for a page's words)."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


@dataclass(frozen=True, slots=True)
class TableNow:
    """What the record knows of a table now: whether a match is on, the game and roster ids
    of its last match begun, and that match's ``match_started`` (``[epoch, seq]``, JSON)."""

    table: str
    playing: bool
    game: str | None
    ids: tuple[str | None, ...]
    started: str | None

    @property
    def kind(self) -> str | None:
        """The kind of table its last game says (module docstring), None before any."""
        spec = find_spec(self.game)
        if spec is None:
            return None
        return "russian" if spec.ball_style is BallStyle.IVORY else "pool"


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the list: its players ``({"id", "name"}, …)`` and the table offered it."""

    entry: str
    kind: str
    players: tuple[Mapping[str, str], ...]
    joined: float
    offered_to: str | None

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(p["id"] for p in self.players)

    def shown(self) -> dict[str, Any]:
        return {"entry": self.entry, "players": [dict(p) for p in self.players],
                "joined": round(self.joined, 3), "offered_to": self.offered_to}


def tables_now(store: Store, venue: str) -> dict[str, TableNow]:
    """Returns each table of the venue as the record knows it now (its epoch heard last)."""
    t, c = tables.c, messages.c
    out: dict[str, TableNow] = {}
    with store.engine.connect() as conn:
        heard: dict[str, tuple[float, str]] = {}
        for table, epoch, when in conn.execute(sa.select(t.table_id, t.epoch, t.heard)
                                               .where(t.venue == venue)):
            if table not in heard or (when or 0.0) >= heard[table][0]:
                heard[table] = (when or 0.0, epoch)
        for table, (_, epoch) in sorted(heard.items()):
            same = (c.venue == venue, c.table_id == table, c.epoch == epoch)
            seq = conn.scalar(sa.select(sa.func.max(c.seq)).where(*same,
                                                                  c.kind == "match_started"))
            if seq is None:
                out[table] = TableNow(table, False, None, (), None)
                continue
            over = conn.scalar(sa.select(c.seq).where(*same, c.kind == "match_over",
                                                      c.seq > seq).limit(1))
            raw = conn.scalar(sa.select(c.payload).where(*same, c.seq == seq))
            data = (json.loads(raw or "{}").get("data") or {})
            ids = data.get("player_ids")
            game = data.get("game")
            out[table] = TableNow(
                table, over is None, game if isinstance(game, str) else None,
                tuple(i if isinstance(i, str) else None for i in ids)
                if isinstance(ids, list) else (), json.dumps([epoch, int(seq)]))
    return out


def entries(store: Store, venue: str, kind: str | None = None,
            conn: sa.Connection | None = None) -> list[Entry]:
    """Returns the venue's entries (of ``kind``, or all), in the order they joined."""
    if conn is None:
        with store.engine.connect() as own:
            return entries(store, venue, kind, own)
    w = waiting.c
    q = sa.select(w.entry_id, w.kind, w.players, w.joined, w.offered_to).where(w.venue == venue)
    if kind is not None:
        q = q.where(w.kind == kind)
    return [Entry(e, k, tuple(json.loads(p)), j, o)
            for e, k, p, j, o in conn.execute(q.order_by(w.joined, w.entry_id))]


def payload(store: Store, venue: str) -> dict[str, Any]:
    """Returns the venue's list as ``<prefix>/<venue>/waiting`` carries it:
    ``{"v": 1, "lists": {kind: [{"entry", "players", "joined", "offered_to"}, …]}}``."""
    found = entries(store, venue)
    return {"v": 1, "lists": {kind: [e.shown() for e in found if e.kind == kind]
                              for kind in KINDS}}


def entry_id(venue: str, transaction: str) -> str:
    """Returns the entry a join with this ``transaction`` makes: the same when it comes
    again (a request delivered twice joins once)."""
    return "w" + hashlib.sha256(f"{venue}\0{transaction}".encode()).hexdigest()[:15]


def players_of(store: Store, venue: str, entry: str, given: object) -> tuple[dict[str, str], ...]:
    """Returns one or two players ``{"id", "name"}`` from what a join sent (``[{"id"?,
    "name"?}]``): an id as given (its roster name when no name came), a name typed as the
    venue's entry of that name, else a new id made from the entry. Raises WaitingError."""
    if not isinstance(given, list) or not 1 <= len(given) <= 2:
        raise WaitingError("players", "players: one or two, each {id, name}")
    named = roster.known_names(store, venue)
    listed = {e["id"]: e["name"] for e in roster.entries(store, venue, limit=10_000)}
    out: list[dict[str, str]] = []
    for idx, player in enumerate(given):
        if not isinstance(player, dict):
            raise WaitingError("players", "players: one or two, each {id, name}")
        pid, name = player.get("id"), player.get("name")
        name = " ".join(name.split())[:NAME_MAX] if isinstance(name, str) else ""
        if isinstance(pid, str) and pid != roster.NEW:
            if not _ID.match(pid):
                raise WaitingError("players", "an id: 1-64 of A-Z a-z 0-9 _ -")
            name = name or listed.get(pid, "")
        elif name:
            typed = named.get(roster.same_name(name))
            pid = typed if typed is not None and pid is None else f"{entry}-{idx}"
        if not isinstance(pid, str) or not name:
            raise WaitingError("players", "each player: a roster id or a name")
        out.append({"id": pid, "name": name})
    if len({p["id"] for p in out}) != len(out):
        raise WaitingError("players", "one player twice")
    return tuple(out)


def join(store: Store, venue: str, kind: object, given: object, transaction: str,
         now: float | None = None) -> Entry:
    """Puts a player or a pair at the end of the list for ``kind``; returns the entry (the
    one already made when the same transaction comes again). Raises WaitingError for a kind
    or players it cannot take, a player already waiting (a name typed that one waiting has
    is that player), or a full list."""
    if kind not in KINDS:
        raise WaitingError("kind", f"kind: one of {', '.join(KINDS)}")
    made = entry_id(venue, transaction)
    players = players_of(store, venue, made, given)
    with store.engine.begin() as conn:
        ahead = entries(store, venue, None, conn)
        again = next((e for e in ahead if e.entry == made), None)
        if again is not None:
            return again
        if sum(e.kind == kind for e in ahead) >= LIST_MAX:
            raise WaitingError("full", f"the list for {kind} is full ({LIST_MAX})")
        waiting_ids = {i for e in ahead for i in e.ids}
        waiting_names = {roster.same_name(p["name"]) for e in ahead for p in e.players}
        if waiting_ids & {p["id"] for p in players} or waiting_names & _typed(given):
            raise WaitingError("already", "a player of it is on the list already")
        joined = time.time() if now is None else now
        conn.execute(sa.insert(waiting).values(
            venue=venue, entry_id=made, kind=kind, joined=joined,
            players=json.dumps(players, ensure_ascii=False)))
    return Entry(made, str(kind), players, joined, None)


def _typed(given: object) -> set[str]:
    """Returns the names typed (sent without an id) among a join's players, as ``same_name``."""
    return {roster.same_name(str(p.get("name") or "")) for p in given
            if isinstance(p, dict) and p.get("id") is None} if isinstance(given, list) else set()


def leave(store: Store, venue: str, entry: object) -> bool:
    """Takes an entry off the list; returns whether it was on it."""
    if not isinstance(entry, str):
        raise WaitingError("entry", "entry: the id a join answered")
    w = waiting.c
    with store.engine.begin() as conn:
        gone = conn.execute(sa.delete(waiting).where(w.venue == venue, w.entry_id == entry))
    return bool(gone.rowcount)


def settle(store: Store, venue: str, now: Mapping[str, TableNow],
           booked: Iterable[str]) -> bool:
    """Follows the tables: an entry whose pair started on the table offered it leaves the
    list, one whose table started another match goes back, and each free table of a known
    kind without a tournament match (``booked``) is offered the first entry of its kind no
    other table has. Returns whether the list changed."""
    changed = False
    w = waiting.c
    with store.engine.begin() as conn:
        for e in entries(store, venue, None, conn):
            table = now.get(e.offered_to or "")
            if table is None:
                continue
            after = conn.scalar(sa.select(w.offered_after).where(w.venue == venue,
                                                                  w.entry_id == e.entry))
            if table.started == after:
                continue
            key = (w.venue == venue, w.entry_id == e.entry)
            if e.ids <= set(table.ids):
                conn.execute(sa.delete(waiting).where(*key))
            else:
                conn.execute(sa.update(waiting).where(*key).values(offered_to=None,
                                                                    offered_after=None))
            changed = True
    busy = set(booked)
    for table in now.values():
        if not table.playing and table.kind is not None and table.table not in busy:
            changed |= offer(store, venue, table)
    return changed


class _Taken(Exception):
    """Another table took an entry between this one's read and its write: try again."""


def offer(store: Store, venue: str, table: TableNow) -> bool:
    """Gives ``table`` the first match of its kind the list makes and no table has, unless
    it has one: a pair's entry, or a player waiting alone with the next one waiting alone (the
    two made one entry, the first's place); a player alone with nobody to play waits.
    Returns whether it took one. Safe against another table (or recorder) doing the same at
    once: a conditional write in a transaction, tried again when another got there first."""
    w = waiting.c
    for _ in range(LIST_MAX):
        try:
            with store.engine.begin() as conn:
                if conn.scalar(sa.select(w.entry_id).where(w.venue == venue,
                                                           w.offered_to == table.table)):
                    return False
                free = [e for e in entries(store, venue, table.kind, conn) if e.offered_to is None]
                match = _first_match(free)
                if match is None:
                    return False
                _take(conn, venue, table, match)
                return True
        except _Taken:
            continue
        except sa.exc.IntegrityError:
            return False  # another took one for this table at once: it has its one
    return False


def _first_match(free: list[Entry]) -> tuple[Entry, ...] | None:
    """Returns the entries of the first match the free entries make, in their order."""
    for i, entry in enumerate(free):
        if len(entry.players) >= 2:
            return (entry,)
        partner = next((e for e in free[i + 1:] if len(e.players) == 1), None)
        if partner is not None:
            return (entry, partner)
    return None


def _take(conn: sa.Connection, venue: str, table: TableNow, match: tuple[Entry, ...]) -> None:
    """Offers ``match`` to ``table`` (a partner's entry joined to the first's). Raises _Taken
    when another took one of them first (the transaction is then rolled back)."""
    w = waiting.c
    first, *partners = match
    for partner in partners:
        gone = conn.execute(sa.delete(waiting).where(w.venue == venue, w.entry_id == partner.entry,
                                                     w.offered_to.is_(None)))
        if not gone.rowcount:
            raise _Taken(partner.entry)
    players = [dict(p) for e in match for p in e.players]
    took = conn.execute(sa.update(waiting).where(
        w.venue == venue, w.entry_id == first.entry, w.offered_to.is_(None)).values(
        offered_to=table.table, offered_after=table.started,
        players=json.dumps(players, ensure_ascii=False)))
    if not took.rowcount:
        raise _Taken(first.entry)
