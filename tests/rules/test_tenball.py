"""Ten-ball, rule by rule (TB-n of docs/rules.md)."""

from __future__ import annotations

import dataclasses

import pytest

from rules import Foul, InHand, InvalidInput, ShotAmended, Status
from rules.decisions import (
    BallSpotted,
    BallStaysDown,
    FoulCalled,
    GameRestarted,
    GameWon,
    MatchWon,
    Noted,
    ShooterContinues,
    TurnPassed,
    WarningIssued,
)
from rules.facts import Call, Forfeit, Pocket, Rail, ShotKind
from tests.rules.build import answer, new, play, shot

ALL = list(range(1, 11))


def after_break(**options: object):  # a legal break that pocketed nothing: Bob to shoot
    ref = new(**options)
    play(ref, first=1, cushions=("f", "lf", "rf", "h"))
    return ref


def after_break_with_pot(**options: object):  # Ann broke and made the 2: Ann continues
    ref = new(**options)
    play(ref, first=1, drops=[(2, "fl")])
    return ref


def fouls_of(decisions):
    return [d.fouls for d in decisions if isinstance(d, FoulCalled)]


# ---------------------------------------------------------------- TB-1
def test_tb_1_two_players_ten_balls():
    ref = new()
    assert ref.snapshot()["on_table"] == ALL
    with pytest.raises(InvalidInput, match="2 players"):
        new(players=("Ann", "Bob", "Cy"))


def test_tb_1_lowest_ball_must_be_hit_first():
    ref = after_break()
    out = play(ref, call=(3, "fl"), first=3, drops=[(3, "fl")])
    assert fouls_of(out) == [(Foul.WRONG_BALL_FIRST,)]
    assert ref.state.to_shoot == 0 and ref.state.ball_in_hand is InHand.ANYWHERE


def test_tb_1_one_ball_per_call():
    ref = after_break()
    with pytest.raises(InvalidInput, match="1 called ball"):
        ref.check_call((Call(1, Pocket.FOOT_LEFT), Call(2, Pocket.FOOT_RIGHT)))


# ---------------------------------------------------------------- TB-2
def test_tb_2_ten_on_the_break_wins_by_default():
    ref = new()
    out = play(ref, first=1, drops=[(10, "sl")])
    assert GameWon(0, 1, "ten_on_the_break") in out
    assert ref.snapshot()["status"] == "match_over" and ref.state.winner == 0


def test_tb_2_option_spots_a_ten_made_on_the_break():
    ref = new(ten_on_break="spot")
    out = play(ref, first=1, drops=[(10, "sl"), (4, "fr")])
    assert BallSpotted(10, "foot_spot") in out and BallStaysDown(4) in out
    assert 10 in ref.state.on_table and ref.state.to_shoot == 0
    assert ref.snapshot()["status"] == "in_play"


def test_tb_2_legally_called_ten_wins_even_as_a_combination():
    ref = after_break()
    out = play(ref, call=(10, "fr"), first=1, drops=[(10, "fr")])
    assert GameWon(1, 1, "ten_pocketed") in out


def test_tb_2_ten_in_the_wrong_pocket_is_spotted_not_a_win():
    ref = after_break()
    out = play(ref, call=(10, "fr"), first=1, drops=[(10, "fl")])
    assert not any(isinstance(d, GameWon) for d in out)
    assert BallSpotted(10, "foot_spot") in out


# ---------------------------------------------------------------- TB-3
def test_tb_3_lag_winner_chooses_breaker_and_breaks_alternate():
    ref = new(race_to=3, breaker=1)
    assert ref.state.to_shoot == 1
    play(ref, first=1, drops=[(10, "fl")])  # Bob wins game 1 on the break
    assert ref.snapshot()["status"] == "game_over" and ref.state.to_shoot == 0
    play(ref, first=1, drops=[(10, "fl")])  # game 2: Ann breaks
    assert ref.state.players[0].games == 1 and ref.state.players[1].games == 1
    assert ref.state.to_shoot == 1  # game 3: Bob breaks again


def test_tb_3_option_winner_breaks():
    ref = new(race_to=3, breaker=0, break_order="winner")
    play(ref, first=1, drops=[(10, "fl")])
    assert ref.state.to_shoot == 0


