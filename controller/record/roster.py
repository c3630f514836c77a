"""The venue's roster: every player the record knows, by id, so that one player's matches on
different tables and evenings are one record.

A player picked at a console keeps the roster id picked (``new_match``'s ``player_ids``, in
``match_started``); a name typed has none and becomes an entry of its own, never merged with
another by name: two «Борис» stay two players unless the console picked the same entry. Its
id is made from the match (the same whenever the match is summed up again). The venue
recorder publishes each venue's roster, retained, on ``<prefix>/<venue>/roster`` (``payload``).
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Any

import sqlalchemy as sa

from controller.record.store import Store, match_players, matches

#: At most this many players are offered, the most recently seen first.
ROSTER_SIZE = 200
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def new_id(venue: str, table: str, epoch: str, match_id: str, idx: int) -> str:
    """Returns the roster id of a player whose name was typed in that match, at ``idx``."""
    key = "\0".join((venue, table, epoch, match_id, str(idx))).encode()
    return "n" + hashlib.sha256(key).hexdigest()[:15]


def assign(store: Store) -> set[str]:
    """Gives every summed-up match's players their roster ids: the console's, else a new one
    each; returns the venues whose roster changed."""
    c, m = match_players.c, matches.c
    with store.engine.connect() as conn:
        todo = conn.execute(
            sa.select(c.venue, c.table_id, c.match_id, m.epoch, m.first_seq)
            .join(matches, sa.and_(m.venue == c.venue, m.table_id == c.table_id,
                                   m.epoch == c.epoch, m.match_id == c.match_id))
            .where(c.player_id.is_(None)).distinct()).all()
    for venue, table, match_id, epoch, first in todo:
        started = store.messages(venue, table, first, first, epoch)
        data = (started[0].payload.get("data") or {}) if started else {}
        ids = data.get("player_ids")
        picked: list[Any] = ids if isinstance(ids, list) else []
        with store.engine.begin() as conn:
            match = sa.and_(c.venue == venue, c.table_id == table, c.epoch == epoch,
                            c.match_id == match_id)
            for (idx,) in conn.execute(sa.select(c.idx).where(match)):
                given = picked[idx] if idx < len(picked) else None
                pid = (given if isinstance(given, str) and _ID.match(given)
                       else new_id(venue, table, epoch or "", match_id, idx))
                conn.execute(sa.update(match_players).where(match, c.idx == idx)
                             .values(player_id=pid))
    return {venue for venue, *_ in todo}


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
