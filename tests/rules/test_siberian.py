"""Siberian Ten, rule by rule (ST-n of docs/rules.md)."""

from __future__ import annotations

import dataclasses

import pytest

from rules import OBJECT, UNKNOWN, Foul, InHand, InvalidInput, Status
from rules.decisions import (
    BallCredited,
    BallSpotted,
    FoulCalled,
    GameRestarted,
    GameWon,
    Noted,
    OptionChosen,
    ShooterContinues,
    Spot,
    TurnPassed,
)
from rules.facts import Call, Pocket, Rail, ShotKind
from rules.games.siberian_ten import BulletRetaken, BulletScored, IgraDeclared, RoundTied, ShootoutStarted
from tests.rules.build import answer, new, play, shot

ALL = list(range(1, 11))
TWO = ("f", "lh")  # two different cushions: the two-cushion rule is met
ANN, BOB = 0, 1


def sib(**options: object):
    return new("siberian-ten", **options)


def after_break(**options: object):  # a legal break with nothing down: Bob to shoot
    ref = sib(**options)
    play(ref, first=1, cushions=TWO)
    assert ref.state.to_shoot == BOB
    return ref


def scored(a: int, b: int, **options: object):
    """Ann a balls (1…a), Bob b balls (the next b); Bob to shoot; a >= 1."""
    ref = sib(**options)
    play(ref, first=1, drops=[(i, "fl") for i in range(1, a + 1)])  # ST-4: all for Ann
    nxt = a + 1
    if b:  # ST-8: the called ball in another pocket, and the rest, count for Bob
        play(ref, call=(nxt, "fl"), first=nxt, drops=[(i, "fr") for i in range(nxt, nxt + b)],
             cushions=TWO)
    else:
        play(ref, call=(nxt, "fl"), first=nxt, cushions=TWO)
    assert [p.score for p in ref.state.players] == [a, b]
    return ref


def fouls_of(decisions):
    return [d.fouls for d in decisions if isinstance(d, FoulCalled)]


def credits(decisions):
    return [(d.player, d.ball) for d in decisions if isinstance(d, BallCredited)]


def kinds(ref):
    return [q["kind"] for q in ref.snapshot()["questions"]]


def accounted(ref) -> bool:
    """Every object ball is on the table or credited once: numbers where known, else
    ``OBJECT`` (then as many numbers on the table are balls that fell, ``unidentified``)."""
    state = ref.state
    numbers = [b for p in state.players for b in p.balls if isinstance(b, int)]
    objects = sum(b == OBJECT for p in state.players for b in p.balls)
    together = numbers + list(state.on_table)
    return (len(set(together)) == len(together) and set(together) <= set(ALL)
            and 0 <= state.unidentified < max(1, len(state.on_table))
            and len(ALL) - len(numbers) - state.balls_left == objects)


# ---------------------------------------------------------------- ST-1
def test_st_1_two_players_ten_object_balls():
    assert sib().snapshot()["on_table"] == ALL
    with pytest.raises(InvalidInput, match="2 players"):
        new("siberian-ten", players=("Ann", "Bob", "Cy"))


def test_st_1_two_balls_may_be_called_not_three():
    ref = after_break()
    ref.check_call((Call(1, Pocket.FOOT_LEFT), Call(2, Pocket.FOOT_RIGHT)))
    with pytest.raises(InvalidInput, match="2 called"):
        ref.check_call((Call(1, Pocket.FOOT_LEFT), Call(2, Pocket.FOOT_RIGHT),
                        Call(3, Pocket.SIDE_LEFT)))


# ---------------------------------------------------------------- ST-2
def test_st_2_rack_puts_ten_balls_up_and_the_breaker_in_the_kitchen():
    snap = sib(breaker=1).snapshot()
    assert snap["on_table"] == ALL and snap["status"] == "break"
    assert snap["to_shoot"] == BOB and snap["ball_in_hand"] == "kitchen"
    assert snap["shootout"] is None


# ---------------------------------------------------------------- ST-3
def test_st_3_six_balls_win_the_game():
    ref = sib()
    out = play(ref, first=1, drops=[(i, "fl") for i in range(1, 7)])
    assert GameWon(ANN, 1, "six_balls") in out
    assert ref.snapshot()["status"] == "match_over" and ref.state.winner == ANN


def test_st_3_five_balls_do_not():
    ref = sib()
    play(ref, first=1, drops=[(i, "fl") for i in range(1, 6)])
    assert ref.snapshot()["status"] == "in_play" and ref.state.winner is None


def test_st_3_breaks_alternate_by_default():
    ref = sib(race_to=3, breaker=1)
    play(ref, first=1, drops=[(i, "fl") for i in range(1, 7)])  # Bob wins game 1
    assert ref.snapshot()["status"] == "game_over" and ref.state.to_shoot == ANN
    play(ref, first=1, drops=[(i, "fl") for i in range(1, 7)])  # game 2: Ann breaks, wins
    assert [p.games for p in ref.state.players] == [1, 1]
    assert ref.state.to_shoot == BOB


def test_st_3_option_winner_breaks():
    ref = sib(race_to=3, breaker=0, break_order="winner")
    play(ref, first=1, drops=[(i, "fl") for i in range(1, 7)])
    assert ref.state.to_shoot == ANN


# ---------------------------------------------------------------- ST-4
def test_st_4_every_ball_on_the_break_counts_for_the_breaker_who_continues():
    ref = sib()
    out = play(ref, first=1, drops=[(4, "fl"), (9, "sr")])
    assert credits(out) == [(ANN, 4), (ANN, 9)]
    assert out[-1] == ShooterContinues(ANN, InHand.NONE)
    assert ref.state.on_table == (1, 2, 3, 5, 6, 7, 8, 10)


def test_st_4_cue_ball_on_the_break_counts_too():
    ref = sib()
    play(ref, first=1, drops=[(4, "fl"), ("cue", "hl")])
    (q,) = ref.snapshot()["questions"]
    assert q["kind"] == "pick_ball" and q["player"] == BOB and 4 not in q["choices"]
    answer(ref, 7)
    assert ref.state.players[ANN].balls == (4, 7)
    assert ref.state.to_shoot == ANN and ref.state.ball_in_hand is InHand.KITCHEN


def test_st_4_no_call_on_the_break():
    ref = sib()
    with pytest.raises(InvalidInput, match="no call on the break"):
        ref.check_call((Call(1, Pocket.FOOT_LEFT),))


# ---------------------------------------------------------------- ST-5
def test_st_5_break_with_nothing_down_and_one_cushion_is_illegal_without_penalty_ball():
    ref = sib()
    out = play(ref, first=1, cushions=("f",), centre=False)
    assert fouls_of(out) == [(Foul.TWO_CUSHION,)]
    (q,) = ref.snapshot()["questions"]
    assert q["kind"] == "option" and q["player"] == BOB
    assert q["choices"] == ["rebreak", "break", "accept"]
    assert [p.score for p in ref.state.players] == [0, 0]


@pytest.mark.parametrize(("choice", "to_shoot", "status", "restarted"), [
    ("rebreak", ANN, Status.BREAK, True),
    ("break", BOB, Status.BREAK, True),
    ("accept", BOB, Status.IN_PLAY, False),
])
def test_st_5_opponent_chooses_after_an_illegal_break(choice, to_shoot, status, restarted):
    ref = sib()
    play(ref, first=1, cushions=())
    out = answer(ref, choice)
    assert OptionChosen(BOB, choice) in out
    assert ref.state.to_shoot == to_shoot and ref.state.status is status
    assert any(isinstance(d, GameRestarted) for d in out) == restarted
    assert ref.state.on_table == tuple(ALL) and not ref.questions


