"""Tournaments on the venue record: the store of ``tournament``'s pure core.

A tournament is kept as its set-up (``Setup``: the format, the seeds, the races, the
handicaps; the draw is made again from it), one row a result and one row a match on a table
(``tournament_tables``, one match a table at a venue: a unique key). Every change is one
transaction that first bumps the tournament's ``version`` (a write: PostgreSQL locks the
row, SQLite takes its one writer's lock), then reads it, applies the core's step and writes
what changed: two directors acting at once are served one after the other, so neither
double-books a table or a player nor loses the other's result. A recorder restarted reads it
all again: nothing is held only in memory.

Results come from the tables (``take_results``, after every batch the recorder stores): a
finished match whose ``new_match`` named its tournament match (``{"id", "match"}``, kept in
``matches.tournament``) is that match's result if its two players (roster ids) are still the
match's, else refused (``Refused``: the recorder logs it and lists it in its health); a
finished match that named none, on a table that has a tournament match between that match's
two players, is its result. The table's match is named as the result's ``source``; a match
summed up again with another winner (a correction on the table) corrects it, and the bracket
re-flows.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

import tournament as core
from controller.record.store import Store, match_players, matches, meta

tournaments = sa.Table(
    "tournaments", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("tournament_id", sa.String(64), primary_key=True),
    sa.Column("name", sa.Text), sa.Column("setup", sa.Text), sa.Column("created", sa.Float),
    sa.Column("version", sa.BigInteger))
results = sa.Table(
    "tournament_results", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("tournament_id", sa.String(64), primary_key=True),
    sa.Column("match_id", sa.String(64), primary_key=True),
    sa.Column("players", sa.Text), sa.Column("winner", sa.Text), sa.Column("score", sa.Text),
    sa.Column("walkover", sa.Boolean), sa.Column("source", sa.Text),
    sa.Column("recorded", sa.Float))
booked = sa.Table(
    "tournament_tables", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("tournament_id", sa.String(64), primary_key=True),
    sa.Column("match_id", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64)), sa.Column("assigned", sa.Float))


class NoTournament(core.TournamentError, KeyError):
    """No such tournament at the venue."""


@dataclass(frozen=True, slots=True)
class Setup:
    """What a director chose: the format, the players best seed first (roster ids), for groups
    how many and how many of each go through, the race (per round key too), the players'
    handicap levels, the most frames a handicap gives, and the players' names as picked (the
    roster's own name of each comes first once it has one)."""

    format: core.Format
    seeds: tuple[str, ...]
    groups: int = 0
    advance: int = 0
    race: int = 5
    races: Mapping[str, int] = field(default_factory=dict)
    levels: Mapping[str, int] = field(default_factory=dict)
    cap: int = 0
    names: Mapping[str, str] = field(default_factory=dict)

    def tournament(self) -> core.Tournament:
        """Returns the tournament it makes, with no results; raises BadDraw."""
        if self.format is core.Format.GROUPS:
            draw = core.round_robin_groups(self.seeds, self.groups, self.advance)
        elif self.format is core.Format.DOUBLE:
            draw = core.double_elimination(self.seeds)
        else:
            draw = core.single_elimination(self.seeds)
        return core.Tournament(draw, core.Races(self.race, tuple(sorted(self.races.items()))),
                               core.Handicaps(tuple(sorted(self.levels.items())), self.cap))

    def dumps(self) -> str:
        return json.dumps({"format": self.format.value, "seeds": list(self.seeds),
                           "groups": self.groups, "advance": self.advance, "race": self.race,
                           "races": dict(self.races), "levels": dict(self.levels),
                           "cap": self.cap, "names": dict(self.names)}, ensure_ascii=False)

    @classmethod
    def loads(cls, text: str) -> Setup:
        data = json.loads(text)
        return cls(core.Format(data["format"]), tuple(data["seeds"]), data["groups"],
                   data["advance"], data["race"], data["races"], data["levels"], data["cap"],
                   data.get("names", {}))


def create(store: Store, venue: str, name: str, setup: Setup) -> str:
    """Stores a new tournament; returns its id. Raises BadDraw for a set-up the formats
    refuse."""
    setup.tournament()
    tournament_id = secrets.token_hex(4)
    with store.engine.begin() as conn:
        conn.execute(sa.insert(tournaments).values(
            venue=venue, tournament_id=tournament_id, name=name, setup=setup.dumps(),
            created=time.time(), version=0))
    return tournament_id


