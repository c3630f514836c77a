"""When fusion next has work for the clock alone (``Fusion.next_deadline``).

The earliest of: a beam's or a cushion sensor's timer (an edge to confirm, a burst to close),
a burst ready now, the open shot's ruling (quiet for ``quiet_s`` after its last activity, and
no drop of it still waiting for a fitted ball-return sensor) and the last shot's ruling again
once the ball return had its time (``Rulings.due``). Between recomputations it only moves
earlier (``soon``); ``Fusion.advance`` recomputes it (``reschedule``).
"""

from __future__ import annotations

from controller.pipeline.fusion.ballreturn import BallReturn
from controller.pipeline.fusion.beams import Beams
from controller.pipeline.fusion.cushions import Cushions
from controller.pipeline.fusion.rulings import Rulings
from controller.pipeline.fusion.shots import Shot, ShotTracker

INF = float("inf")


class Deadline:
    """The next time fusion's parts (``beams``, ``cushions``, the ``shots`` and their
    ``rulings``, the ``ball_return``) have work, ``at`` (inf: none until more input)."""

    def __init__(self, beams: Beams, cushions: Cushions, shots: ShotTracker,
                 ball_return: BallReturn, rulings: Rulings, quiet_s: float) -> None:
        self.beams = beams
        self.cushions = cushions
        self.shots = shots
        self.ball_return = ball_return
        self.rulings = rulings
        self.quiet_s = quiet_s
        self.at = INF
        self._due_for: Shot | None = None  # the shot whose ruling time is in ``at``

    def due(self, shot: Shot) -> float:
        """Returns when ``shot`` is ruled: quiet long enough, no drop waiting for the ball return."""
        return self.ball_return.hold(shot, shot.last_activity + self.quiet_s)

    def soon(self, t: float) -> None:
        """Brings the deadline forward to ``t`` (never later: ``reschedule`` recomputes)."""
        if t < self.at:
            self.at = t

    def active(self, now: float) -> None:
        """A sensor event was taken at ``now``: the open shot's ruling and a ready burst count."""
        cur = self.shots.cur
        if cur is not None and cur.active and cur is not self._due_for:
            # a shot's due time only moves later as activity goes on: the first one is enough
            self.soon(self.due(cur))
            self._due_for = cur
        if self.cushions.ready:
            self.soon(now)

    def matched(self) -> None:
        """A drop was matched to the ball return: its shot may be ruled sooner."""
        self._due_for = None

    def reschedule(self, now: float) -> None:
        """Computes the deadline from everything that waits for the clock (fusion's time ``now``)."""
        self._due_for = None
        nxt = min(self.beams.next_due(), self.cushions.next_due())
        if self.cushions.ready:
            nxt = min(nxt, now)
        cur = self.shots.cur
        if cur is not None and cur.active:
            nxt = min(nxt, self.due(cur))
        self.at = min(nxt, self.rulings.due)
