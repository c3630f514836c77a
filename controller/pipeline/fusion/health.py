"""Fusion's side of sensor health: what a channel's verdict does to the parts that read it.

Sensor health (``hardware.health``) is the one judge of a channel; ``OutOfOrder`` applies its
verdicts: the sensors to trust (``Fitted``), a cushion sensor muted, a beam's drops taken
back. ``Fusion.set_health`` rules again the shots those drops went to.
"""

from __future__ import annotations

from controller.pipeline.fusion.beams import Beams
from controller.pipeline.fusion.cushions import Cushions
from controller.pipeline.fusion.fitted import Fitted, usable_in
from controller.pipeline.fusion.shots import Counted, Drop, Shot, ShotTracker
from hardware.health import Health
from rules import Pocket, Rail

INF = float("inf")


class OutOfOrder:
    """Applies sensor health's verdicts to ``fitted``, ``beams``, ``cushions`` and the shot in
    play of ``shots``; keeps the drops each beam counted in the last ``retract_s`` (taken back
    if the beam turns out to be out of order rather than crossed by balls)."""

    def __init__(self, fitted: Fitted, beams: Beams, cushions: Cushions, shots: ShotTracker,
                 retract_s: float) -> None:
        self.fitted = fitted
        self.beams = beams
        self.cushions = cushions
        self.shots = shots
        self.counted = Counted(retract_s)

    def counted_drop(self, pocket: Pocket, shot: Shot, drop: Drop) -> None:
        """``pocket``'s beam counted ``drop``, given to ``shot``."""
        self.counted.note(pocket, shot, drop)

    def judged(self, channel: str, state: Health, now: float) -> tuple[bool, list[Shot]]:
        """Takes ``channel``'s verdict at ``now``: a beam or cushion sensor in any state but
        ``ok`` counts nothing. What it counted before stands, except: a beam found ``stuck``
        while blocked was never crossed by a ball (the drop its block counted is taken back),
        and one found ``chattering`` made up its latest "balls" (the drops of the last
        ``retract_s``). Returns whether a filter's timers changed, and the shots whose drops
        were taken back."""
        part = self.fitted.judge(channel, state)
        if state is Health.GAP and self.shots.cur is not None:  # a gap in the shot in play
            self.shots.cur.lost(now, channel)
        if isinstance(part, Rail):  # a cushion sensor out of order: its hits may be missing
            if not usable_in(state):
                self.cushions.mute(part)
            return True, []
        if isinstance(part, Pocket) and not usable_in(state):
            since = retract_since(state, now, self.beams.blocked_since(part), self.counted.keep_s)
            changed = self.counted.take_back(part, since)
            self.beams.reset(part)
            return True, changed
        return False, []


def retract_since(state: Health, now: float, blocked: float | None, keep_s: float) -> float:
    """Returns from when the drops of a beam judged ``state`` at ``now`` are taken back
    (``blocked``: since when it is blocked, None if it is not; ``keep_s``: how far back a
    chattering beam's drops go; inf: none are)."""
    if state is Health.CHATTERING:  # its latest "balls" were none
        return now - keep_s
    if state is Health.STUCK and blocked is not None:  # the block was no ball
        return blocked
    return INF  # silent, or its board went away: what it reported before stands