# ---------------------------------------------------------------- TB-4
def test_tb_4_rack_puts_every_ball_up_and_breaker_in_the_kitchen():
    snap = new(breaker=1).snapshot()
    assert snap["on_table"] == ALL and snap["status"] == "break"
    assert snap["to_shoot"] == 1 and snap["ball_in_hand"] == "kitchen"


# ---------------------------------------------------------------- TB-5
def test_tb_5_break_without_four_balls_to_a_rail_is_a_foul():
    ref = new()
    out = play(ref, first=1, fouls=("bad_break",))
    assert fouls_of(out) == [(Foul.BAD_BREAK,)]
    assert ref.state.to_shoot == 1 and ref.state.ball_in_hand is InHand.ANYWHERE


def test_tb_5_legal_break_with_nothing_down_passes_the_turn():
    ref = new()
    out = play(ref, first=1, cushions=("f", "lf", "rf", "f"))
    assert Noted("four_balls_presumed", "4") in out  # sensors cannot count balls
    assert out[-1] == TurnPassed(1, InHand.NONE)


@pytest.mark.parametrize("hits", [(), ("f",), ("f", "lf", "rf")], ids=["none", "one", "three"])
def test_tb_5_fewer_than_four_cushion_hits_on_a_break_is_a_foul(hits):
    ref = new()
    out = play(ref, first=1, cushions=hits)
    assert fouls_of(out) == [(Foul.BAD_BREAK,)]
    assert out[-1] == TurnPassed(1, InHand.ANYWHERE)
    assert ref.state.players[0].consecutive_fouls == 1  # counts toward three fouls (TB-12)


def test_tb_5_a_ball_down_on_the_break_needs_no_cushions():
    ref = new()
    out = play(ref, first=1, cushions=(), drops=[(4, "fl")])
    assert not fouls_of(out) and out[-1] == ShooterContinues(0)


def test_tb_5_cushions_unknown_are_presumed_and_noted_by_default():
    ref = new()
    out = play(ref, first=1)
    assert Noted("four_balls_presumed", "unknown") in out
    assert not fouls_of(out) and out[-1] == TurnPassed(1, InHand.NONE)


def test_tb_5_a_cushion_sensor_out_of_order_makes_too_few_hits_unknown():
    ref = new()
    out = play(ref, dataclasses.replace(shot(first=1, cushions=("f", "h")),
                                        deaf_rails=(Rail.LEFT_FOOT,)))
    assert not fouls_of(out) and Noted("four_balls_presumed", "unknown") in out
    ref = new()
    out = play(ref, dataclasses.replace(shot(first=1, cushions=("f", "h", "lh", "rh")),
                                        deaf_rails=(Rail.LEFT_FOOT,)))
    assert Noted("four_balls_presumed", "4") in out  # four seen: enough


def test_tb_5_a_referees_count_of_balls_stands_over_the_cushion_hits():
    ref = new()
    out = play(ref, first=1, cushions=("f", "f"))  # two balls on the foot rail at once: 2 hits
    assert fouls_of(out) == [(Foul.BAD_BREAK,)]
    out = ref.feed(ShotAmended(dataclasses.replace(shot(first=1, cushions=("f", "f")),
                                                   balls_to_cushion=4)))
    assert not fouls_of(out) and out[-1] == TurnPassed(1, InHand.NONE)
    assert ref.state.players[0].consecutive_fouls == 0
    out = ref.feed(ShotAmended(dataclasses.replace(shot(first=1, cushions=("f", "lf", "h", "rh")),
                                                   balls_to_cushion=3)))
    assert fouls_of(out) == [(Foul.BAD_BREAK,)]


@pytest.mark.parametrize("reached, foul", [(True, False), (False, True)])
def test_tb_5_cushions_unknown_can_be_asked(reached, foul):
    ref = new(cushions_unknown="ask")
    play(ref, first=1)
    (q,) = ref.questions
    assert q.kind == "confirm"
    out = answer(ref, reached)
    assert fouls_of(out) == ([(Foul.BAD_BREAK,)] if foul else [])


def test_tb_5_break_must_hit_the_one_first():
    ref = new()
    out = play(ref, first=5)
    assert fouls_of(out) == [(Foul.WRONG_BALL_FIRST,)]


