"""The ball return: the cue-ball detector's and the identity reader's reports matched to drops.

A report is matched to the oldest drop (in the reported pocket, if any) that fell between
``identity_min_s`` and ``identity_max_s`` earlier. The cue-ball detector names no pocket: a
report of it that fits more than one drop is a guess, marked ``presumed`` (the referee is
told, and asked about the other drops with the cue ball among the answers); and
where the identity reader then names the ball of the drop it took, that ball takes the drop
and the cue ball another drop of its window (the pockets' paths to the return can swap two
balls' order). A sensor that reports is fitted, configured or not.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.pipeline.fusion.shots import Shot
from rules import Pocket


class BallReturn:
    """Matches ball-return reports to drops (see the module docstring)."""

    def __init__(self, min_s: float, max_s: float, *, cue_detector: bool,
                 identity_reader: bool) -> None:
        self.min_s, self.max_s = min_s, max_s
        #: What the ball return has: as configured, or as soon as such a sensor reports.
        self.cue_detector = cue_detector
        self.identity_reader = identity_reader

    @property
    def fitted(self) -> bool:
        """Returns whether drops wait for a report (some ball-return sensor is fitted)."""
        return self.cue_detector or self.identity_reader

    def due(self, shot: Shot) -> float | None:
        """Returns when the last of ``shot``'s drops still waiting for a report gives up (None:
        none waits)."""
        if not self.fitted:
            return None
        waiting = [d.t for d in shot.drops if not d.matched and d.pocket is not None]
        return max(waiting) + self.max_s if waiting else None

    def hold(self, shot: Shot, due: float) -> float:
        """Returns when ``shot``, quiet from ``due`` on, is ruled: then, or once no drop of it
        waits for a report."""
        waiting = self.due(shot)
        return due if waiting is None else max(due, waiting)

    def match(self, t: float, ball: int | str, pocket: Pocket | None,
              shots: Iterable[Shot | None]) -> Shot | None:
        """A ball passed the return at ``t``: gives it to the drop it came from, of one of
        ``shots``; returns the shot so changed, None when no drop fits (the beams missed one)."""
        lo, hi = t - self.max_s, t - self.min_s
        present = [s for s in shots if s is not None]
        fits = [(shot, drop) for shot in present for drop in shot.drops
                if (not drop.matched and lo <= drop.t <= hi
                    and (pocket is None or drop.pocket is None or drop.pocket == pocket))]
        if fits:
            shot, drop = fits[0]
            drop.matched = True
            if drop.ball is None:
                drop.ball = ball
                drop.guessed_at = t if pocket is None else None
                drop.presumed = pocket is None and len(fits) > 1
            return shot
        if pocket is not None:
            return self._unguess(t, ball, pocket, present)
        return None

    def _unguess(self, t: float, ball: int | str, pocket: Pocket, shots: list[Shot]) -> Shot | None:
        """A report naming ``pocket`` finds that pocket's drop taken by an earlier report naming
        no pocket (the cue-ball detector, matched by the order balls reach the return, which
        the pockets' distances to it can swap): the named ball takes the drop, and the earlier
        report's ball moves to a drop of its window still unmatched. Returns the shot changed."""
        lo, hi = t - self.max_s, t - self.min_s
        for shot in shots:
            for drop in shot.drops:
                g = drop.guessed_at
                if g is None or drop.pocket != pocket or not lo <= drop.t <= hi:
                    continue
                other = next((d for d in shot.drops if not d.matched and d.ball is None
                              and g - self.max_s <= d.t <= g - self.min_s), None)
                if other is None:
                    continue
                other.matched, other.ball, other.guessed_at = True, drop.ball, g
                drop.ball, drop.guessed_at, drop.presumed = ball, None, False
                return shot
        return None