def test_st_5_declared_bad_break_is_illegal_too():
    ref = sib()
    out = play(ref, first=1, cushions=TWO, fouls=("bad_break",))
    assert fouls_of(out) == [(Foul.BAD_BREAK,)] and kinds(ref) == ["option"]


@pytest.mark.parametrize(("cushions", "centre"), [(("f", "lh"), UNKNOWN), (("rf",), True)])
def test_st_5_break_meeting_the_two_cushion_rule_passes_the_turn(cushions, centre):
    ref = sib()
    out = play(ref, first=1, cushions=cushions, centre=centre)
    assert out[-1] == TurnPassed(BOB, InHand.NONE) and not fouls_of(out)


# ---------------------------------------------------------------- ST-6
def test_st_6_called_ball_counts_and_others_go_to_the_opponent():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl"), (5, "sr")])
    assert credits(out) == [(BOB, 3), (ANN, 5)]
    assert out[-1] == ShooterContinues(BOB, InHand.NONE)


# ---------------------------------------------------------------- ST-7
def test_st_7_called_ball_missed_a_fool_goes_to_the_opponent_turn_passes():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(5, "sr")], cushions=TWO)
    assert credits(out) == [(ANN, 5)] and not fouls_of(out)
    assert out[-1] == TurnPassed(ANN, InHand.NONE)


def test_st_7_called_ball_missed_nothing_down_turn_passes():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, cushions=TWO)
    assert credits(out) == [] and out[-1] == TurnPassed(ANN, InHand.NONE)


# ---------------------------------------------------------------- ST-8
@pytest.mark.parametrize(("drops", "credited", "to_shoot"), [
    ([(3, "fl"), (4, "fr")], [(BOB, 3), (BOB, 4)], BOB),  # both as called: continue
    ([(3, "fl")], [(BOB, 3)], ANN),  # one of two: it counts, turn passes
    ([(3, "fl"), (4, "sl")], [(BOB, 3), (ANN, 4)], ANN),  # one in another pocket: opponent's
    ([(3, "fr"), (4, "fl")], [(ANN, 3), (ANN, 4)], ANN),  # both in the wrong pockets
])
def test_st_8_two_called_balls(drops, credited, to_shoot):
    ref = after_break()
    out = play(ref, call=[(3, "fl"), (4, "fr")], first=3, drops=drops, cushions=TWO)
    assert credits(out) == credited and ref.state.to_shoot == to_shoot
    assert not fouls_of(out)


# ---------------------------------------------------------------- ST-9
def test_st_9_called_cue_ball_credits_a_table_ball():
    ref = after_break()
    play(ref, call=("cue", "hl"), first=3, drops=[("cue", "hl")])
    (q,) = ref.snapshot()["questions"]
    assert q["kind"] == "pick_ball" and q["player"] == ANN and q["choices"] == ALL
    out = answer(ref, 8)
    assert BallCredited(BOB, 8) in out
    assert ref.state.players[BOB].balls == (8,) and 8 not in ref.state.on_table
    assert out[-1] == ShooterContinues(BOB, InHand.KITCHEN)


def test_st_9_called_ball_and_called_cue_ball_both_count():
    ref = after_break()
    play(ref, call=[(3, "fl"), ("cue", "hl")], first=3, drops=[(3, "fl"), ("cue", "hl")])
    answer(ref, 10)
    assert ref.state.players[BOB].balls == (3, 10) and ref.state.to_shoot == BOB


def test_st_9_cue_ball_with_no_object_ball_left_still_counts():
    ref = scored(4, 5)  # the 10 alone on the table, Bob to shoot
    play(ref, call=(10, "fl"), first=10, cushions=TWO)  # Bob misses: Ann to shoot
    out = play(ref, call=[(10, "fl"), ("cue", "hl")], first=10,
               drops=[(10, "fl"), ("cue", "hl")])
    assert credits(out) == [(ANN, 10), (ANN, "cue")]
    assert GameWon(ANN, 1, "six_balls") in out  # 4:5 became 6:5
    assert ref.state.players[ANN].score == 6 and not ref.questions


def test_st_9_uncalled_cue_ball_scores_nothing_and_is_no_foul():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl"), ("cue", "hl")])
    assert credits(out) == [(BOB, 3)] and not fouls_of(out) and not ref.questions
    assert out[-1] == ShooterContinues(BOB, InHand.KITCHEN)


def test_st_8_a_called_cue_ball_in_another_pocket_goes_to_the_opponent():
    # «Если второй из заказанных шаров упал в другую (не заказанную) лузу, этот шар и
    # очередность удара переходит сопернику.»
    ref = after_break()
    out = play(ref, call=[(3, "fl"), ("cue", "hl")], first=3, drops=[(3, "fl"), ("cue", "hr")])
    assert credits(out) == [(BOB, 3)]
    (q,) = ref.questions  # the opponent takes a ball off the table for the cue ball, as ST-9
    assert (q.topic, q.player, q.params) == ("cue_ball_counts", ANN, {"to": ANN})
    out = answer(ref, 7)
    assert credits(out) == [(ANN, 7)] and out[-1] == TurnPassed(ANN, InHand.KITCHEN)
    assert [p.score for p in ref.state.players] == [1, 1] and accounted(ref)


# ---------------------------------------------------------------- ST-10
def test_st_10_ball_off_the_table_counts_for_the_opponent_and_the_turn_passes():
    # «Выскочившие шары (кроме битка) засчитываются сопернику, при этом ход переходит
    # сопернику, игра продолжается по обычным правилам.»
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, off=(6,), cushions=TWO)
    assert not fouls_of(out) and not ref.questions  # no penalty ball
    assert credits(out) == [(ANN, 6)] and 6 not in ref.state.on_table
    assert Noted("ball_off_table_to_opponent", about=(("balls", (6,)),)) in out
    assert out[-1] == TurnPassed(ANN, InHand.NONE)


def test_st_10_a_legal_pot_with_a_ball_off_the_table_counts_and_the_turn_passes():
    ref = scored(1, 0)  # Bob to shoot, 1:0
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], off=(8,))
    assert credits(out) == [(BOB, 3), (ANN, 8)] and not fouls_of(out)
    assert [p.score for p in ref.state.players] == [2, 1]  # not 1:3
    assert out[-1] == TurnPassed(ANN, InHand.NONE) and accounted(ref)


def test_st_10_a_break_with_two_down_and_one_off_the_table_is_two_to_one():
    ref = sib()
    out = play(ref, first=1, drops=[(2, "fl"), (5, "fr")], off=(9,))
    assert credits(out) == [(ANN, 2), (ANN, 5), (BOB, 9)] and not fouls_of(out)
    assert [p.score for p in ref.state.players] == [2, 1]  # not 0:4
    assert out[-1] == TurnPassed(BOB, InHand.NONE) and not ref.questions


def test_st_10_option_penalty_reads_the_penalty_list():
    # «Штрафы налагаются, если игрок выбил шар (хотя бы один) со стола»
    ref = after_break(ball_off_table="penalty")
    out = play(ref, call=(3, "fl"), first=3, off=(6,), cushions=TWO)
    assert fouls_of(out) == [(Foul.BALL_OFF_TABLE,)]
    assert credits(out) == [(ANN, 6)] and 6 not in ref.state.on_table
    assert kinds(ref) == ["pick_ball", "option"]  # and it is a foul (ST-15, ST-16)