# ---------------------------------------------------------------- TB-6
def test_tb_6_push_out_only_right_after_a_legal_break():
    ref = after_break()
    ref.check_call((), ShotKind.PUSH_OUT)  # allowed now
    play(ref, first=1, cushions=("f",))
    with pytest.raises(InvalidInput, match="push-out"):
        ref.check_call((), ShotKind.PUSH_OUT)


def test_tb_6_push_out_not_allowed_after_a_foul_on_the_break():
    ref = new()
    play(ref, first=1, fouls=("bad_break",))
    with pytest.raises(InvalidInput, match="push-out"):
        ref.check_call((), ShotKind.PUSH_OUT)


def test_tb_6_push_out_ignores_wrong_ball_and_no_rail_and_offers_the_choice():
    ref = after_break()
    out = play(ref, kind="push_out", first=7, cushions=())
    assert not fouls_of(out)
    (q,) = ref.snapshot()["questions"]
    assert q["kind"] == "option" and q["player"] == 0 and q["choices"] == ["shoot", "hand_back"]
    answer(ref, "hand_back")
    assert ref.state.to_shoot == 1 and not ref.questions


def test_tb_6_ten_on_a_push_out_is_spotted_without_a_foul():
    ref = after_break()
    out = play(ref, kind="push_out", first=1, drops=[(10, "sr"), (5, "fl")])
    assert BallSpotted(10, "foot_spot") in out and BallStaysDown(5) in out
    assert not fouls_of(out)
    answer(ref, "shoot")
    assert ref.state.to_shoot == 0 and 10 in ref.state.on_table and 5 not in ref.state.on_table


def test_tb_6_scratch_on_a_push_out_is_still_a_foul():
    ref = after_break()
    out = play(ref, kind="push_out", first=4, drops=[("cue", "hl")])
    assert fouls_of(out) == [(Foul.SCRATCH,)]
    assert not ref.questions


# ---------------------------------------------------------------- TB-7
def test_tb_7_missing_call_is_asked_by_default():
    ref = after_break()
    play(ref, first=1, drops=[(1, "fl")])
    (q,) = ref.snapshot()["questions"]
    assert q["kind"] == "confirm"
    answer(ref, True)
    assert ref.state.to_shoot == 1  # counted as called: Bob continues


def test_tb_7_missing_call_answered_no_is_not_a_legal_pot():
    ref = after_break()
    play(ref, first=1, drops=[(1, "fl")])
    answer(ref, False)
    (q,) = ref.snapshot()["questions"]  # TB-9: Ann may shoot or hand back
    assert q["kind"] == "option" and q["player"] == 0


@pytest.mark.parametrize(("how", "to_shoot", "questions"), [("count", 1, 0), ("no_count", 0, 1)])
def test_tb_7_missing_call_options(how, to_shoot, questions):
    ref = after_break(missing_call=how)
    play(ref, first=1, drops=[(1, "fl")])
    assert ref.state.to_shoot == to_shoot and len(ref.questions) == questions


# ---------------------------------------------------------------- TB-8
def test_tb_8_safety_with_nothing_down_ends_the_inning():
    ref = after_break()
    out = play(ref, kind="safety", call=None, first=1, cushions=("lf",))
    assert out[-1] == TurnPassed(0)


def test_tb_8_ball_pocketed_on_a_safety_gives_the_opponent_the_choice():
    ref = after_break()
    play(ref, kind="safety", first=1, drops=[(1, "fl")])
    (q,) = ref.questions
    assert q.player == 0
    answer(ref, "hand_back")
    assert ref.state.to_shoot == 1 and 1 not in ref.state.on_table


def test_tb_8_no_safety_on_the_break():
    with pytest.raises(InvalidInput, match="safety"):
        new().check_call((), ShotKind.SAFETY)


# ---------------------------------------------------------------- TB-9
@pytest.mark.parametrize(
    "drops", [[(1, "fr")], [(4, "fl")], [(4, "fl"), (1, "sr")]],
    ids=["called-ball-wrong-pocket", "other-ball-fell", "both"],
)
def test_tb_9_called_shot_missed_but_ball_down_gives_choice(drops):
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, drops=drops)
    assert not fouls_of(out)
    (q,) = ref.questions
    assert q.kind == "option" and q.player == 0 and ref.snapshot()["status"] == "awaiting"
    for ball, _ in drops:
        assert ball not in ref.state.on_table  # balls stay down
    answer(ref, "shoot")
    assert ref.state.to_shoot == 0 and ref.snapshot()["status"] == "in_play"


