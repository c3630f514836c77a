"""Ten-ball's cushion rules over one shot: a rail after the contact (TB-11) and four balls to
a cushion on the break (TB-5). Plain functions: each returns its answer, or None while a
question it asked is open."""

from __future__ import annotations

from rules.decisions import Decision, Noted
from rules.facts import UNKNOWN
from rules.game import Asker, Shot, cushions_touched
from rules.games.ten_ball.options import options_of
from rules.state import MatchState, Topic


def rail_after_contact(state: MatchState, shot: Shot, ask: Asker,
                       decisions: list[Decision]) -> bool | None:
    """TB-11: returns whether a ball reached a cushion after the first contact, None while
    asking. Hits the sensors presumed after the contact (no click sensor) are noted; with
    no reading, the ``cushions_unknown`` option presumes (noted) or asks."""
    record = shot.record
    cushions = cushions_touched(record)
    if cushions is UNKNOWN:
        if options_of(state).cushions_unknown == "legal":
            decisions.append(Noted("rail_presumed"))
            return True
        return ask.confirm(shot.shooter, Topic.RAIL_AFTER_CONTACT)
    if cushions and record.cushion_count is UNKNOWN and record.cushions_presumed:
        decisions.append(Noted("cushions_presumed_after_contact"))
    return cushions > 0


def four_balls_to_a_cushion(state: MatchState, shot: Shot, ask: Asker,
                            decisions: list[Decision]) -> bool | None:
    """TB-5: returns whether at least four object balls reached a cushion on a break that
    pocketed nothing, None while asking. Fewer than four cushion hits cannot be four
    balls; four or more are presumed to be (noted with the number of hits: the sensors
    cannot tell balls apart).
    Where the hits are not known (no reading, or a sensor out of order may have missed
    some), the ``cushions_unknown`` option presumes (noted ``unknown``) or asks. A count of
    balls a referee declared stands over all of it."""
    record = shot.record
    if record.balls_to_cushion is not UNKNOWN:  # a referee counted the balls
        return record.balls_to_cushion >= 4
    hits = record.cushions
    if hits is not UNKNOWN and (len(hits) >= 4 or not record.deaf_rails):
        if len(hits) < 4:
            return False
        decisions.append(Noted("four_balls_presumed", str(len(hits))))
        return True
    if options_of(state).cushions_unknown == "legal":
        decisions.append(Noted("four_balls_presumed", "unknown"))
        return True
    return ask.confirm(shot.shooter, Topic.FOUR_BALLS_TO_CUSHIONS)
