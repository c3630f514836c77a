"""What Siberian Ten keeps beside the match state (``MatchState.extra``): the handicap left, the
shoot-out once it runs, the last pocketer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Shootout:
    """The shoot-out (ST-20) and "Игра" (ST-21)."""

    first: int
    shooting: int
    round: int = 1
    misses: int = 0
    points: tuple[int | None, int | None] = (None, None)
    rounds: tuple[tuple[int, int], ...] = ()
    igra: bool = False
    igra_by: int | None = None
    igra_allowed: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "first": self.first,
            "shooting": self.shooting,
            "attempt": self.misses + 1,
            "points": list(self.points),
            "rounds": [list(r) for r in self.rounds],
            "igra": self.igra,
            "igra_by": self.igra_by,
            "igra_allowed": self.igra_allowed,
        }



@dataclass(frozen=True, slots=True)
class SiberianExtra:
    #: Balls the giver still pockets for the receiver (ST-19).
    handicap_left: int = 0
    shootout: Shootout | None = None
    #: The player who last pocketed a ball that stayed down: the shoot-out's first (ST-20).
    last_pocketer: int | None = None
    #: The player whose miss or foul was called on the last shot (ST-12: the other then
    #: plays from hand after the opponent's miss or foul), None when none was.
    fouled: int | None = None