# ---------------------------------------------------------------- TB-10
@pytest.mark.parametrize(
    "kw",
    [
        {"call": (1, "fl"), "first": 1, "drops": [(1, "fl"), (10, "fr"), ("cue", "sl")]},  # foul
        {"call": (1, "fl"), "first": 1, "drops": [(1, "fl"), (10, "fr")]},  # uncalled
        {"call": (10, "fl"), "first": 1, "drops": [(10, "fr")]},  # wrong pocket
        {"call": (1, "fl"), "first": 1, "drops": [(1, "fl")], "off": (10,)},  # off the table
    ],
    ids=["foul", "uncalled", "wrong-pocket", "off-table"],
)
def test_tb_10_ten_is_spotted(kw):
    ref = after_break()
    out = play(ref, **kw)
    assert BallSpotted(10, "foot_spot") in out
    assert 10 in ref.state.on_table


def test_tb_10_option_balls_off_the_table_are_spotted_others_never():
    ref = after_break(off_table_balls="spotted")
    out = play(ref, call=(1, "fl"), first=1, drops=[(1, "fl"), (5, "sr")], off=(7,))
    assert BallSpotted(7, "foot_spot") in out
    assert BallStaysDown(1) in out and BallStaysDown(5) in out
    assert fouls_of(out) == [(Foul.BALL_OFF_TABLE,)]
    assert ref.state.on_table == (2, 3, 4, 6, 7, 8, 9, 10)


def test_tb_10_a_spotted_ball_that_is_then_the_lowest_is_noted():
    ref = after_break(off_table_balls="spotted")
    out = play(ref, call=(1, "fl"), first=1, drops=[(1, "fl")], off=(2,))
    assert fouls_of(out) == [(Foul.BALL_OFF_TABLE,)]
    assert BallSpotted(2, "foot_spot") in out and Noted("lowest_ball_spotted", "2") in out
    assert min(ref.state.on_table) == 2


def test_tb_10_balls_off_the_table_stay_off_but_the_ten():
    # §9.9: «Другие прицельные шары не выставляются ни при каких условиях.»
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, drops=[(1, "fl")], off=(2, 10))
    assert BallStaysDown(2) in out and BallSpotted(10, "foot_spot") in out
    assert BallSpotted(2, "foot_spot") not in out
    assert not any(isinstance(d, Noted) and d.what == "lowest_ball_spotted" for d in out)
    assert ref.state.on_table == (3, 4, 5, 6, 7, 8, 9, 10)
    assert ref.state.players[1].score == 1  # only the ball Bob pocketed


# ---------------------------------------------------------------- TB-11
def test_tb_11_standard_foul_gives_ball_in_hand_anywhere():
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, drops=[(1, "fl")], fouls=("double_hit",))
    assert fouls_of(out) == [(Foul.DOUBLE_HIT,)]
    assert out[-1] == TurnPassed(0, InHand.ANYWHERE)
    assert 1 not in ref.state.on_table  # stays down even on a foul


@pytest.mark.parametrize("kw", [{"drops": [("cue", "fr")]}, {"off": ("cue",)}])
def test_tb_11_scratch_gives_ball_in_hand_behind_the_head_string(kw):
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, **kw)
    assert out[-1] == TurnPassed(0, InHand.KITCHEN)


def test_tb_11_scratch_option_anywhere():
    ref = after_break(scratch_in_hand="anywhere")
    out = play(ref, call=(1, "fl"), first=1, drops=[("cue", "fr")])
    assert out[-1] == TurnPassed(0, InHand.ANYWHERE)


def test_tb_11_no_rail_after_contact_is_a_foul():
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, cushions=())
    assert fouls_of(out) == [(Foul.NO_RAIL,)]


def test_tb_11_unknown_cushions_are_presumed_legal_and_noted():
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1)
    assert Noted("rail_presumed") in out
    assert not fouls_of(out) and out[-1] == TurnPassed(0)