def listed(store: Store, venue: str) -> list[dict[str, Any]]:
    """Returns the venue's tournaments, ``{id, name, created, version}``, newest first."""
    t = tournaments.c
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(t.tournament_id, t.name, t.created, t.version)
                            .where(t.venue == venue).order_by(t.created.desc())).all()
    return [{"id": i, "name": n, "created": c, "version": v} for i, n, c, v in rows]


def names(store: Store, venue: str, tournament_id: str) -> dict[str, str]:
    """Returns the set-up's names of the players (``Setup.names``)."""
    t = tournaments.c
    with store.engine.connect() as conn:
        setup = conn.scalar(sa.select(t.setup).where(t.venue == venue,
                                                      t.tournament_id == tournament_id))
    return {} if setup is None else dict(Setup.loads(setup).names)


def sources(store: Store, venue: str, tournament_id: str) -> dict[str, str | None]:
    """Returns each result's source: the table's match it was taken from, None for one the
    director gave (a walkover, a correction)."""
    r = results.c
    with store.engine.connect() as conn:
        return {m: s for m, s in conn.execute(sa.select(r.match_id, r.source).where(
            r.venue == venue, r.tournament_id == tournament_id))}


def load(store: Store, venue: str, tournament_id: str,
         conn: sa.Connection | None = None) -> core.Tournament:
    """Returns the tournament with its results and tables; raises NoTournament."""
    if conn is None:
        with store.engine.connect() as own:
            return load(store, venue, tournament_id, own)
    t, r, b = tournaments.c, results.c, booked.c
    setup = conn.scalar(sa.select(t.setup).where(t.venue == venue,
                                                  t.tournament_id == tournament_id))
    if setup is None:
        raise NoTournament(f"no tournament {tournament_id} at {venue}")
    made = Setup.loads(setup).tournament()
    kept = {m: core.Result(m, tuple(json.loads(p)), w,
                           None if s is None else tuple(json.loads(s)), bool(x))
            for m, p, w, s, x in conn.execute(
                sa.select(r.match_id, r.players, r.winner, r.score, r.walkover)
                .where(r.venue == venue, r.tournament_id == tournament_id))}
    tables = dict(conn.execute(sa.select(b.match_id, b.table_id).where(
        b.venue == venue, b.tournament_id == tournament_id)).all())
    return core.Tournament(made.draw, made.races, made.handicaps, kept, tables)


Step = Callable[[core.Tournament], core.Change]


def act(store: Store, venue: str, tournament_id: str, step: Step,
        source: str | None = None) -> core.Change:
    """Applies ``step`` to the tournament in one transaction, one change at a time (its
    version bumped first: a lock); returns the change. ``source``: the table's match a result
    came from. Raises NoTournament, and the core's errors (nothing stored)."""
    try:
        return _act(store, venue, tournament_id, step, source)
    except sa.exc.IntegrityError as exc:  # the venue's one match a table: another got there
        raise core.BadAssignment("the table was just given another match") from exc


def _act(store: Store, venue: str, tournament_id: str, step: Step,
         source: str | None) -> core.Change:
    t = tournaments.c
    with store.engine.begin() as conn:
        bumped = conn.execute(sa.update(tournaments).where(
            t.venue == venue, t.tournament_id == tournament_id).values(version=t.version + 1))
        if not bumped.rowcount:
            raise NoTournament(f"no tournament {tournament_id} at {venue}")
        before = load(store, venue, tournament_id, conn)
        change = step(before)
        write(conn, venue, tournament_id, before, change.tournament, source)
    return change


def write(conn: sa.Connection, venue: str, tournament_id: str, before: core.Tournament,
          after: core.Tournament, source: str | None) -> None:
    """Writes the results and tables that differ between ``before`` and ``after``. Raises
    BadAssignment for a table another tournament has a match on."""
    r, b = results.c, booked.c
    for match, result in after.results.items():
        if before.results.get(match) != result:
            conn.execute(sa.delete(results).where(r.venue == venue, r.tournament_id == tournament_id,
                                                  r.match_id == match))
            conn.execute(sa.insert(results).values(
                venue=venue, tournament_id=tournament_id, match_id=match,
                players=json.dumps(result.players), winner=result.winner,
                score=None if result.score is None else json.dumps(result.score),
                walkover=result.walkover, source=source, recorded=time.time()))
    for match, table in before.tables.items():
        if after.tables.get(match) != table:
            conn.execute(sa.delete(booked).where(b.venue == venue, b.tournament_id == tournament_id,
                                                 b.match_id == match))
    for match, table in after.tables.items():
        if before.tables.get(match) != table:
            taken = conn.scalar(sa.select(b.tournament_id).where(b.venue == venue,
                                                                 b.table_id == table))
            if taken is not None:
                raise core.BadAssignment(f"table {table} has a match of another tournament")
            conn.execute(sa.insert(booked).values(venue=venue, tournament_id=tournament_id,
                                                  match_id=match, table_id=table,
                                                  assigned=time.time()))


