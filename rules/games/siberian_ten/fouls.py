"""Siberian Ten's predicates over one shot: what was called, whether the cue ball missed, the
fouls the facts show (ST-15) and the two-cushion rule (ST-14). Plain functions: each returns
its answer, or None while a question it asked is open."""

from __future__ import annotations

from rules.decisions import Decision, InHand, Noted
from rules.facts import UNKNOWN, Call, Foul
from rules.game import Asker, Shot, cushions_touched
from rules.games.siberian_ten.options import AFTER_OPPONENTS_FOUL, options_of
from rules.state import MatchState, Status, Topic

#: Fouls whose pocketed balls do not count and are spotted (ST-17).
VOIDING = frozenset({Foul.TOUCHED_BALL, Foul.CUE_OFF_TABLE, Foul.FEET_OFF_FLOOR})


def calls_of(state: MatchState, shot: Shot, ask: Asker) -> tuple[Call, ...] | None:
    """Returns the shot's calls, None while asking. With no call recorded and a ball down,
    the ``missing_call`` option settles it."""
    if not options_of(state).called or shot.calls or not shot.pocketed or shot.is_break:
        return tuple(dict.fromkeys(shot.calls))
    ball, pocket = shot.pocketed[0]
    how = options_of(state).missing_call
    if pocket is None or how == "no_count":
        return ()
    if how == "ask":
        was = ask.confirm(shot.shooter, Topic.WAS_CALLED, ball=ball, pocket=pocket)
        if was is None:
            return None
        if not was:
            return ()
    return (Call(ball, pocket),)


def missed(state: MatchState, shot: Shot, ask: Asker, decisions: list[Decision]) -> bool | None:
    """Returns whether the cue ball touched no ball, None while asking. A miss is sensed
    or declared; with neither and no object ball down, the ``presume_contact`` option
    presumes contact (noted) or asks."""
    record = shot.record
    if record.first_contact is None or Foul.MISS in record.fouls:
        return True
    if record.first_contact is not UNKNOWN or shot.objects_fell:
        return False
    if record.contact_unheard:  # the click sensor heard nothing: evidence of a miss
        decisions.append(Noted("miss_unheard"))
        return True
    if options_of(state).presume_contact:
        decisions.append(Noted("contact_presumed"))
        return False
    touched = ask.confirm(shot.shooter, Topic.CONTACT)
    return None if touched is None else not touched


def kitchen_rule_applies(state: MatchState, shot: Shot) -> bool:
    """ST-12: returns whether a direct hit on a ball in the kitchen is a foul on this shot:
    a shot from hand in the kitchen (not the break) after the opponent's miss or foul, or
    (option ``kitchen_hit_from_hand`` 'any_from_hand') any shot from hand in the kitchen."""
    if state.status is Status.BREAK or state.ball_in_hand is not InHand.KITCHEN:
        return False
    if options_of(state).kitchen_hit_from_hand != AFTER_OPPONENTS_FOUL:
        return True
    fouled = state.extra.fouled
    return fouled is not None and fouled != shot.shooter


def applicable(state: MatchState, shot: Shot, fouls: list[Foul],
               decisions: list[Decision]) -> list[Foul]:
    """Returns ``fouls`` without a declared direct hit in the kitchen where ST-12 does not
    apply (``kitchen_rule_applies``), noted ``foul_not_applicable``."""
    if Foul.DIRECT_HIT_IN_KITCHEN not in fouls or kitchen_rule_applies(state, shot):
        return fouls
    decisions.append(Noted("foul_not_applicable", str(Foul.DIRECT_HIT_IN_KITCHEN)))
    return [f for f in fouls if f is not Foul.DIRECT_HIT_IN_KITCHEN]


def facts_fouls(state: MatchState, shot: Shot, legal_pot: bool, miss: bool) -> list[Foul]:
    """ST-15: returns the declared fouls and those the facts show (not the two-cushion rule)."""
    record = shot.record
    fouls = list(dict.fromkeys(record.fouls))
    if miss and Foul.MISS not in fouls:
        fouls.append(Foul.MISS)
    if shot.balls_off_table and options_of(state).ball_off_table == "penalty":
        fouls.append(Foul.BALL_OFF_TABLE)  # the penalty list's reading (ST-15)
    # ST-11: the cue ball off the table is no foul after a legal pot (its decision); without
    # one it is a foul (penalty item д) unless the option reads the dedicated rule
    if (shot.cue_off_table and options_of(state).cue_off_table == "penalty"
            and (fouls or not legal_pot)):
        fouls.append(Foul.CUE_OFF_TABLE)
    return fouls


def two_cushions(state: MatchState, shot: Shot, ask: Asker, decisions: list[Decision],
                 reading: str) -> bool | None:
    """ST-14: returns whether the two-cushion rule was met as ``reading`` (a value of the
    ``two_cushions`` option) has it: by default, the balls touched two cushions after
    contact, the centre line counting as one. None while asking."""
    options = options_of(state)
    record = shot.record
    cushions = cushions_touched(record, before_too=reading == "before_or_after")
    if cushions is UNKNOWN:
        if options.cushions_unknown == "legal":
            decisions.append(Noted("two_cushions_presumed"))
            return True
        if reading == "cue_ball":
            return ask.confirm(shot.shooter, Topic.CUE_BALL_TWO_CUSHIONS)
        return ask.confirm(shot.shooter, Topic.TWO_CUSHIONS)
    # hits the sensors presumed after the contact (no click sensor) carry a legal ruling
    presumed = (record.cushion_count is UNKNOWN and record.cushions_presumed
                and reading != "before_or_after")
    if reading == "cue_ball":  # penalty item ж: the cue ball's own two cushions
        if cushions < 2:
            return False  # fewer cushions in all cannot be two by the cue ball
        if record.cushion_count is not UNKNOWN:
            return True  # the referee counted what the rule needs
        legal = ask.confirm(shot.shooter, Topic.CUE_BALL_TWO_CUSHIONS)
    elif cushions != 1:
        legal = cushions >= 2
    elif record.centre_line is not UNKNOWN:
        legal = record.centre_line
    elif options.centre_line_unknown == "ask":
        legal = ask.confirm(shot.shooter, Topic.CENTRE_LINE)
    else:
        decisions.append(Noted("centre_line_presumed", options.centre_line_unknown))
        legal = options.centre_line_unknown == "crossed"
    if legal and presumed:
        decisions.append(Noted("cushions_presumed_after_contact"))
    return legal