@pytest.mark.parametrize("reached, foul", [(True, []), (False, [(Foul.NO_RAIL,)])])
def test_tb_11_unknown_cushions_can_be_asked(reached, foul):
    ref = after_break(cushions_unknown="ask")
    play(ref, call=(1, "fl"), first=1)
    (q,) = ref.questions
    assert q.kind == "confirm"
    assert fouls_of(answer(ref, reached)) == foul


def test_tb_11_hits_presumed_after_contact_are_noted():
    ref = after_break()
    out = play(ref, dataclasses.replace(shot(call=(1, "fl"), first=1, cushions=("f",)),
                                        cushions_presumed=True))
    assert Noted("cushions_presumed_after_contact") in out and not fouls_of(out)


@pytest.mark.parametrize("count, foul", [(0, [(Foul.NO_RAIL,)]), (1, [])])
def test_tb_11_declared_cushions_after_contact_stand_over_the_sensors(count, foul):
    ref = after_break()
    record = dataclasses.replace(shot(call=(1, "fl"), first=1, cushions=("f", "h")),
                                 cushions_presumed=True, cushion_count=count)
    out = play(ref, record)
    assert fouls_of(out) == foul
    assert Noted("cushions_presumed_after_contact") not in out


def test_tb_11_no_rail_is_declarable():
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, cushions=("f",), fouls=("no_rail",))
    assert fouls_of(out) == [(Foul.NO_RAIL,)]


def test_tb_11_cue_ball_touching_nothing_is_a_miss():
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=None)
    assert fouls_of(out) == [(Foul.MISS,)]


def test_tb_11_unknown_first_contact_can_be_asked():
    ref = after_break(presume_legal_contact=False)
    play(ref, call=(1, "fl"), drops=[(1, "fl")])
    (q,) = ref.questions
    assert q.kind == "confirm"
    out = answer(ref, False)
    assert fouls_of(out) == [(Foul.WRONG_BALL_FIRST,)]


# ---------------------------------------------------------------- TB-12
def test_tb_12_three_consecutive_fouls_lose_the_game_with_a_warning_at_two():
    ref = new(race_to=2)
    play(ref, first=1, fouls=("bad_break",))  # Ann: foul 1
    play(ref, call=(1, "fl"), first=1)  # Bob misses legally
    out = play(ref, call=(1, "fl"), first=None)  # Ann: foul 2
    assert WarningIssued(0, "two_fouls") in out
    assert ref.snapshot()["players"][0]["consecutive_fouls"] == 2
    play(ref, call=(1, "fl"), first=1)  # Bob
    out = play(ref, call=(1, "fl"), first=1, drops=[("cue", "hl")])  # Ann: foul 3
    assert GameWon(1, 1, "three_fouls") in out
    assert ref.state.players[1].games == 1 and ref.snapshot()["status"] == "game_over"


def test_tb_12_the_finished_games_fouls_are_shown_until_the_next_rack():
    ref = new(race_to=2)
    play(ref, first=1, fouls=("bad_break",))  # Ann: foul 1
    for _ in range(2):
        play(ref, call=(1, "fl"), first=1, cushions=("f",))  # Bob, legal
        play(ref, call=(1, "fl"), first=None)  # Ann: fouls 2 and 3
    snap = ref.snapshot()
    assert snap["status"] == "game_over"
    assert [p["consecutive_fouls"] for p in snap["players"]] == [3, 0]  # as the game ended
    play(ref, first=1, cushions=("f", "h", "lf", "rh"))  # game 2's break (Bob)
    assert [p["consecutive_fouls"] for p in ref.snapshot()["players"]] == [0, 0]


def test_tb_12_a_legal_shot_resets_the_count():
    ref = after_break()
    play(ref, call=(1, "fl"), first=None)  # Bob: foul 1
    play(ref, call=(1, "fl"), first=1)  # Ann
    play(ref, call=(1, "fl"), first=1)  # Bob: legal → reset
    assert ref.state.players[1].consecutive_fouls == 0
    play(ref, call=(1, "fl"), first=1)  # Ann
    out = play(ref, call=(1, "fl"), first=None)  # Bob: foul 1 again, no warning
    assert not any(isinstance(d, WarningIssued) for d in out)


# ---------------------------------------------------------------- TB-13
def test_tb_13_legal_pot_continues_and_other_balls_stay_down():
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, drops=[(1, "fl"), (6, "sl")])
    assert out[-1] == ShooterContinues(1)
    assert ref.state.on_table == (2, 3, 4, 5, 7, 8, 9, 10)