# ---------------------------------------------------------------- ST-11
def test_st_11_cue_ball_off_the_table_after_a_legal_pot_is_no_foul():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], off=("cue",))
    assert not fouls_of(out) and credits(out) == [(BOB, 3)] and not ref.questions
    assert out[-1] == TurnPassed(ANN, InHand.KITCHEN)


def test_st_11_cue_ball_off_the_table_without_a_legal_pot_is_a_foul_and_voids_the_balls():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(5, "fr")], off=("cue",))
    assert fouls_of(out) == [(Foul.CUE_OFF_TABLE,)]
    assert BallSpotted(5, Spot.FOOT_RAIL) in out and 5 in ref.state.on_table
    assert credits(out) == [] and kinds(ref) == ["pick_ball", "option"]


def test_st_11_option_turn_passes_reads_the_dedicated_rule():
    ref = after_break(cue_off_table="turn_passes")
    out = play(ref, call=(3, "fl"), first=3, drops=[(5, "fr")], off=("cue",), cushions=TWO)
    assert not fouls_of(out) and not ref.questions  # no penalty ball
    assert credits(out) == [(ANN, 5)]  # the «дурак» counts for the opponent (ST-7)
    assert out[-1] == TurnPassed(ANN, InHand.KITCHEN)


# ---------------------------------------------------------------- ST-12
# The seed: «Игрок, производящий удар из дома с руки при переходе хода после промаха соперника
# по прицельному шару или произведшему удар с нарушением правил, имеет право бить по
# прицельному шару, находящему в доме, только в случае отражения битка от одного или более
# бортов и касания после этого прицельного шара.» (issue 41, item 12)
def from_hand_after_the_opponents_miss(**options: object):
    """Bob misses; Ann takes her penalty ball and shoots: Ann from hand in the kitchen."""
    ref = after_break(**options)
    play(ref, call=(3, "fl"), first=None)
    answer(ref, 2)
    answer(ref, "shoot")
    assert ref.state.to_shoot == ANN and ref.state.ball_in_hand is InHand.KITCHEN
    return ref


def from_hand_after_the_own_foul_handed_back(**options: object):
    """Bob misses; Ann takes her penalty ball and hands the shot back: Bob from hand."""
    ref = after_break(**options)
    play(ref, call=(3, "fl"), first=None)
    answer(ref, 2)
    answer(ref, "hand_back")
    assert ref.state.to_shoot == BOB and ref.state.ball_in_hand is InHand.KITCHEN
    return ref


def from_hand_after_the_own_svoyak(**options: object):
    """Bob's called cue ball falls (свояк, ST-9): Bob plays on from hand in the kitchen."""
    ref = after_break(**options)
    play(ref, call=("cue", "hl"), first=3, drops=[("cue", "hl")])
    answer(ref, 8)
    assert ref.state.to_shoot == BOB and ref.state.ball_in_hand is InHand.KITCHEN
    return ref


def not_from_hand(**options: object):
    """After a legal break with nothing down: Bob plays the cue ball where it lies."""
    ref = after_break(**options)
    assert ref.state.ball_in_hand is InHand.NONE
    return ref


ST_12 = [  # (how the shooter came to the shot, option kitchen_hit_from_hand, a foul?)
    (from_hand_after_the_opponents_miss, "after_opponents_foul", True),
    (from_hand_after_the_opponents_miss, "any_from_hand", True),
    (not_from_hand, "after_opponents_foul", False),
    (not_from_hand, "any_from_hand", False),
    (from_hand_after_the_own_svoyak, "after_opponents_foul", False),
    (from_hand_after_the_own_svoyak, "any_from_hand", True),
    (from_hand_after_the_own_foul_handed_back, "after_opponents_foul", False),
    (from_hand_after_the_own_foul_handed_back, "any_from_hand", True),
]


@pytest.mark.parametrize(("position", "reading", "foul"), ST_12,
                         ids=[f"{p.__name__}-{r}" for p, r, _ in ST_12])
def test_st_12_a_declared_direct_hit_in_the_kitchen_is_a_foul_from_hand_after_the_opponents_miss(
        position, reading: str, foul: bool) -> None:
    ref = position(kitchen_hit_from_hand=reading)
    shooter = ref.state.to_shoot
    out = play(ref, call=(4, "fl"), first=4, drops=[(4, "fl")], fouls=("direct_hit_in_kitchen",))
    if foul:  # the opponent plays on from hand in the kitchen; the pot is not legal
        assert fouls_of(out) == [(Foul.DIRECT_HIT_IN_KITCHEN,)]
        assert out[-1] == TurnPassed(1 - shooter, InHand.KITCHEN) and not ref.questions
    else:  # not this rule's shot: noted, and the called ball counts
        assert not fouls_of(out)
        assert Noted("foul_not_applicable", "direct_hit_in_kitchen") in out
        assert (shooter, 4) in credits(out) and ref.state.to_shoot == shooter


def test_st_12_a_direct_hit_declared_on_the_break_is_not_this_rule():
    ref = sib()
    out = play(ref, first=1, cushions=TWO, fouls=("direct_hit_in_kitchen",))
    assert not fouls_of(out) and Noted("foul_not_applicable", "direct_hit_in_kitchen") in out


def test_st_12_direct_hit_in_the_kitchen_gives_the_opponent_the_kitchen():
    ref = from_hand_after_the_opponents_miss()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], fouls=("direct_hit_in_kitchen",))
    assert fouls_of(out) == [(Foul.DIRECT_HIT_IN_KITCHEN,)]
    assert credits(out) == [(BOB, 3)]  # not a legal pot: the ball is the opponent's
    assert out[-1] == TurnPassed(BOB, InHand.KITCHEN) and not ref.questions


def test_st_12_option_makes_the_direct_hit_cost_a_penalty_ball():
    ref = from_hand_after_the_opponents_miss(kitchen_penalty=True)
    play(ref, call=(3, "fl"), first=3, cushions=TWO, fouls=("direct_hit_in_kitchen",))
    assert kinds(ref) == ["pick_ball", "option"]


def test_st_12_after_a_foul_the_next_shot_is_from_the_kitchen():
    ref = after_break()
    play(ref, call=(3, "fl"), first=None)  # a miss
    answer(ref, 2)
    answer(ref, "shoot")
    assert ref.state.to_shoot == ANN and ref.state.ball_in_hand is InHand.KITCHEN


# ---------------------------------------------------------------- ST-13
def test_st_13_uncalled_play_counts_every_ball_for_the_shooter():
    ref = after_break(called=False)
    with pytest.raises(InvalidInput, match="uncalled"):
        ref.check_call((Call(3, Pocket.FOOT_LEFT),))
    out = play(ref, first=3, drops=[(3, "fl"), (5, "sr")])
    assert credits(out) == [(BOB, 3), (BOB, 5)]
    assert out[-1] == ShooterContinues(BOB, InHand.NONE)


def test_st_13_plain_balls_nobody_is_asked_which_ball_fell():
    ref = after_break(called=False)
    play(ref, first=3, drops=[(None, "fl"), (None, "sr"), ("cue", "hl")])
    assert not ref.questions  # neither identify nor pick_ball: the balls are interchangeable
    assert ref.state.players[BOB].score == 3 and ref.state.balls_left == 7
    assert ref.state.players[BOB].balls == (OBJECT, OBJECT, OBJECT)  # numbers nobody knows
    assert accounted(ref)


