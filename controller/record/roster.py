"""The venue's roster: every player the record knows, by id, so that one player's matches on
different tables and evenings are one record.

A player picked at a console keeps the roster id picked (``new_match``'s ``player_ids``, in
``match_started``). A name typed (id null) is the venue's entry of that name (``same_name``:
case, «ё»/«е» and spaces aside; of several, the one seen last), unless another player of the
same match already is; the referee's «новый игрок» (id ``"new"``) and a name no entry has make
an entry of its own, its id made from the match (the same whenever the match is summed up
again). Staff merge two entries (``merge``): the one merged away is kept as an alias, so the
figures stay combined when a match is summed up again; the journals are not touched. The venue
recorder publishes each venue's roster, retained, on ``<prefix>/<venue>/roster`` (``payload``).
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Any

import sqlalchemy as sa

from controller.record.store import Store, match_players, matches, player_aliases

#: At most this many players are offered, the most recently seen first.
ROSTER_SIZE = 200
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: The id a console sends for a name typed that is someone new, not the entry of that name.
NEW = "new"


def same_name(name: str) -> str:
    """Returns what two names typed for one player share: case, «ё»/«е» and spaces aside."""
    return " ".join(name.casefold().replace("ё", "е").split())


def new_id(venue: str, table: str, epoch: str, match_id: str, idx: int) -> str:
    """Returns the roster id of a player whose name was typed in that match, at ``idx``."""
    key = "\0".join((venue, table, epoch, match_id, str(idx))).encode()
    return "n" + hashlib.sha256(key).hexdigest()[:15]


def assign(store: Store) -> set[str]:
    """Gives every summed-up match's players their roster ids, in the order the matches
    ended: the console's (through any merge), else the venue's entry of the name typed, else
    a new one; returns the venues whose roster changed."""
    c, m = match_players.c, matches.c
    with store.engine.connect() as conn:
        todo = sorted(conn.execute(
            sa.select(c.venue, c.table_id, c.match_id, m.epoch, m.first_seq, m.ended)
            .join(matches, sa.and_(m.venue == c.venue, m.table_id == c.table_id,
                                   m.epoch == c.epoch, m.match_id == c.match_id))
            .where(c.player_id.is_(None)).distinct()).all(),
            key=lambda row: (row[5] or 0.0, row[:4]))
    known: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    for venue, table, match_id, epoch, first, _ended in todo:
        if venue not in known:
            known[venue] = (known_names(store, venue), aliases(store, venue))
        names, merged = known[venue]
        started = store.messages(venue, table, first, first, epoch)
        data = (started[0].payload.get("data") or {}) if started else {}
        ids = data.get("player_ids")
        picked: list[Any] = ids if isinstance(ids, list) else []
        with store.engine.begin() as conn:
            match = sa.and_(c.venue == venue, c.table_id == table, c.epoch == epoch,
                            c.match_id == match_id)
            taken = {pid for (pid,) in conn.execute(sa.select(c.player_id).where(match))}
            for idx, name in conn.execute(sa.select(c.idx, c.name).where(
                    match, c.player_id.is_(None)).order_by(c.idx)).all():
                given = picked[idx] if idx < len(picked) else None
                typed = names.get(same_name(name or ""))
                if isinstance(given, str) and given != NEW and _ID.match(given):
                    pid = given
                elif given is None and typed is not None and typed not in taken:
                    pid = typed
                else:
                    pid = new_id(venue, table, epoch or "", match_id, idx)
                pid = merged.get(pid, pid)
                taken.add(pid)
                names[same_name(name or "")] = pid
                conn.execute(sa.update(match_players).where(match, c.idx == idx)
                             .values(player_id=pid))
    return {venue for venue, *_ in todo}


def known_names(store: Store, venue: str) -> dict[str, str]:
    """Returns the venue's entries by ``same_name`` of the name: the one seen last of each."""
    c, m = match_players.c, matches.c
    with store.engine.connect() as conn:
        rows = conn.execute(
            sa.select(c.name, c.player_id, m.ended)
            .join(matches, sa.and_(m.venue == c.venue, m.table_id == c.table_id,
                                   m.epoch == c.epoch, m.match_id == c.match_id))
            .where(c.venue == venue, c.player_id.is_not(None))).all()
    return {same_name(name or ""): pid
            for name, pid, _ in sorted(rows, key=lambda row: row[2] or 0.0)}


