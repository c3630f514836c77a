"""A tournament: its draw, the results the tables sent and which match is on which table.

Immutable: every change returns a new ``Tournament`` (a store keeps its results and
assignments as rows and rebuilds it). A result is recorded for a match's current players; a
correction re-flows the bracket and names the later matches it changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from tournament.errors import BadAssignment, BadResult
from tournament.handicap import Handicaps
from tournament.progress import Progress, Status, progress
from tournament.records import Draw, Handicap, MatchId, PlayerId, Races, Result

#: A table's id at the venue (``table-3``).
TableId = str


@dataclass(frozen=True, slots=True)
class Pairing:
    """A ready match as a table's console offers it: its players, race, handicap and table."""

    match: MatchId
    players: tuple[PlayerId, PlayerId]
    race: int
    handicap: Handicap | None
    table: TableId | None


@dataclass(frozen=True, slots=True)
class Change:
    """A recorded result's consequence: the tournament after it, and the later matches whose
    known players, counted result or table it changed (none for a first result: it only fills
    seats not known yet)."""

    tournament: Tournament
    changed: tuple[MatchId, ...]


@dataclass(frozen=True, slots=True)
class Tournament:
    draw: Draw
    races: Races = Races()
    handicaps: Handicaps = Handicaps()
    results: Mapping[MatchId, Result] = field(default_factory=dict)
    tables: Mapping[MatchId, TableId] = field(default_factory=dict)

    def progress(self) -> Progress:
        return progress(self.draw, self.results)

    def pairing(self, match: MatchId, state: Progress | None = None) -> Pairing:
        """Returns the ready match ``match`` as a pairing; raises BadResult if it is not ready."""
        state = state or self.progress()
        players = state.players(match)
        if state.status[match] is not Status.READY or players is None:
            raise BadResult(f"match {match} is not ready: its players are not both known yet")
        return Pairing(match, players, self.races.race(self.draw.match(match).round),
                       self.handicaps.pairing(*players), self.tables.get(match))

    def ready(self) -> list[Pairing]:
        """Returns every ready match, in draw order, with its table if it has one."""
        state = self.progress()
        return [self.pairing(m, state) for m in state.ready()]

    def record(self, match: MatchId, winner: PlayerId, score: tuple[int, int] | None = None,
               walkover: bool = False) -> Change:
        """Returns the tournament with ``winner`` winning ``match`` (ready, or played: a
        correction) by ``score`` (slot order), and the later matches that changed. Raises
        BadResult for a match not ready or played, a winner not in it, or a score he lost."""
        before = self.progress()
        if match not in before.status:
            raise BadResult(f"there is no match {match} in this tournament")
        if before.status[match] not in (Status.READY, Status.PLAYED):
            raise BadResult(f"match {match} has no two players to take a result from")
        players = before.players(match)
        assert players is not None
        if winner not in players:
            raise BadResult(f"{winner} does not play match {match}")
        if score is not None and score[players.index(winner)] <= score[1 - players.index(winner)]:
            raise BadResult(f"the score {score[0]}:{score[1]} does not make {winner} the winner")
        result = Result(match, players, winner, None if walkover else score, walkover)
        after = replace(self, results={**self.results, match: result},
                        tables={m: t for m, t in self.tables.items() if m != match})
        return after.settled(before, match)

    def walkover(self, match: MatchId, winner: PlayerId) -> Change:
        """Returns the tournament with ``winner`` through ``match`` unplayed (his opponent
        loses it); raises BadResult as ``record``."""
        return self.record(match, winner, walkover=True)

    def settled(self, before: Progress, match: MatchId) -> Change:
        """Returns the change from ``before``: tables kept only for matches still ready, and
        every other match with a known seat now another, or whose counted result or table
        differ."""
        state = self.progress()
        tables = {m: t for m, t in self.tables.items() if state.status[m] is Status.READY}
        changed = tuple(m.id for m in self.draw.matches if m.id != match and (
            any(was is not None and was != now
                for was, now in zip(before.seats[m.id], state.seats[m.id], strict=True))
            or before.counted.get(m.id) != state.counted.get(m.id)
            or tables.get(m.id) != self.tables.get(m.id)))
        return Change(replace(self, tables=tables), changed)

    def assign(self, match: MatchId, table: TableId) -> Tournament:
        """Returns the tournament with ready ``match`` on ``table`` (moved there if it was on
        another). Raises BadAssignment if the table has another match or one of the players is
        on another table, BadResult if the match is not ready."""
        pairing = self.pairing(match)
        others = {m: t for m, t in self.tables.items() if m != match}
        if table in others.values():
            raise BadAssignment(f"table {table} already has a match; finish or move it first")
        state = self.progress()
        for other in others:
            if set(pairing.players) & set(state.players(other) or ()):
                raise BadAssignment(f"a player of match {match} is on table {others[other]}")
        return replace(self, tables={**others, match: table})

    def unassign(self, match: MatchId) -> Tournament:
        """Returns the tournament with ``match`` on no table."""
        return replace(self, tables={m: t for m, t in self.tables.items() if m != match})

    def fill(self, free: Sequence[TableId]) -> Tournament:
        """Returns the tournament with ready matches (draw order) put on the ``free`` tables
        that have none, each table and each player on one match at most."""
        current = self
        for pairing in self.ready():
            taken = set(current.tables.values())
            table = next((t for t in free if t not in taken), None)
            if table is None:
                break
            if pairing.table is None:
                try:
                    current = current.assign(pairing.match, table)
                except BadAssignment:
                    continue  # a player of it is on another table: it waits
        return current

    def on_table(self, table: TableId) -> Pairing | None:
        """Returns the match on ``table``, if any."""
        for match, where in self.tables.items():
            if where == table:
                return self.pairing(match)
        return None