def test_st_13_uncalled_play_nothing_down_passes_the_turn():
    ref = after_break(called=False)
    out = play(ref, first=3, cushions=TWO)
    assert out[-1] == TurnPassed(ANN, InHand.NONE)


# ---------------------------------------------------------------- ST-14
@pytest.mark.parametrize(("cushions", "centre", "legal"), [
    (("f", "h"), UNKNOWN, True),  # two cushions
    (("lh", "rf"), False, True),
    (("lh", "lf"), False, False),  # two halves of one long cushion are one cushion
    (("f", "f"), False, False),  # the same cushion twice
    (("f",), True, True),  # one cushion and the centre line
    (("f",), False, False),
    ((), True, False),  # the centre line alone counts as only one
    ((), False, False),
])
def test_st_14_two_cushion_rule(cushions, centre, legal):
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, cushions=cushions, centre=centre)
    assert fouls_of(out) == ([] if legal else [(Foul.TWO_CUSHION,)])
    assert ref.questions == () if legal else kinds(ref) == ["pick_ball", "option"]


@pytest.mark.parametrize(("crossed", "foul"), [(True, False), (False, True)])
def test_st_14_centre_line_unknown_is_asked_by_default(crossed, foul):
    ref = after_break()
    play(ref, call=(3, "fl"), first=3, cushions=("rf",))
    (q,) = ref.snapshot()["questions"]
    assert q["kind"] == "confirm"
    out = answer(ref, crossed)
    assert bool(fouls_of(out)) == foul


@pytest.mark.parametrize(("default", "foul"), [("crossed", False), ("not_crossed", True)])
def test_st_14_centre_line_default_option(default, foul):
    ref = after_break(centre_line_unknown=default)
    out = play(ref, call=(3, "fl"), first=3, cushions=("rf",))
    assert Noted("centre_line_presumed", default) in out
    assert bool(fouls_of(out)) == foul


def test_st_14_unknown_cushions_asked_or_presumed_and_noted():
    ref = after_break()
    play(ref, call=(3, "fl"), first=3)
    assert kinds(ref) == ["confirm"]
    ref = after_break(cushions_unknown="legal")
    out = play(ref, call=(3, "fl"), first=3)
    assert not fouls_of(out) and not ref.questions and Noted("two_cushions_presumed") in out


def test_st_14_hits_presumed_after_contact_are_noted_when_they_make_the_shot_legal():
    ref = after_break()
    out = play(ref, dataclasses.replace(shot(call=(3, "fl"), first=3, cushions=TWO),
                                        cushions_presumed=True))
    assert Noted("cushions_presumed_after_contact") in out and not fouls_of(out)
    ref = after_break()
    out = play(ref, dataclasses.replace(shot(call=(3, "fl"), first=3, cushions=("f",),
                                             centre=False), cushions_presumed=True))
    assert Noted("cushions_presumed_after_contact") not in out  # a foul either way
    assert fouls_of(out) == [(Foul.TWO_CUSHION,)]


@pytest.mark.parametrize(("count", "foul"), [(0, True), (1, True), (2, False)])
def test_st_14_declared_cushions_after_contact_stand_over_the_sensors(count, foul):
    ref = after_break()
    record = dataclasses.replace(shot(call=(3, "fl"), first=3, cushions=TWO, centre=False),
                                 cushions_presumed=True, cushion_count=count)
    out = play(ref, record)
    assert bool(fouls_of(out)) == foul
    assert Noted("cushions_presumed_after_contact") not in out


def test_st_14_two_cushion_foul_is_declarable():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, cushions=TWO, fouls=("two_cushion",))
    assert fouls_of(out) == [(Foul.TWO_CUSHION,)]


@pytest.mark.parametrize(("reading", "foul"), [("after_contact", True),
                                               ("before_or_after", False)])
def test_st_14_option_counts_cushions_before_the_contact_too(reading, foul):
    ref = after_break(two_cushions=reading)
    record = dataclasses.replace(shot(call=(3, "fl"), first=3, cushions=("f",), centre=False),
                                 cushions_before=(Rail.LEFT_HEAD,))
    assert bool(fouls_of(play(ref, record))) == foul


def test_st_14_option_item_zh_the_cue_ball_itself_makes_two_cushions():
    ref = after_break(two_cushions="cue_ball")
    out = play(ref, call=(3, "fl"), first=3, cushions=("f",), centre=True)
    assert fouls_of(out) == [(Foul.TWO_CUSHION,)]  # one cushion in all: not two by the cue ball
    ref = after_break(two_cushions="cue_ball")
    play(ref, call=(3, "fl"), first=3, cushions=TWO)
    (q,) = ref.questions  # which ball hit them, no sensor can tell
    assert q.kind == "confirm"
    assert fouls_of(answer(ref, False)) == [(Foul.TWO_CUSHION,)]


def test_st_6_st_7_two_cushion_rule_applies_when_only_a_durak_fell():
    # «Если ни один из шаров не сыгран, …» and «Игрок, забивший шар в лузу без нарушения
    # правил (сыгравший шар)»: a «дурак» is no played ball, so the rule applies by default
    ref = after_break(two_cushions_when="nothing_fell")
    out = play(ref, call=(3, "fl"), first=3, drops=[(7, "sl")], cushions=())
    assert not fouls_of(out)  # with the option, something fell: the rule does not apply
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(7, "sl")], cushions=())
    assert fouls_of(out) == [(Foul.TWO_CUSHION,)]
    assert credits(out) == [(ANN, 7)]  # the «дурак» is the opponent's all the same
    assert kinds(ref) == ["pick_ball", "option"]


def test_st_6_st_7_option_two_cushion_rule_applies_after_an_uncalled_cue_ball():
    ref = after_break(two_cushions_when="nothing_played")
    out = play(ref, call=(3, "fl"), first=3, drops=[("cue", "hl")], cushions=("f",),
               centre=False)
    assert fouls_of(out) == [(Foul.TWO_CUSHION,)]
    ref = after_break(two_cushions_when="nothing_played")
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], cushions=())
    assert not fouls_of(out)  # a ball was played


def test_st_14_does_not_apply_when_a_ball_fell():
    ref = after_break(two_cushions_when="nothing_fell")
    out = play(ref, call=(3, "fl"), first=3, drops=[(7, "sl")], cushions=())
    assert not fouls_of(out)


def test_st_15_unknown_contact_is_presumed_and_noted():
    ref = after_break()
    out = play(ref, call=(3, "fl"), cushions=TWO)
    assert Noted("contact_presumed") in out and not fouls_of(out)
    out = play(ref, call=(3, "fl"), first=3, cushions=TWO)
    assert Noted("contact_presumed") not in out  # sensed: nothing presumed


@pytest.mark.parametrize(("touched", "foul"), [(True, []), (False, [(Foul.MISS,)])])
def test_st_15_unknown_contact_can_be_asked(touched, foul):
    ref = after_break(presume_contact=False)
    play(ref, call=(3, "fl"), cushions=TWO)
    (q,) = ref.questions
    assert q.kind == "confirm"
    assert fouls_of(answer(ref, touched)) == foul


def test_st_15_a_ball_down_shows_contact_without_presuming():
    ref = after_break(presume_contact=False)
    out = play(ref, call=(3, "fl"), drops=[(3, "fl")])
    assert not ref.questions and credits(out) == [(BOB, 3)]


