"""Where a draw stands after its results: who plays each match, which are ready, who won, who
is out. Derived, never stored: a corrected result changes what follows from it."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from tournament import standings
from tournament.records import (
    Bye,
    Draw,
    Entrant,
    Format,
    GroupPlace,
    LoserOf,
    Match,
    MatchId,
    PlayerId,
    Result,
    Source,
    WinnerOf,
)


class Vacant(enum.Enum):
    """A seat no one will take: a bye, or the loser of a match decided without play."""

    BYE = "bye"


#: A match's seat: a player, no one (``Vacant.BYE``), or ``None`` while not known yet.
Seat = PlayerId | Vacant | None


class Status(enum.StrEnum):
    WAITING = "waiting"  # a seat is not known yet
    READY = "ready"  # both players known, no result counts
    PLAYED = "played"  # a result counts (a walkover included)
    UNPLAYED = "unplayed"  # decided without play: a bye, or a grand-final reset not needed


@dataclass(frozen=True, slots=True)
class Progress:
    """The draw's state: each match's seats, status, counted result, winner and loser."""

    draw: Draw
    seats: Mapping[MatchId, tuple[Seat, Seat]]
    status: Mapping[MatchId, Status]
    counted: Mapping[MatchId, Result]
    winners: Mapping[MatchId, Seat]
    losers: Mapping[MatchId, Seat]

    def ready(self) -> list[MatchId]:
        """Returns the matches ready to be played, in draw order."""
        return [m.id for m in self.draw.matches if self.status[m.id] is Status.READY]

    def players(self, match: MatchId) -> tuple[PlayerId, PlayerId] | None:
        """Returns the match's two players, or None unless both are players."""
        a, b = self.seats[match]
        return (a, b) if isinstance(a, str) and isinstance(b, str) else None

    def losses(self, player: PlayerId) -> int:
        """Returns the player's counted losses."""
        return sum(r.loser == player for r in self.counted.values())

    @property
    def finished(self) -> bool:
        return all(s in (Status.PLAYED, Status.UNPLAYED) for s in self.status.values())

    @property
    def champion(self) -> PlayerId | None:
        """Returns the winner of the last match once everything is decided, else None."""
        if not self.finished:
            return None
        last = self.winners[self.draw.matches[-1].id]
        return last if isinstance(last, str) else None

    def alive(self, player: PlayerId) -> bool:
        """Returns whether the player may still play: not the champion, fewer losses than the
        format allows and, in groups, not left out of the playoff."""
        if self.champion == player:
            return False
        if self.draw.format is not Format.GROUPS:
            return self.losses(player) < (2 if self.draw.format is Format.DOUBLE else 1)
        playoff = [m.id for m in self.draw.matches if m.group is None]
        groups_over = all(self.status[m.id] is Status.PLAYED
                          for m in self.draw.matches if m.group is not None)
        left_out = groups_over and not any(player in self.seats[m] for m in playoff)
        return not left_out and not any(self.counted[m].loser == player
                                        for m in playoff if m in self.counted)


def progress(draw: Draw, results: Mapping[MatchId, Result]) -> Progress:
    """Returns where ``draw`` stands after ``results``. A result counts only if it names the
    match's current players (a corrected earlier result may have changed them)."""
    seats: dict[MatchId, tuple[Seat, Seat]] = {}
    status: dict[MatchId, Status] = {}
    counted: dict[MatchId, Result] = {}
    winners: dict[MatchId, Seat] = {}
    losers: dict[MatchId, Seat] = {}
    state = Progress(draw, seats, status, counted, winners, losers)
    for match in draw.matches:
        a, b = seat(state, match.a), seat(state, match.b)
        seats[match.id] = (a, b)
        decided = decide(state, match, a, b, results.get(match.id))
        status[match.id], winners[match.id], losers[match.id] = decided
        result = results.get(match.id)
        if decided[0] is Status.PLAYED and result is not None:
            counted[match.id] = result
    return state


def decide(state: Progress, match: Match, a: Seat, b: Seat,
           result: Result | None) -> tuple[Status, Seat, Seat]:
    """Returns the match's status, winner and loser from its seats and its result."""
    if a is None or b is None:
        return Status.WAITING, None, None
    if match.reset_of is not None and state.winners[match.reset_of] == state.seats[match.reset_of][0]:
        return Status.UNPLAYED, a, Vacant.BYE  # the winners' bracket champion won the first
    if isinstance(a, Vacant) or isinstance(b, Vacant):
        return Status.UNPLAYED, (b if isinstance(a, Vacant) else a), Vacant.BYE
    if result is None or result.players != (a, b):
        return Status.READY, None, None
    return Status.PLAYED, result.winner, result.loser


def seat(state: Progress, source: Source) -> Seat:
    """Returns who takes a slot fed by ``source``, as far as it is known."""
    match source:
        case Entrant(player):
            return player
        case Bye():
            return Vacant.BYE
        case WinnerOf(match):
            return state.winners[match]
        case LoserOf(match):
            return state.losers[match]
        case GroupPlace(group, place):
            return group_place(state, group, place)
    raise AssertionError(source)


def group_place(state: Progress, group: str, place: int) -> Seat:
    """Returns the player placed ``place`` in ``group``, or None while it has matches left."""
    ids = [m.id for m in state.draw.matches if m.group == group]
    if any(state.status[i] is not Status.PLAYED for i in ids):
        return None
    members = dict(state.draw.groups)[group]
    lines = standings.table(members, [state.counted[i] for i in ids])
    return lines[place - 1].player if place <= len(lines) else Vacant.BYE