def test_tb_13_no_pot_passes_with_cue_ball_where_it_lies():
    ref = after_break()
    out = play(ref, call=(1, "fl"), first=1, cushions=("rf",))
    assert out[-1] == TurnPassed(0, InHand.NONE)
    assert ref.snapshot()["ball_in_hand"] == "none"


def test_tb_13_a_rack_run_to_the_ten_wins_the_match():
    ref = new(race_to=1)
    play(ref, first=1, drops=[(1, "fl")])
    for ball in range(2, 10):
        play(ref, call=(ball, "fr"), first=ball, drops=[(ball, "fr")])
    out = play(ref, call=(10, "sl"), first=10, drops=[(10, "sl")])
    assert GameWon(0, 1, "ten_pocketed") in out and MatchWon(0) in out
    assert ref.snapshot()["status"] == "match_over"
    with pytest.raises(InvalidInput, match="match is over"):
        play(ref, first=1)


# ---------------------------------------------------------------- TB-14
def test_tb_14_stalemate_rebreaks_by_the_same_breaker():
    ref = new(breaker=1)
    play(ref, first=1, drops=[(3, "fl")])
    play(ref, call=(1, "fl"), first=1)
    out = play(ref, special="stalemate")
    assert GameRestarted(1, 1, "stalemate") in out
    snap = ref.snapshot()
    assert snap["on_table"] == ALL and snap["to_shoot"] == 1 and snap["status"] == "break"
    assert ref.state.status is Status.BREAK


@pytest.mark.parametrize("match", [False, True], ids=["game", "match"])
def test_tb_14_unsportsmanlike_conduct_loses_the_game_or_the_match(match):
    ref = new(race_to=3)
    play(ref, first=1, drops=[(3, "fl")])  # Ann continues
    record = dataclasses.replace(shot(call=(1, "fl"), first=1, cushions=("f",)),
                                 forfeit=Forfeit(0, match=match, reason="abuse of the referee"))
    out = play(ref, record)
    assert out[:2] == [Noted("unsportsmanlike", "abuse of the referee"),
                       GameWon(1, 1, "unsportsmanlike")]
    assert ref.state.players[1].games == 1
    if match:
        assert out[-1] == MatchWon(1) and out.count(MatchWon(1)) == 1
        assert ref.snapshot()["status"] == "match_over" and ref.state.winner == 1
    else:
        assert not any(isinstance(d, MatchWon) for d in out)
        assert ref.snapshot()["status"] == "game_over"


def test_tb_14_only_ten_ball_has_the_penalty_and_only_for_a_player_of_the_match():
    ref = new()
    ref.check_forfeit(1)
    with pytest.raises(InvalidInput, match="player index"):
        ref.check_forfeit(2)
    with pytest.raises(InvalidInput, match="unsportsmanlike"):
        new("siberian-ten").check_forfeit(0)


def test_tb_11_illegal_play_from_behind_the_head_string_gives_ball_in_hand_in_the_kitchen():
    ref = after_break()
    play(ref, call=(1, "fl"), first=1, drops=[("cue", "fr")])  # Bob scratches: Ann from the kitchen
    assert ref.state.ball_in_hand is InHand.KITCHEN
    out = play(ref, call=(1, "fl"), first=1, fouls=("direct_hit_in_kitchen",))
    assert fouls_of(out) == [(Foul.DIRECT_HIT_IN_KITCHEN,)]
    assert out[-1] == TurnPassed(1, InHand.KITCHEN)


@pytest.mark.parametrize("in_hand", ["none", "anywhere"])
def test_tb_11_direct_hit_in_kitchen_only_while_shooting_from_the_kitchen(in_hand):
    ref = after_break()
    if in_hand == "anywhere":
        play(ref, call=(1, "fl"), first=None)  # Bob misses: Ann has ball in hand anywhere
    assert ref.state.ball_in_hand == in_hand
    shooter = ref.state.to_shoot
    out = play(ref, call=(1, "fl"), first=1, cushions=("f",), fouls=("direct_hit_in_kitchen",))
    assert Noted("foul_not_applicable", "direct_hit_in_kitchen") in out
    assert not fouls_of(out) and out[-1] == TurnPassed(1 - shooter, InHand.NONE)