# ---------------------------------------------------------------- ST-15
@pytest.mark.parametrize(("declared", "foul"), [
    ("touched_ball", Foul.TOUCHED_BALL),
    ("butt_or_side", Foul.BUTT_OR_SIDE),
    ("moving_balls", Foul.MOVING_BALLS),
    ("feet_off_floor", Foul.FEET_OFF_FLOOR),
    ("push", Foul.PUSH),
    ("miss", Foul.MISS),
])
def test_st_15_declared_fouls(declared, foul):
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, cushions=TWO, fouls=(declared,))
    assert fouls_of(out) == [(foul,)] and kinds(ref) == ["pick_ball", "option"]


def test_st_15_cue_ball_touching_no_ball_is_a_miss():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=None, cushions=TWO)
    assert fouls_of(out) == [(Foul.MISS,)]


# ---------------------------------------------------------------- ST-16
def test_st_16_penalty_ball_first_then_shoot_or_hand_back():
    ref = after_break()
    play(ref, call=(3, "fl"), first=None)
    p, o = ref.snapshot()["questions"]
    assert (p["kind"], p["player"], p["choices"]) == ("pick_ball", ANN, ALL)
    assert (o["kind"], o["player"], o["choices"]) == ("option", ANN, ["shoot", "hand_back"])
    out = answer(ref, 9, p["id"])
    assert BallCredited(ANN, 9) in out and ref.questions[0].id == o["id"]
    out = answer(ref, "hand_back")
    assert out[-1] == TurnPassed(BOB, InHand.KITCHEN)
    assert ref.state.players[ANN].balls == (9,) and accounted(ref)


def test_st_16_option_answered_first_still_waits_for_the_ball():
    ref = after_break()
    play(ref, call=(3, "fl"), first=None)
    p, o = ref.snapshot()["questions"]
    answer(ref, "shoot", o["id"])
    assert [q.id for q in ref.questions] == [p["id"]]
    answer(ref, 4)
    assert ref.state.to_shoot == ANN and ref.state.players[ANN].balls == (4,)


def test_st_16_balls_pocketed_on_a_foul_count_for_the_opponent():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl"), (6, "sr")], fouls=("push",))
    assert credits(out) == [(ANN, 3), (ANN, 6)]


def test_st_16_penalty_ball_that_makes_six_ends_the_game_unasked():
    # any ball Ann takes is her sixth: which one changes nothing, so nobody is asked (issue 27)
    ref = scored(5, 2)  # Bob to shoot; 8, 9, 10 on the table
    out = play(ref, call=(8, "fl"), first=None)
    assert not ref.questions and GameWon(ANN, 1, "six_balls") in out
    assert Noted("not_asked", "penalty_ball", about=(("to", ANN), ("answer", 8))) in out
    assert ref.snapshot()["status"] == "match_over"  # race to 1: no longer "awaiting"


# ---------------------------------------------------------------- ST-17
@pytest.mark.parametrize("declared", ["touched_ball", "feet_off_floor"])
def test_st_17_voiding_fouls_spot_pocketed_balls_at_the_foot_rail(declared):
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl"), (6, "sr")], fouls=(declared,))
    assert BallSpotted(3, Spot.FOOT_RAIL) in out and BallSpotted(6, Spot.FOOT_RAIL) in out
    assert credits(out) == [] and ref.state.on_table == tuple(ALL)


# ---------------------------------------------------------------- ST-18
def test_st_18_interference_option_replay_replays_the_shot():
    ref = after_break(interference="replay")
    before = ref.snapshot()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], special="interference")
    assert out[-1] == ShooterContinues(BOB, InHand.NONE) and credits(out) == []
    after = ref.snapshot()
    assert {k: v for k, v in after.items() if k != "shot"} == {
        k: v for k, v in before.items() if k != "shot"}


@pytest.mark.parametrize("choice", ["restore", "as_lies"])
def test_st_18_interference_option_asks_the_injured_player(choice):
    ref = after_break(interference="ask")
    before = ref.snapshot()
    play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], special="interference")
    (q,) = ref.questions
    assert q.kind == "option" and q.player == BOB and set(q.choices) == {"restore", "as_lies"}
    out = answer(ref, choice)
    assert OptionChosen(BOB, choice) in out and out[-1] == ShooterContinues(BOB, InHand.NONE)
    assert credits(out) == []
    if choice == "restore":
        assert BallSpotted(3, Spot.FOOT_SPOT) not in out
        assert {k: v for k, v in ref.snapshot().items() if k != "shot"} == {
            k: v for k, v in before.items() if k != "shot"}
    else:
        assert BallSpotted(3, Spot.FOOT_SPOT) in out and 3 in ref.state.on_table


def test_st_18_ball_on_the_rail_passes_the_turn_and_pocketed_balls_count():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], special="on_rail")
    assert credits(out) == [(BOB, 3)] and not fouls_of(out)
    assert out[-1] == TurnPassed(ANN, InHand.NONE)


def test_st_18_cue_ball_back_from_the_floor_the_ball_does_not_count():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], special="returned_from_floor")
    assert credits(out) == [] and not fouls_of(out) and 3 in ref.state.on_table
    assert out[-1] == TurnPassed(ANN, InHand.NONE) and not ref.questions


def test_st_18_hanging_ball_spotted_and_the_shooter_keeps_the_shot_from_the_kitchen():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=None, drops=[(7, "fr")], special="hanging_ball")
    assert BallSpotted(7, Spot.FOOT_SPOT) in out and not fouls_of(out)
    assert out[-1] == ShooterContinues(BOB, InHand.KITCHEN) and 7 in ref.state.on_table


# ---------------------------------------------------------------- ST-19
def test_st_19_handicap_giver_breaks_and_the_first_k_balls_count_for_the_receiver():
    ref = sib(handicap=2, handicap_giver=1)
    assert ref.state.to_shoot == BOB  # the giver breaks, whoever won the lag
    out = play(ref, first=1, drops=[(2, "fl"), (5, "fr"), (6, "sl")])
    assert credits(out) == [(ANN, 2), (ANN, 5), (BOB, 6)]
    # noted as data (the ball, the receiver), for a page to word
    assert [d for d in out if isinstance(d, Noted)] == [
        Noted("handicap", "2", about=(("ball", 2), ("to", ANN))),
        Noted("handicap", "5", about=(("ball", 5), ("to", ANN)))]
    assert ref.state.to_shoot == BOB
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl")])
    assert credits(out) == [(BOB, 7)]


def test_st_19_handicap_does_not_apply_to_the_receivers_balls():
    ref = sib(handicap=1, handicap_giver=1)
    play(ref, first=1, cushions=TWO)  # Bob breaks, nothing down: Ann
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")])
    assert credits(out) == [(ANN, 3)]


def test_st_19_bad_handicap_option_is_refused():
    with pytest.raises(InvalidInput, match="handicap"):
        sib(handicap=7)


# ---------------------------------------------------------------- ST-20
def at_shootout():
    ref = scored(5, 5)  # Ann's shot cleared the table: Ann shoots first
    return ref


def test_st_20_shootout_starts_at_five_all_with_the_table_empty():
    ref = sib()
    play(ref, first=1, drops=[(i, "fl") for i in range(1, 6)])
    out = play(ref, call=(6, "fl"), first=6, drops=[(i, "fr") for i in range(6, 11)],
               cushions=TWO)
    assert ShootoutStarted(ANN) in out and not any(isinstance(d, GameWon) for d in out)
    snap = ref.snapshot()
    assert snap["status"] == "shootout" and snap["on_table"] == [] and snap["to_shoot"] == ANN
    assert snap["shootout"] == {"round": 1, "first": ANN, "shooting": ANN, "attempt": 1,
                                "points": [None, None], "rounds": [], "igra": False,
                                "igra_by": None, "igra_allowed": None}


