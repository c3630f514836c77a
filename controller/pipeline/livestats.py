"""The match's live statistics, as the state carries them (``stats``, interfaces §3): worked
out afresh from the match's shots as ruled now, so an undo, a redo or a shot ruled again
leaves them as if the match had been played that way, and a table rebuilt from its journal
publishes the same figures.

- a *run* is what one player scores in one visit to the table, within one rack: balls
  credited (Siberian Ten), points credited (Point pyramid), balls pocketed that stay down
  (Ten-ball); a shot the shooter fouls adds nothing and ends the visit (shooting again
  after it, handed back, is a new visit);
- ``run`` is the visit of the player to shoot now, ``best`` the longest of the match (the
  first to reach it on a tie);
- a *break-and-run* is a rack won by its breaker with no other player shooting in it;
- a rack's time runs from the end of the one before it (the match's start for the first)
  to the shot that ended it, on the table's clock;
- a game set up again (``GameRestarted``: a stalemate, a re-break) begins anew for runs and
  break-and-runs, while its time runs on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rules.decisions import (
    BallCredited,
    BallStaysDown,
    Decision,
    FoulCalled,
    GameDrawn,
    GameRestarted,
    GameWon,
)


@dataclass(frozen=True, slots=True)
class RuledShot:
    """One shot of the match: who shot it, its decisions as ruled now, and the table's time
    when it was played."""

    shooter: int
    decisions: Sequence[Decision]
    t: float


@dataclass(frozen=True, slots=True)
class Run:
    """A visit's run: the player and what the visit scored (balls, or pyramid points)."""

    player: int
    size: int


@dataclass(slots=True)
class LiveStats:
    """The figures of one match (see the module docstring); ``rack_t0`` is None once the
    match is over."""

    run: Run | None
    best: Run | None
    break_runs: list[int]
    rack_t0: float | None
    rack_seconds: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Returns the state's ``stats``."""
        return {
            "run": None if self.run is None else {"player": self.run.player, "size": self.run.size},
            "best": None if self.best is None else {"player": self.best.player, "size": self.best.size},
            "break_runs": self.break_runs,
            "rack_t0": self.rack_t0,
            "racks_s": self.rack_seconds,
        }


def fouled(shot: RuledShot) -> bool:
    """Returns whether the shooter fouled on ``shot`` (the visit ends with it)."""
    return any(isinstance(d, FoulCalled) and d.player == shot.shooter for d in shot.decisions)


def scored(shot: RuledShot) -> int:
    """Returns what ``shot`` adds to its shooter's run, unless the shooter fouled on it:
    the points of the balls credited to the shooter and the balls that stay down."""
    credited = sum(d.points for d in shot.decisions
                   if isinstance(d, BallCredited) and d.player == shot.shooter)
    return credited + sum(1 for d in shot.decisions if isinstance(d, BallStaysDown))


def live_stats(shots: Sequence[RuledShot], *, players: int, t0: float,
               to_shoot: int | None, over: bool) -> LiveStats:
    """Returns the figures of a match of ``players`` that began at ``t0`` and has had
    ``shots``; ``to_shoot`` is who shoots next (None: nobody), ``over`` whether it is over."""
    stats = LiveStats(None, None, [0] * players, None)
    rack_t0 = t0
    visit: Run | None = None  # the last visit of the rack in play
    clean: int | None = None  # the rack's breaker while nobody else has shot in it
    fresh = True  # the next shot opens a rack
    for shot in shots:
        if fresh:
            clean, fresh = shot.shooter, False
        elif shot.shooter != clean:
            clean = None
        foul = fouled(shot)
        size = 0 if foul else scored(shot)
        if visit is None or visit.player != shot.shooter:
            visit = Run(shot.shooter, size)
        else:
            visit = Run(shot.shooter, visit.size + size)
        if visit.size > 0 and (stats.best is None or visit.size > stats.best.size):
            stats.best = visit
        if foul:
            visit = None
        for d in shot.decisions:
            if isinstance(d, GameWon | GameDrawn):
                stats.rack_seconds.append(round(shot.t - rack_t0, 3))
                rack_t0 = shot.t
                if isinstance(d, GameWon) and d.player == clean:
                    stats.break_runs[d.player] += 1
                visit, fresh = None, True
            elif isinstance(d, GameRestarted):  # racked again: a new break, new visits
                visit, fresh = None, True
    if not over:
        stats.rack_t0 = rack_t0
    if not over and to_shoot is not None:
        stats.run = visit if visit is not None and visit.player == to_shoot else Run(to_shoot, 0)
    return stats
