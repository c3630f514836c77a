"""What fusion does with sensor health's verdicts on its channels.

``judged`` is ``Fusion.set_health``, kept beside it so the class stays one screenful (issue
26): it reaches into the fusion it is given as the method did (its parts, the drops each beam
counted, the corrections it makes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.pipeline.fusion.fitted import usable_in
from hardware.health import Health
from rules import Pocket, Rail

if TYPE_CHECKING:
    from controller.pipeline.fusion import Action, Fusion

INF = float("inf")


def judged(fusion: Fusion, channel: str, state: Health, t: float | None = None) -> list[Action]:
    """Tells fusion a channel's health, as sensor health judged it: a beam or cushion
    sensor in any state but ``ok`` counts nothing. What it counted before stands, except:
    a beam found ``stuck`` while blocked was never crossed by a ball (the drop its block
    counted is taken back), and one found ``chattering`` made up its latest "balls" (the
    drops of the last RETRACT_S are taken back); each shot they went to is corrected.
    Returns the corrections."""
    out: list[Action] = []
    part = fusion.fitted.judge(channel, state)
    if state is Health.GAP and fusion.shots.cur is not None:  # a gap in the shot in play
        fusion.shots.cur.gaps.append((fusion.now if t is None else t, channel))
    if isinstance(part, Rail):  # a cushion sensor out of order: its hits may be missing
        if not usable_in(state):
            fusion.cushions.mute(part)
        fusion._reschedule()
    elif isinstance(part, Pocket) and not usable_in(state):
        now = fusion.now if t is None else t
        since = retract_since(state, now, fusion.beams.blocked_since(part), fusion._counted.keep_s)
        for shot in fusion._counted.take_back(part, since):
            fusion._changed(shot, now, out)
        fusion.beams.reset(part)
        fusion._reschedule()
    return out


def retract_since(state: Health, now: float, blocked: float | None, keep_s: float) -> float:
    """Returns from when the drops of a beam judged ``state`` at ``now`` are taken back
    (``blocked``: since when it is blocked, None if it is not; ``keep_s``: how far back a
    chattering beam's drops go; inf: none are)."""
    if state is Health.CHATTERING:  # its latest "balls" were none
        return now - keep_s
    if state is Health.STUCK and blocked is not None:  # the block was no ball
        return blocked
    return INF  # silent, or its board went away: what it reported before stands