def test_st_20_the_player_who_pocketed_the_last_ball_shoots_first():
    ref = scored(5, 4)  # the 10 left, Bob to shoot
    out = play(ref, call=(10, "fl"), first=10, drops=[(10, "fl")])
    assert ShootoutStarted(BOB) in out and ref.state.to_shoot == BOB


def test_st_20_no_call_in_the_shootout():
    ref = at_shootout()
    with pytest.raises(InvalidInput, match="no call"):
        ref.check_call((Call(1, Pocket.FOOT_LEFT),))


@pytest.mark.parametrize(("drops", "points"), [
    ([(None, "fl"), ("cue", "sl")], 2),
    ([(None, "fl")], 1),
    ([("cue", "hl")], 1),
    ([], 0),
])
def test_st_20_bullet_scores_two_one_or_none(drops, points):
    ref = at_shootout()
    out = play(ref, first=1, drops=drops, cushions=("f",))
    assert BulletScored(ANN, points, 1) in out
    assert ref.snapshot()["shootout"]["points"] == [points, None]
    assert ref.state.to_shoot == BOB and ref.state.status is Status.SHOOTOUT


def test_st_20_missing_the_object_ball_retakes_at_most_twice():
    ref = at_shootout()
    assert BulletRetaken(ANN, 1) in play(ref, first=None)
    assert ref.snapshot()["shootout"]["attempt"] == 2 and ref.state.to_shoot == ANN
    assert BulletRetaken(ANN, 2) in play(ref, first=None)
    out = play(ref, first=None)
    assert BulletScored(ANN, 0, 1) in out and ref.state.to_shoot == BOB


def test_st_20_higher_total_wins_the_game():
    ref = at_shootout()
    play(ref, first=1, drops=[(None, "fl")])
    out = play(ref, first=1, cushions=("f",))
    assert GameWon(ANN, 1, "shootout") in out
    assert ref.snapshot()["status"] == "match_over"
    assert ref.snapshot()["shootout"]["points"] == [1, 0]
    assert [p.score for p in ref.state.players] == [5, 5]


def test_st_20_tied_round_repeats_with_the_same_first_shooter():
    ref = at_shootout()
    play(ref, first=1, drops=[(None, "fl")])
    out = play(ref, first=1, drops=[(None, "fr")])
    assert RoundTied(1, 1) in out and not any(isinstance(d, GameWon) for d in out)
    so = ref.snapshot()["shootout"]
    assert (so["round"], so["rounds"], so["points"]) == (2, [[1, 1]], [None, None])
    assert ref.state.to_shoot == ANN
    play(ref, first=1, cushions=())
    out = play(ref, first=1, drops=[(None, "fr")])
    assert GameWon(BOB, 1, "shootout") in out


# ---------------------------------------------------------------- ST-21
def after_blank_bullet():
    ref = at_shootout()
    play(ref, first=1, cushions=("f",))  # Ann's legal bullet, nothing down
    return ref


def test_st_21_igra_only_after_a_legal_bullet_that_pocketed_nothing():
    with pytest.raises(InvalidInput, match="only in the shoot-out"):
        after_break().check_call((), ShotKind.IGRA)
    ref = at_shootout()
    with pytest.raises(InvalidInput, match="legal bullet"):
        ref.check_call((), ShotKind.IGRA)
    play(ref, first=None)  # a miss: a retake, not a legal bullet
    with pytest.raises(InvalidInput, match="legal bullet"):
        ref.check_call((), ShotKind.IGRA)
    play(ref, first=1, drops=[(None, "fl")])  # it scored
    with pytest.raises(InvalidInput, match="legal bullet"):
        ref.check_call((), ShotKind.IGRA)
    ref = after_blank_bullet()
    ref.check_call((), ShotKind.IGRA)
    assert ref.snapshot()["shootout"]["igra_allowed"] == ANN


def test_st_21_first_to_pocket_a_ball_wins():
    ref = after_blank_bullet()
    out = play(ref, kind="igra", first=1, cushions=("f",))
    assert IgraDeclared(ANN) in out and out[-1] == TurnPassed(ANN, InHand.NONE)
    so = ref.snapshot()["shootout"]
    assert so["igra"] and so["igra_by"] == ANN
    play(ref, first=1, cushions=())  # Ann, nothing down: Bob again, no more bullets
    assert ref.state.to_shoot == BOB
    out = play(ref, first=1, drops=[("cue", "fr")])
    assert GameWon(BOB, 1, "igra") in out


def test_st_21_missing_the_object_ball_in_igra_loses():
    ref = after_blank_bullet()
    out = play(ref, kind="igra", first=None)
    assert GameWon(ANN, 1, "igra_miss") in out
    assert not any(isinstance(d, BulletRetaken) for d in out)


def test_st_20_a_foul_on_a_bullet_scores_nothing_without_a_retake():
    ref = at_shootout()
    out = play(ref, first=None, fouls=("touched_ball",))
    assert fouls_of(out) == [(Foul.TOUCHED_BALL,)] and BulletScored(ANN, 0, 1) in out
    assert not any(isinstance(d, BulletRetaken) for d in out) and ref.state.to_shoot == BOB


def test_st_20_option_a_declared_foul_on_a_bullet_is_retaken():
    ref = scored(5, 5, bullet_foul="retake")
    out = play(ref, first=1, fouls=("touched_ball",))
    assert fouls_of(out) == [(Foul.TOUCHED_BALL,)] and BulletRetaken(ANN, 1) in out
    assert not any(isinstance(d, BulletScored) for d in out) and ref.state.to_shoot == ANN
    play(ref, first=1, fouls=("touched_ball",))
    out = play(ref, first=1, fouls=("touched_ball",))  # the third attempt counts: 0
    assert BulletScored(ANN, 0, 1) in out and ref.state.to_shoot == BOB
    ref = scored(5, 5, bullet_foul="retake")
    out = play(ref, first=1, off=(1,), fouls=("touched_ball",))  # a ball off the table: 0
    assert BulletScored(ANN, 0, 1) in out


def test_st_20_unknown_contact_on_a_bullet_is_presumed_and_noted():
    ref = at_shootout()
    out = play(ref, cushions=("f",))
    assert Noted("contact_presumed") in out and BulletScored(ANN, 0, 1) in out


def test_st_21_no_igra_after_the_third_miss():
    ref = at_shootout()
    for _ in range(3):
        play(ref, first=None)
    assert ref.state.to_shoot == BOB  # the bullet counted 0, but it was no legal stroke
    with pytest.raises(InvalidInput, match="legal bullet"):
        ref.check_call((), ShotKind.IGRA)


def test_st_20_a_bullet_has_one_object_ball_so_a_double_reading_scores_one():
    ref = at_shootout()
    out = play(ref, first=1, drops=[(None, "fl"), (None, "fr")])
    assert not ref.questions and BulletScored(ANN, 1, 1) in out


def test_st_19_the_giver_breaks_every_game():
    ref = sib(handicap=1, handicap_giver=1, race_to=2, breaker=1)
    play(ref, first=1, drops=[(i, "fl") for i in range(1, 8)])  # Bob's first ball is Ann's
    assert ref.state.players[BOB].score == 6 and ref.snapshot()["status"] == "game_over"
    assert ref.state.to_shoot == BOB  # alternate order would say Ann: the giver breaks
    play(ref, first=1, cushions=TWO)
    assert ref.state.game_no == 2 and ref.state.breaker == BOB