@dataclass(frozen=True, slots=True)
class Refused:
    """A table's match that named a tournament match whose result it cannot be: ``source``
    the table's match (``[table, epoch, match_id]``, JSON), and why."""

    venue: str
    source: str
    tournament_id: str
    match: str
    why: str


@dataclass(frozen=True, slots=True)
class Taken:
    """What ``take_results`` did: each ``(venue, tournament, change)`` taken, and each
    result refused."""

    changes: list[tuple[str, str, core.Change]]
    refused: list[Refused]


def take_results(store: Store) -> Taken:
    """Takes the tables' finished matches as tournament results: a match whose table named
    its tournament match (``new_match``'s ``tournament``) as that match's result, if its
    players are still the match's (else refused, never silently); a match that named none,
    on a table that has a tournament match between its two players, as that match's. A
    match summed up again with another winner (a correction on the table) corrects the
    result. A result the bracket no longer takes is refused (named) or, by table, left."""
    changes, refused = by_id(store)
    for venue, tournament_id, match, table, players, source, winner in _waiting(store):
        found = _finished(store, venue, table, players, source)
        if found is None or (source is not None and found[1] == winner):
            continue
        try:
            change = act(store, venue, tournament_id, recording(match, found[1], found[2]),
                         found[0])
        except core.BadResult:
            continue
        changes.append((venue, tournament_id, change))
    return Taken(changes, refused)


def by_id(store: Store) -> tuple[list[tuple[str, str, core.Change]], list[Refused]]:
    """Takes each finished match that named its tournament match (not yet taken, or taken
    with another winner since); returns the changes and the refusals."""
    m, r = matches.c, results.c
    with store.engine.connect() as conn:
        named = conn.execute(sa.select(m.venue, m.table_id, m.epoch, m.match_id, m.tournament)
                             .where(m.tournament.is_not(None), m.abandoned.is_(False),
                                    m.winner.is_not(None)).order_by(m.ended, m.match_id)).all()
        kept = {(v, t, x): (s, w) for v, t, x, s, w in conn.execute(
            sa.select(r.venue, r.tournament_id, r.match_id, r.source, r.winner))}
    changes: list[tuple[str, str, core.Change]] = []
    refused: list[Refused] = []
    for venue, table, epoch, match_id, text in named:
        cup = json.loads(text)
        source = json.dumps([table, epoch, match_id])
        figures = _figures(store, venue, table, epoch, match_id)
        if figures is None:
            continue  # its players' roster ids not given yet
        players, winner, games = figures
        had = kept.get((venue, cup["id"], cup["match"]))
        if had == (source, winner):
            continue  # taken as it is
        if had is not None and had[0] != source and _stands(store, venue, cup["id"], cup["match"]):
            why = "the match already has a result " + (
                "the director gave" if had[0] is None else f"from {had[0]}")
        else:
            try:
                change = act(store, venue, cup["id"],
                             _named(cup["match"], players, winner, games), source)
            except core.TournamentError as exc:
                why = str(exc).strip("'\"")
            else:
                changes.append((venue, cup["id"], change))
                kept[(venue, cup["id"], cup["match"])] = (source, winner)
                continue
        refused.append(Refused(venue, source, cup["id"], cup["match"], why))
    return changes, refused


def _stands(store: Store, venue: str, tournament_id: str, match: str) -> bool:
    """Whether ``match``'s stored result still counts: one of a match a corrected earlier
    result re-flowed (other players now) no longer does, and the table's match of its new
    players is its result."""
    try:
        return match in load(store, venue, tournament_id).progress().counted
    except NoTournament:
        return False