def aliases(store: Store, venue: str) -> dict[str, str]:
    """Returns the venue's merged entries: id merged away -> the id it is now."""
    a = player_aliases.c
    with store.engine.connect() as conn:
        return dict(conn.execute(sa.select(a.player_id, a.merged_into)
                                 .where(a.venue == venue)).all())


def merge(store: Store, venue: str, merged: str, into: str) -> int:
    """Makes roster entry ``merged`` one player with ``into`` (staff: two entries of one
    person): their matches and figures are ``into``'s from now on, and stay so when a match
    is summed up again; the tables' journals are not touched. Returns the players' places
    moved; raises ValueError for ids that are not the venue's entries or are the same."""
    if merged == into:
        raise ValueError("an entry cannot be merged into itself")
    c, a = match_players.c, player_aliases.c
    with store.engine.begin() as conn:
        here = {pid for (pid,) in conn.execute(sa.select(c.player_id).distinct().where(
            c.venue == venue, c.player_id.in_([merged, into])))}
        if here != {merged, into}:
            raise ValueError(f"not entries of {venue}: {sorted({merged, into} - here)}")
        conn.execute(sa.update(player_aliases).where(a.venue == venue, a.merged_into == merged)
                     .values(merged_into=into))  # merged earlier into the one merged now
        conn.execute(sa.insert(player_aliases).values(venue=venue, player_id=merged,
                                                      merged_into=into))
        moved = conn.execute(sa.update(match_players).where(
            c.venue == venue, c.player_id == merged).values(player_id=into)).rowcount
    return int(moved)


def entries(store: Store, venue: str, limit: int = ROSTER_SIZE) -> list[dict[str, Any]]:
    """Returns the venue's players, ``{id, name, table, last, against, matches}`` (``name``,
    ``table`` and the other players' names (``against``) of their last match, ``last`` when it
    ended, Unix seconds), the most recently seen first, at most ``limit``: two players of one
    name are told apart by them."""
    c, m = match_players.c, matches.c
    joined = sa.and_(m.venue == c.venue, m.table_id == c.table_id, m.epoch == c.epoch,
                     m.match_id == c.match_id)
    last = sa.func.max(sa.func.coalesce(m.ended, 0.0))
    with store.engine.connect() as conn:
        top = conn.execute(
            sa.select(c.player_id, sa.func.count(), last).join(matches, joined)
            .where(c.venue == venue, c.player_id.is_not(None)).group_by(c.player_id)
            .order_by(last.desc(), c.player_id).limit(limit)).all()
        latest: dict[str, tuple[str, str, str, str]] = {}
        for pid, name, table, epoch, match_id in conn.execute(
                sa.select(c.player_id, c.name, c.table_id, c.epoch, c.match_id)
                .join(matches, joined)
                .where(c.venue == venue, c.player_id.in_([row[0] for row in top]))
                .order_by(sa.func.coalesce(m.ended, 0.0).desc())):
            latest.setdefault(pid, (name, table, epoch, match_id))
        players: dict[tuple[str, str, str], list[tuple[str | None, str]]] = {}
        for table, epoch, match_id, pid, name in conn.execute(
                sa.select(c.table_id, c.epoch, c.match_id, c.player_id, c.name)
                .where(c.venue == venue, c.match_id.in_({k[3] for k in latest.values()}))
                .order_by(c.idx)):
            players.setdefault((table, epoch, match_id), []).append((pid, name))
    out = []
    for pid, n, ended in top:
        name, table, epoch, match_id = latest[pid]
        against = [other for who, other in players.get((table, epoch, match_id), [])
                   if who != pid]
        out.append({"id": pid, "name": name, "table": table, "last": round(float(ended), 3) or None,
                    "against": against, "matches": n})
    return out


def payload(store: Store, venue: str) -> dict[str, Any]:
    """Returns the body of ``<prefix>/<venue>/roster``."""
    return {"v": 1, "ts": round(time.time(), 3), "players": entries(store, venue)}