@pytest.mark.parametrize(("after_foul", "cue_falls", "in_hand"), [
    ("kitchen", False, InHand.KITCHEN),
    ("as_lies", False, InHand.NONE),
    ("as_lies", True, InHand.KITCHEN),
])
def test_st_12_where_the_next_shot_after_a_foul_is_played_from(after_foul, cue_falls, in_hand):
    ref = after_break(after_foul=after_foul)
    play(ref, call=(3, "fl"), first=None, drops=[("cue", "hl")] if cue_falls else [])
    answer(ref, 2)
    out = answer(ref, "hand_back")
    assert out[-1] == TurnPassed(BOB, in_hand) and ref.state.ball_in_hand is in_hand


def test_st_21_igra_may_follow_the_second_bullet_of_a_tied_round():
    ref = at_shootout()
    play(ref, first=1, drops=[(None, "fl")])  # Ann 1
    play(ref, first=1, drops=[(None, "fr")])  # Bob 1: tied, Ann first again
    play(ref, first=1, cushions=("f",))  # Ann 0, legal
    play(ref, first=1, cushions=("h",))  # Bob 0, legal: tied again, Bob may declare
    assert ref.snapshot()["shootout"]["igra_allowed"] == BOB and ref.state.to_shoot == ANN
    out = play(ref, kind="igra", first=1, drops=[(None, "sl")])
    assert IgraDeclared(BOB) in out and GameWon(ANN, 1, "igra") in out


def test_st_13_options_are_published_in_the_snapshot():
    assert sib().snapshot()["options"]["called"] is True
    assert sib(called=False).snapshot()["options"]["called"] is False


def test_siberian_decisions_are_json_ready():
    import json

    ref = at_shootout()
    out = play(ref, first=None) + play(ref, first=1, drops=[(None, "fl"), ("cue", "hl")])
    assert json.loads(json.dumps([d.to_event() for d in out]))[0]["decision"] == "BulletRetaken"


def test_st_9_the_last_ball_needs_no_pick():
    ref = scored(4, 4)  # 9 and 10 left, Bob to shoot
    play(ref, call=(9, "fl"), first=9, cushions=TWO)  # Bob misses: Ann
    out = play(ref, call=[(9, "fl"), ("cue", "hl")], first=9, drops=[(9, "fl"), ("cue", "hl")])
    assert not ref.questions and credits(out) == [(ANN, 9), (ANN, 10)]
    assert GameWon(ANN, 1, "six_balls") in out


def test_st_9_no_pick_once_the_called_ball_has_won():
    ref = scored(5, 2)  # 8, 9, 10 left, Bob to shoot
    play(ref, call=(8, "fl"), first=8, cushions=TWO)
    out = play(ref, call=[(8, "fl"), ("cue", "hl")], first=8, drops=[(8, "fl"), ("cue", "hl")])
    assert not ref.questions and GameWon(ANN, 1, "six_balls") in out
    assert ref.state.on_table == (9, 10)


# ---------------------------------------------------------------- ST-6: a call not recorded
@pytest.mark.parametrize(("was_called", "credited", "to_shoot"), [
    (True, [(BOB, 3)], BOB),
    (False, [(ANN, 3)], ANN),
])
def test_st_6_missing_call_is_asked_by_default(was_called, credited, to_shoot):
    ref = after_break()
    play(ref, first=3, drops=[(3, "fl")], cushions=TWO)
    assert kinds(ref) == ["confirm"]
    out = answer(ref, was_called)
    assert credits(out) == credited and ref.state.to_shoot == to_shoot


@pytest.mark.parametrize(("how", "credited"), [("count", [(BOB, 3)]), ("no_count", [(ANN, 3)])])
def test_st_6_missing_call_options(how, credited):
    ref = after_break(missing_call=how)
    out = play(ref, first=3, drops=[(3, "fl")], cushions=TWO)
    assert not ref.questions and credits(out) == credited


def test_st_3_breaks_by_lot_are_asked_at_the_end_of_each_game():
    from tests.rules.build import answer, new, play

    ref = new("siberian-ten", race_to=3, break_order="lot")
    play(ref, first=1, cushions=("f", "lf"), drops=[(b, "fl") for b in range(1, 7)])  # Ann: 6
    (q,) = ref.questions
    assert q.kind == "option" and q.choices == ("Ann", "Bob")
    assert (q.topic, q.params) == ("breaker", {"game": 2})
    answer(ref, "Ann")  # Ann drew the break again
    assert ref.snapshot()["status"] == "game_over" and ref.state.to_shoot == 0
    play(ref, first=1, cushions=("f", "lf"), drops=[(b, "fr") for b in range(1, 7)])
    assert ref.state.players[0].games == 2  # Ann broke game 2 (and won it on the break)


# ------------------------------------------------------------ ask only what changes the ruling
def test_st_4_nobody_is_asked_which_balls_fell_on_the_break():
    ref = sib()
    out = play(ref, first=1, drops=[(None, "fl"), (None, "sr")])  # no identity reader
    assert not ref.questions and credits(out) == [(ANN, OBJECT), (ANN, OBJECT)]
    snap = ref.snapshot()
    assert snap["unidentified"] == 2 and len(snap["on_table"]) == 10
    assert ref.state.balls_left == 8 and ref.state.to_shoot == ANN and accounted(ref)


def test_st_4_without_a_cue_detector_only_whether_it_was_the_cue_ball_is_asked():
    ref = sib()
    play(ref, first=1, drops=[(None, "fr")], cue_sensed=False)
    (q,) = ref.questions
    assert (q.kind, q.topic, q.params) == ("confirm", "cue_ball", {"pocket": "fr"})
    out = answer(ref, False)
    assert credits(out) == [(ANN, OBJECT)] and ref.state.to_shoot == ANN


def test_st_9_on_the_break_the_cue_ball_answered_yes_counts_for_the_breaker():
    ref = sib()
    play(ref, first=1, drops=[(None, "fr")], cue_sensed=False)
    answer(ref, True)  # it was the cue ball: Bob takes a ball off the table for Ann (ST-9)
    (q,) = ref.questions
    assert (q.kind, q.topic, q.player) == ("pick_ball", "cue_ball_counts", BOB)
    answer(ref, 7)
    assert ref.state.players[ANN].balls == (7,) and ref.state.balls_left == 9


def test_st_8_a_ball_in_a_pocket_nobody_called_is_not_identified():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl"), (None, "sr")])
    assert not ref.questions  # whatever fell in sr counts for Ann
    assert credits(out) == [(BOB, 3), (ANN, OBJECT)] and ref.state.to_shoot == BOB
    assert accounted(ref)


def test_st_6_a_drop_in_the_called_pocket_asks_only_whether_it_was_the_called_ball():
    ref = after_break(presume_called=False)
    play(ref, call=(3, "fl"), first=3, drops=[(None, "fl")])
    (q,) = ref.questions
    assert (q.kind, q.topic, q.params) == ("confirm", "called_ball", {"ball": 3, "pocket": "fl"})
    out = answer(ref, True)
    assert credits(out) == [(BOB, 3)] and ref.state.to_shoot == BOB


def test_st_8_another_ball_in_the_called_pocket_counts_for_the_opponent_unnumbered():
    ref = after_break(presume_called=False)
    play(ref, call=(3, "fl"), first=3, drops=[(None, "fl")], cushions=TWO)
    out = answer(ref, False)
    assert credits(out) == [(ANN, OBJECT)] and ref.state.to_shoot == ANN and accounted(ref)
    assert 3 in ref.state.on_table