def _named(match: str, players: tuple[str, ...], winner: str, games: tuple[int, ...]) -> Step:
    """Returns the step recording the table's match between ``players`` (roster ids, its
    ``games`` each) won by ``winner`` as ``match``'s result. The step raises BadResult when
    the match's players are not the table's."""
    def step(t: core.Tournament) -> core.Change:
        state = t.progress()
        seats = state.players(match) if match in state.status else None
        if seats is None or set(seats) != set(players):
            shown = "not known yet" if seats is None else " — ".join(seats)
            raise core.BadResult(f"match {match}'s players are {shown}, not the table's"
                                 f" {' — '.join(players)}")
        score = (games[players.index(seats[0])], games[players.index(seats[1])])
        ahead = score[seats.index(winner)] > score[1 - seats.index(winner)]
        return t.record(match, winner, score if ahead else None)
    return step


def _figures(store: Store, venue: str, table: str, epoch: str, match_id: str
             ) -> tuple[tuple[str, ...], str, tuple[int, ...]] | None:
    """Returns a summed-up match's players (roster ids, in order), its winner and each one's
    games, or None while a player has no roster id."""
    p = match_players.c
    with store.engine.connect() as conn:
        rows = conn.execute(sa.select(p.player_id, p.won, p.games_won).where(
            p.venue == venue, p.table_id == table, p.epoch == epoch, p.match_id == match_id)
            .order_by(p.idx)).all()
    if not rows or any(pid is None for pid, _, _ in rows):
        return None
    winners = [str(pid) for pid, won, _ in rows if won]
    if len(winners) != 1:
        return None
    return (tuple(str(pid) for pid, _, _ in rows), winners[0],
            tuple(int(g or 0) for _, _, g in rows))


def recording(match: str, winner: str, score: tuple[int, int] | None) -> Step:
    """Returns the step recording ``winner`` winning ``match`` by ``score``."""
    return lambda t: t.record(match, winner, score)


Waiting = tuple[str, str, str, str, tuple[str, str], str | None, str | None]


def _waiting(store: Store) -> list[Waiting]:
    """Returns the matches a table's result may be taken for: ``(venue, tournament, match,
    table, players, source, winner)``: each match on a table (``source`` and ``winner``
    None), and each result taken from a table (``source`` that table's match, ``winner`` the
    one recorded: a correction there corrects it)."""
    b, r = booked.c, results.c
    with store.engine.connect() as conn:
        on_tables = conn.execute(sa.select(b.venue, b.tournament_id, b.match_id, b.table_id)).all()
        from_tables = conn.execute(sa.select(r.venue, r.tournament_id, r.match_id, r.players,
                                             r.source, r.winner)
                                   .where(r.source.is_not(None))).all()
    waiting: list[Waiting] = []
    for venue, tournament_id, match, table in on_tables:
        pairing = load(store, venue, tournament_id).pairing(match)
        waiting.append((venue, tournament_id, match, table, pairing.players, None, None))
    for venue, tournament_id, match, players, source, winner in from_tables:
        first, second = json.loads(players)
        waiting.append((venue, tournament_id, match, json.loads(source)[0], (first, second),
                        source, winner))
    return waiting


def _finished(store: Store, venue: str, table: str, players: tuple[str, str],
              source: str | None) -> tuple[str, str, tuple[int, int] | None] | None:
    """Returns ``(source, winner, score)`` of the table's finished match between ``players``
    (the one named by ``source``, if given, and only if its winner changed; else the first
    such match no tournament result came from), or None."""
    m, p, r = matches.c, match_players.c, results.c
    with store.engine.connect() as conn:
        used = {s for (s,) in conn.execute(sa.select(r.source).where(r.source.is_not(None)))}
        rows = conn.execute(
            sa.select(m.epoch, m.match_id, p.player_id, p.won, p.games_won)
            .join(match_players, sa.and_(m.venue == p.venue, m.table_id == p.table_id,
                                         m.epoch == p.epoch, m.match_id == p.match_id))
            .where(m.venue == venue, m.table_id == table, m.abandoned.is_(False),
                   m.tournament.is_(None), m.winner.is_not(None)).order_by(m.ended, m.match_id, p.idx)).all()
    figures: dict[str, dict[str, tuple[bool, int]]] = {}
    for epoch, match_id, player, won, games in rows:
        key = json.dumps([table, epoch, match_id])
        figures.setdefault(key, {})[str(player)] = (bool(won), int(games or 0))
    for key, seen in figures.items():
        if set(seen) != set(players) or (source is None and key in used):
            continue
        if source is not None and key != source:
            continue
        winner = next(player for player in players if seen[player][0])
        score = (seen[players[0]][1], seen[players[1]][1])
        ahead = score[players.index(winner)] > score[1 - players.index(winner)]
        return key, winner, score if ahead else None
    return None
