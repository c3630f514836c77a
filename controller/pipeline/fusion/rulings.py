"""When a shot's record goes to the rules: its first ruling, and each ruling again.

A shot is ruled when it has been quiet long enough (``Fusion`` keeps that clock) or the next
one opens. After that, whatever changes it (a late drop, hit, click or identity, a beam found
out of order) rules it again: at once, or, while a drop of it waits for a fitted ball-return
sensor (a ball that fell after the ruling), once the report comes or ``identity_max_s`` after
the drop, so that the ruling asks no "which ball?" the ball return was about to answer.
"""

from __future__ import annotations

from controller.pipeline.fusion.actions import Action, AmendShot, RuleShot
from controller.pipeline.fusion.ballreturn import BallReturn
from controller.pipeline.fusion.fitted import Fitted
from controller.pipeline.fusion.shots import Shot, ShotTracker
from rules import ShotRecord

INF = float("inf")


class Rulings:
    """Makes the ``RuleShot`` and ``AmendShot`` of the shots ``shots`` tracks (see the module
    docstring): their records as ``fitted`` sensors and the ``ball_return`` saw them."""

    def __init__(self, shots: ShotTracker, ball_return: BallReturn, fitted: Fitted,
                 without_click: str) -> None:
        self.shots = shots
        self.ball_return = ball_return
        self.fitted = fitted
        self.without_click = without_click
        #: The last shot changed while a drop of it waited for the ball return: it is ruled
        #: again when the report comes or at ``due``, whichever is first.
        self.waiting: Shot | None = None
        self.due = INF

    def record(self, shot: Shot) -> ShotRecord:
        """Returns ``shot``'s record as the rules are given it."""
        return self.fitted.record(shot, self.without_click, self.ball_return.cue_detector)

    def rule(self, t: float) -> RuleShot:
        """Returns the open shot's first ruling, at ``t`` (the tracker marks it ruled)."""
        return RuleShot(t, self.record(self.shots.rule()))

    def amend(self, t: float, shot: Shot) -> AmendShot:
        """Returns ``shot``'s ruling again, at ``t``."""
        return AmendShot(t, self.record(shot))

    def changed(self, shot: Shot, t: float, out: list[Action]) -> float:
        """``shot`` changed at ``t``: if it is the last ruled shot, adds its ruling again to
        ``out`` now, or waits for the ball return. Returns when the clock must wake for it
        (inf: no need)."""
        if shot is not self.shots.last:
            return INF
        waiting = self.ball_return.due(shot)
        if waiting is not None and waiting > t:
            self.waiting, self.due = shot, waiting
            return waiting
        if self.waiting is shot:
            self.waiting, self.due = None, INF
        out.append(self.amend(t, shot))
        return INF

    def flush(self, t: float, out: list[Action]) -> None:
        """Adds the last shot's ruling again to ``out`` now if it waits for the ball return."""
        late, self.waiting, self.due = self.waiting, None, INF
        if late is not None and late is self.shots.last:
            out.append(self.amend(t, late))

    def forget(self) -> None:
        """Nothing waits any more (the shots were forgotten)."""
        self.waiting, self.due = None, INF