def test_st_6_without_a_cue_detector_the_drop_in_the_called_pocket_is_identified():
    ref = after_break(presume_called=False)
    play(ref, call=(3, "fl"), first=3, drops=[(None, "fl")], cue_sensed=False)
    (q,) = ref.questions  # "no" would not say whether it was the cue ball: which ball?
    assert (q.kind, q.topic, q.params) == ("identify", "which_balls", {"pocket": "fl"})
    assert "cue" in q.choices


def test_st_9_a_called_cue_ball_the_cue_detector_did_not_see_fall_is_not_presumed():
    ref = after_break()  # presume_called on: but the detector says the cue ball stayed up
    out = play(ref, call=[("cue", "fr"), (3, "fl")], first=3, drops=[(None, "fr")],
               cushions=TWO)
    assert not ref.questions  # an object ball, whichever: it counts the same (ST-8)
    assert not [d for d in out if isinstance(d, Noted) and d.what == "called_presumed"]
    assert credits(out) == [(ANN, OBJECT)] and ref.state.to_shoot == ANN and accounted(ref)


def test_st_9_without_a_cue_detector_a_called_cue_ball_is_presumed_and_noted():
    ref = after_break()
    out = play(ref, call=[("cue", "fr"), (3, "fl")], first=3, drops=[(None, "fr")],
               cue_sensed=False)
    assert Noted("called_presumed", about=(("ball", "cue"), ("pocket", "fr"))) in out
    (q,) = ref.questions  # the called cue ball counts: Ann takes a ball off for Bob
    assert (q.topic, q.player) == ("cue_ball_counts", ANN)


def test_st_16_with_one_ball_left_of_unknown_number_the_penalty_takes_it_unasked():
    ref = sib()
    play(ref, first=1, drops=[(None, "fl")] * 4)  # Ann 4, six balls left
    play(ref, call=(5, "fl"), first=5, drops=[(5, "fl"), (6, "fl"), (7, "fr"), (8, "sl")])
    play(ref, call=(9, "fl"), first=9, drops=[(None, "sr")], cushions=TWO)  # Ann: the 9 missed, one fell
    assert [p.score for p in ref.state.players] == [5, 4] and ref.state.balls_left == 1
    assert ref.state.to_shoot == BOB
    out = play(ref, first=10, fouls=("miss",))  # Bob misses: Ann takes the last ball
    assert not ref.questions and credits(out) == [(ANN, OBJECT)]
    assert ref.state.winner == ANN and ref.state.on_table == () and accounted(ref)


# ---------------------------------------------------------------- issue 27: to the letter
def test_st_19_a_durak_the_giver_pockets_uses_up_the_handicap():
    # «первый забитый им шар (или несколько по уговору) идут на счет соперника, далее счет
    # шаров идет по обычным правилам»: the giver's first pocketed ball, whatever it is
    ref = sib(handicap=1, handicap_giver=0)
    play(ref, first=1, cushions=TWO)  # Ann gives and breaks, nothing down: Bob
    play(ref, call=(3, "fl"), first=3, cushions=TWO)  # Bob misses: Ann
    out = play(ref, call=(4, "fl"), first=4, drops=[(6, "sr")], cushions=TWO)  # a «дурак»
    assert credits(out) == [(BOB, 6)]
    assert Noted("handicap", "6", about=(("ball", 6), ("to", BOB))) in out
    play(ref, call=(3, "fl"), first=3, cushions=TWO)  # Bob misses: Ann
    out = play(ref, call=(4, "fl"), first=4, drops=[(4, "fl")])
    assert credits(out) == [(ANN, 4)]  # the handicap is used up: 1:1, not 0:2
    assert [p.score for p in ref.state.players] == [1, 1]


def test_st_19_a_ball_the_giver_pockets_on_a_foul_uses_up_the_handicap():
    ref = sib(handicap=1, handicap_giver=0)
    play(ref, first=1, cushions=TWO)
    play(ref, call=(3, "fl"), first=3, cushions=TWO)
    out = play(ref, call=(4, "fl"), first=4, drops=[(6, "sr")], fouls=("push",))
    assert credits(out) == [(BOB, 6)] and Noted("handicap", "6", about=(
        ("ball", 6), ("to", BOB))) in out
    out = answer(ref, 2)  # the penalty ball: never the giver's pocketing
    assert credits(out) == [(BOB, 2)] and not [d for d in out if isinstance(d, Noted)]
    answer(ref, "hand_back")
    out = play(ref, call=(4, "fl"), first=4, drops=[(4, "fl")])
    assert credits(out) == [(ANN, 4)]


def test_st_20_after_a_penalty_ball_the_player_who_last_pocketed_shoots_first():
    # «Первым бьет игрок, последним забившим шар» / «Начинает серию игрок, забивший
    # последний шар»: a penalty ball is nobody's pocketing
    ref = scored(4, 4)  # Ann pocketed last (her «дураки» went to Bob); 9 and 10 left, Bob on
    play(ref, call=(9, "fl"), first=9, drops=[(9, "fl")])  # Bob 5, Bob continues
    out = play(ref, call=(10, "fl"), first=None)  # Bob misses: Ann takes the 10, 5:5
    assert credits(out) == [(ANN, 10)]
    assert ShootoutStarted(BOB) in out and ref.state.to_shoot == BOB


def test_st_20_after_a_ball_off_the_table_the_player_who_last_pocketed_shoots_first():
    ref = scored(5, 3)  # 9 and 10 left, Bob to shoot; Ann pocketed last
    play(ref, call=(9, "fl"), first=9, drops=[(9, "fl")])  # Bob 4
    out = play(ref, call=(10, "fl"), first=10, off=(10,), cushions=TWO)
    assert credits(out) == [(ANN, 10)] and GameWon(ANN, 1, "six_balls") in out
    ref = scored(4, 4)
    play(ref, call=(9, "fl"), first=9, drops=[(9, "fl")])  # Bob 5: the last to pocket
    out = play(ref, call=(10, "fl"), first=10, off=(10,), cushions=TWO)  # Ann's, 5:5
    assert ShootoutStarted(BOB) in out


def test_st_21_a_foul_in_igra_is_not_a_miss_the_turn_passes_by_default():
    # «Если один из игроков в «игре» промахивается по прицельному шару, он проигрывает»:
    # only the miss is named; a foul scores nothing
    ref = after_blank_bullet()
    play(ref, kind="igra", first=1, cushions=("f",))  # Ann declared «Игра»; Bob left it
    out = play(ref, first=1, drops=[(None, "fl")], fouls=("touched_ball",))
    assert fouls_of(out) == [(Foul.TOUCHED_BALL,)] and ref.state.status is Status.SHOOTOUT
    assert BallSpotted(1, Spot.FOOT_SPOT) in out and out[-1] == TurnPassed(BOB, InHand.NONE)
    ref = scored(5, 5, igra_foul="loses")
    play(ref, first=1, cushions=("f",))
    play(ref, kind="igra", first=1, cushions=("f",))
    out = play(ref, first=1, fouls=("touched_ball",))
    assert GameWon(BOB, 1, "igra_foul") in out


def test_st_18_interference_asks_the_injured_player_by_default():
    # «По желанию пострадавшего положение шаров может быть восстановлено.»
    ref = after_break()
    play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")], special="interference")
    (q,) = ref.questions
    assert (q.topic, q.player) == ("interference", BOB)
