"""Point pyramid, rule by rule (PP-n of docs/rules.md).

Expected points come from the rules: a ball is worth its number; the ace 10 more, with three
players the 2 too, with four the 3 too; the last ball 10 more; 71 / 51 / 41 wins.
"""

from __future__ import annotations

import dataclasses

import pytest

from rules import Foul, InHand, InvalidInput, Status
from rules.decisions import (
    BallCredited,
    BallSpotted,
    FoulCalled,
    GameDrawn,
    GameWon,
    MatchWon,
    Noted,
    PointsMoved,
    ShooterContinues,
    Spot,
    TurnPassed,
)
from rules.facts import Call, Pocket, ShotKind, ShotRecord
from rules.games.pyramid import total_points
from tests.rules.build import answer, new, play, shot

ALL = list(range(1, 16))
PLAYERS = {2: ("Ann", "Bob"), 3: ("Ann", "Bob", "Cy"), 4: ("Ann", "Bob", "Cy", "Dee")}


def game(n: int = 2, **options: object):
    return new("pyramid", players=PLAYERS[n], **options)


def run(ref, *balls: int, pocket: str = "fl"):
    """The shooter calls the first ball in ``pocket`` and every ball falls there."""
    return play(ref, call=(balls[0], pocket), first=balls[0], drops=[(b, pocket) for b in balls])


def miss(ref):
    """The shooter calls a ball, hits it, and nothing falls: the turn passes."""
    ball = ref.state.on_table[0]
    return play(ref, call=(ball, "fl"), first=ball, cushions=("lf",))


def scores(ref) -> list[int]:
    return [p["score"] for p in ref.snapshot()["players"]]


def credited(decisions) -> list[tuple[int, int]]:
    return [(d.ball, d.points) for d in decisions if isinstance(d, BallCredited)]


def fouls_of(decisions):
    return [d.fouls for d in decisions if isinstance(d, FoulCalled)]


# ---------------------------------------------------------------- PP-1
@pytest.mark.parametrize("n", [2, 3, 4])
def test_pp_1_two_to_four_players_and_fifteen_balls(n):
    snap = game(n).snapshot()
    assert snap["on_table"] == ALL and len(snap["players"]) == n
    assert scores(game(n)) == [0] * n


@pytest.mark.parametrize("players", [("Ann",), ("A", "B", "C", "D", "E")])
def test_pp_1_one_or_five_players_are_refused(players):
    with pytest.raises(InvalidInput, match="2–4 players"):
        new("pyramid", players=players)


def test_pp_1_turn_rotates_through_every_player():
    ref = game(4)
    seen = []
    for _ in range(5):
        seen.append(ref.state.to_shoot)
        miss(ref)
    assert seen == [0, 1, 2, 3, 0]


def test_pp_1_only_the_object_balls_can_be_called():
    ref = game()
    with pytest.raises(InvalidInput, match="cue ball"):
        ref.check_call((Call("cue", Pocket.FOOT_LEFT),))
    with pytest.raises(InvalidInput, match="1 called ball"):
        ref.check_call((Call(1, Pocket.FOOT_LEFT), Call(2, Pocket.FOOT_RIGHT)))
    with pytest.raises(InvalidInput, match="push-out"):
        ref.check_call((), ShotKind.PUSH_OUT)


# ---------------------------------------------------------------- PP-2
def test_pp_2_rack_puts_every_ball_up_and_the_starter_plays_from_the_house():
    snap = game(3, breaker=1).snapshot()
    assert snap["on_table"] == ALL and snap["status"] == "break"
    assert snap["to_shoot"] == 1 and snap["ball_in_hand"] == "kitchen"


# ---------------------------------------------------------------- PP-3
@pytest.mark.parametrize(
    ("n", "ball", "points"),
    [
        (2, 1, 11), (2, 2, 2), (2, 3, 3), (2, 4, 4), (2, 15, 15),
        (3, 1, 11), (3, 2, 12), (3, 3, 3), (3, 9, 9),
        (4, 1, 11), (4, 2, 12), (4, 3, 13), (4, 14, 14),
    ],
)
def test_pp_3_ball_values_by_number_of_players(n, ball, points):
    ref = game(n)
    out = run(ref, ball)
    assert credited(out) == [(ball, points)]
    assert scores(ref) == [points] + [0] * (n - 1)


def test_pp_3_ace_is_worth_eleven():
    ref = game()
    assert credited(run(ref, 1)) == [(1, 11)]


@pytest.mark.parametrize(("n", "total"), [(2, 140), (3, 150), (4, 160)])
def test_pp_3_totals(n, total):
    assert total_points(n) == total


def test_pp_3_last_ball_is_worth_ten_more_whatever_its_number():
    ref = game()
    run(ref, 15, 14, 13, 12, 3)  # Ann 57
    miss(ref)
    run(ref, 11, 10, 9, 8, 7, 6, 4, 2)  # Bob 57
    miss(ref)
    run(ref, 1)  # Ann 68
    miss(ref)
    assert ref.state.on_table == (5,)
    out = run(ref, 5)  # Bob: 5 + 10
    assert credited(out) == [(5, 15)]
    assert scores(ref) == [68, 72]


def test_pp_3_clearing_several_balls_at_once_adds_the_ten_once():
    ref = game(4)
    run(ref, 15, 14)  # Ann 29
    miss(ref)
    run(ref, 13, 12, 11)  # Bob 36
    miss(ref)
    run(ref, 10, 9, 8, 7)  # Cy 34
    miss(ref)
    run(ref, 6, 5, 4)  # Dee 15
    miss(ref)
    miss(ref)
    miss(ref)
    miss(ref)
    assert ref.state.on_table == (1, 2, 3) and ref.state.to_shoot == 3
    out = run(ref, 3, 2, 1)  # Dee: 13 + 12 + 11 + 10 once = 46
    assert sum(p for _, p in credited(out)) == 46
    assert scores(ref) == [29, 36, 34, 61]


# ---------------------------------------------------------------- PP-4
@pytest.mark.parametrize(
    ("n", "balls", "wins"),
    [
        (2, (15, 14, 13, 12, 11, 6), True),  # 71
        (2, (15, 14, 13, 12, 11, 5), False),  # 70
        (3, (15, 14, 13, 9), True),  # 51
        (3, (15, 14, 13, 8), False),  # 50
        (4, (15, 14, 12), True),  # 41
        (4, (15, 14, 11), False),  # 40
    ],
)
def test_pp_4_first_to_the_target_wins_at_once_with_balls_left(n, balls, wins):
    ref = game(n)
    out = run(ref, *balls)
    if wins:
        assert GameWon(0, 1, "points") in out and MatchWon(0) in out
        assert ref.snapshot()["status"] == "match_over" and ref.state.on_table
    else:
        assert out[-1] == ShooterContinues(0)
        assert ref.snapshot()["status"] == "in_play"


@pytest.mark.parametrize(
    ("n", "plan", "final"),
    [
        # 70:70 — the one on 70 ("своя") cannot be caught, the last ball gives a draw
        (2, [(1, 15, 14, 13, 12, 5), (2, 3, 4, 6, 7, 8, 9, 10, 11)], [70, 70]),
        (3, [(15, 14, 13, 8), (2, 1, 12, 11, 4), (3, 5, 6, 7, 9, 10)], [50, 50, 50]),
        (4, [(15, 14, 11), (13, 12, 10, 5), (1, 2, 9, 8), (3, 4, 6, 7)], [40, 40, 40, 40]),
    ],
    ids=["70:70", "50:50:50", "40:40:40:40"],
)
def test_pp_4_draw_when_nobody_can_reach_the_target(n, plan, final):
    ref = game(n)
    for i, balls in enumerate(plan):
        out = run(ref, *balls)
        if i < len(plan) - 1:
            miss(ref)
    assert GameDrawn(1) in out and not any(isinstance(d, GameWon) for d in out)
    assert scores(ref) == final and sum(final) == {2: 140, 3: 150, 4: 160}[n]
    snap = ref.snapshot()
    assert snap["draw"] is True and snap["winner"] is None and snap["status"] == "game_over"


def test_pp_4_penalty_points_that_reach_the_target_win():
    ref = game()
    miss(ref)
    run(ref, 15, 14, 13, 12, 11, 2)  # Bob 67
    miss(ref)
    out = play(ref, call=(3, "fl"), first=3, drops=[("cue", "fr")])  # Ann scratches
    assert PointsMoved(0, 1, 5) in out and GameWon(1, 1, "penalty_points") in out
    assert scores(ref) == [-5, 72]


@pytest.mark.parametrize("svoya", [True, False])
def test_pp_4_svoya_a_player_on_70_has_secured_a_draw(svoya):
    ref = game(handicap=[0, 10], svoya=svoya)  # Bob starts on 10: the rack is worth 150
    run(ref, 15, 14, 13, 12, 11, 5)  # Ann 70: «своя»
    miss(ref)
    out = run(ref, 1, 2, 3, 4, 6, 7, 8, 9, 10)  # Bob takes the rest, the last ball too
    assert scores(ref) == [70, 80]
    if svoya:
        assert Noted("svoya", "0") in out and GameDrawn(1) in out
        assert not any(isinstance(d, GameWon) for d in out) and ref.snapshot()["draw"] is True
    else:
        assert GameWon(1, 1, "points") in out


def test_pp_4_svoya_secures_a_draw_only_against_the_last_ball():
    ref = game(handicap=[0, 30])
    run(ref, 15, 14, 13, 12, 11, 5)  # Ann 70: «своя»
    miss(ref)
    out = run(ref, 1, 2, 3, 4, 6, 7, 8)  # Bob 71 with the 9 and the 10 still on the table
    assert GameWon(1, 1, "points") in out and not any(isinstance(d, Noted) for d in out)


# ---------------------------------------------------------------- PP-5
def test_pp_5_ball_pocket_needs_only_ball_and_pocket():
    ref = game()
    out = play(ref, call=(7, "sr"), first=4, drops=[(7, "sr")])
    assert credited(out) == [(7, 7)] and not ref.questions


def clean_shot(manner: str | None, **kw) -> ShotRecord:
    return dataclasses.replace(shot(**kw), manner=manner)


def test_pp_5_clean_designation_the_referee_confirms_the_manner():
    ref = game(3, call_mode="clean")
    out = play(ref, clean_shot("off the 4, into the right side", call=(7, "sr"), first=4,
                               drops=[(7, "sr")]))
    assert not credited(out)
    (q,) = ref.snapshot()["questions"]
    assert (q["kind"], q["topic"]) == ("confirm", "played_as_called")
    assert q["about"] == {"ball": 7, "pocket": "sr", "manner": "off the 4, into the right side"}
    out = answer(ref, True)
    assert credited(out) == [(7, 7)] and ref.state.to_shoot == 0


def test_pp_5_clean_designation_not_played_as_called_scores_nothing():
    ref = game(3, call_mode="clean")
    play(ref, clean_shot("a double off the long rail", call=(7, "sr"), first=7,
                         drops=[(7, "sr")]))
    out = answer(ref, False)
    assert not credited(out) and BallSpotted(7, Spot.FOOT_SPOT) in out
    assert out[-1] == TurnPassed(1) and 7 in ref.state.on_table and scores(ref) == [0, 0, 0]


def test_pp_5_clean_designation_without_a_manner_scores_nothing():
    ref = game(call_mode="clean")
    out = play(ref, call=(7, "sr"), first=7, drops=[(7, "sr")])
    assert not credited(out) and out[-1] == TurnPassed(1) and not ref.questions


def test_pp_5_the_last_ball_needs_no_number():
    ref = game()
    run(ref, 15, 14, 13, 12, 3)
    miss(ref)
    run(ref, 11, 10, 9, 8, 7, 6, 4, 2)
    miss(ref)
    run(ref, 1)
    miss(ref)
    assert ref.state.on_table == (5,)
    ref.check_call((Call(9, Pocket.HEAD_LEFT),))  # any number: only the pocket matters
    out = play(ref, call=(9, "hl"), first=5, drops=[(5, "hl")])
    assert credited(out) == [(5, 15)]


def test_pp_5_a_called_ball_must_be_on_the_table_while_several_are():
    ref = game()
    run(ref, 9)
    with pytest.raises(InvalidInput, match="not on the table"):
        ref.check_call((Call(9, Pocket.FOOT_LEFT),))


# ---------------------------------------------------------------- PP-6
def test_pp_6_called_ball_as_called_every_ball_that_fell_scores():
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(12, "sr"), (7, "fl"), (1, "hr")])
    assert sorted(credited(out)) == [(1, 11), (7, 7), (12, 12)]
    assert out[-1] == ShooterContinues(0) and scores(ref) == [30, 0]
    assert ref.snapshot()["players"][0]["score"] == 30
    assert ref.state.players[0].balls == (12, 7, 1)
    assert not {1, 7, 12} & set(ref.state.on_table)


@pytest.mark.parametrize(
    ("drops", "spotted"),
    [
        ([(7, "fr")], [7]),  # the called ball in another pocket
        ([(9, "fl")], [9]),  # another ball in the called pocket
        ([(7, "sr"), (9, "fl")], [7, 9]),
    ],
    ids=["wrong-pocket", "other-ball", "both"],
)
def test_pp_6_called_ball_not_as_called_scores_nothing_and_what_fell_is_spotted(drops, spotted):
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=drops)
    assert not credited(out) and not fouls_of(out)
    assert [(d.ball, d.spot) for d in out if isinstance(d, BallSpotted)] == [
        (spotted[0], Spot.FOOT_SPOT), *((b, Spot.FOOT_RAIL) for b in spotted[1:])]
    assert out[-1] == TurnPassed(1) and ref.state.on_table == tuple(ALL)
    assert scores(ref) == [0, 0]


def test_pp_6_no_call_recorded_is_asked_and_no_means_nothing_scores():
    ref = game()
    play(ref, first=7, drops=[(7, "fl")])
    (q,) = ref.questions
    assert q.kind == "confirm" and q.player == 0
    out = answer(ref, False)
    assert BallSpotted(7, Spot.FOOT_SPOT) in out and out[-1] == TurnPassed(1)


def test_pp_6_no_call_recorded_answered_yes_scores():
    ref = game()
    play(ref, first=7, drops=[(7, "fl")])
    out = answer(ref, True)
    assert credited(out) == [(7, 7)] and out[-1] == ShooterContinues(0)


@pytest.mark.parametrize(("how", "points"), [("count", 7), ("no_count", 0)])
def test_pp_6_missing_call_options(how, points):
    ref = game(missing_call=how)
    play(ref, first=7, drops=[(7, "fl")])
    assert not ref.questions and scores(ref) == [points, 0]


def test_pp_6_a_safety_never_scores():
    ref = game()
    out = play(ref, kind="safety", first=7, drops=[(7, "fl")])
    assert BallSpotted(7, Spot.FOOT_SPOT) in out and out[-1] == TurnPassed(1)
    with pytest.raises(InvalidInput, match="safety"):
        ref.check_call((Call(3, Pocket.FOOT_LEFT),), ShotKind.SAFETY)


# ---------------------------------------------------------------- PP-7
def test_pp_7_ball_that_bounced_out_stays_where_it_stopped():
    ref = game()
    out = play(ref, call=(7, "fl"), first=7)  # the 7 rattled out: no drop
    assert not any(isinstance(d, BallSpotted) for d in out) and not credited(out)
    assert out[-1] == TurnPassed(1) and 7 in ref.state.on_table


def test_pp_7_a_ball_that_bounced_out_on_a_scoring_shot_does_not_count():
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl")])  # the 9 came back out
    assert credited(out) == [(7, 7)] and 9 in ref.state.on_table
    assert not any(isinstance(d, BallSpotted) for d in out)


# ---------------------------------------------------------------- PP-8
FIVE_POINT = [
    ({"drops": [("cue", "fr")]}, Foul.SCRATCH),
    ({"off": ("cue",)}, Foul.CUE_OFF_TABLE),
    ({"fouls": ("wrong_cue_ball",)}, Foul.WRONG_CUE_BALL),
    ({"first": None}, Foul.MISS),
    ({"fouls": ("miss",)}, Foul.MISS),
    ({"fouls": ("butt_or_side",)}, Foul.BUTT_OR_SIDE),
    ({"fouls": ("touched_ball",)}, Foul.TOUCHED_BALL),
    ({"fouls": ("moving_balls",)}, Foul.MOVING_BALLS),
    ({"fouls": ("game_over_touch",)}, Foul.GAME_OVER_TOUCH),
]


@pytest.mark.parametrize(("kw", "foul"), FIVE_POINT, ids=[str(f) for _, f in FIVE_POINT])
def test_pp_8_five_point_fouls_move_points_to_the_next_player(kw, foul):
    ref = game(3)
    miss(ref)  # Bob to shoot
    kw = {"first": 4, **kw}
    out = play(ref, call=(7, "fl"), **kw)
    assert fouls_of(out) == [(foul,)]
    assert PointsMoved(1, 2, 5) in out
    assert scores(ref) == [0, -5, 5]  # scores may go negative
    assert ref.state.to_shoot == 2


def test_pp_8_points_move_round_the_table_from_the_last_player_to_the_first():
    ref = game(4, breaker=3)
    out = play(ref, call=(7, "fl"), first=None)  # the first shot of the game misses too
    assert fouls_of(out) == [(Foul.MISS,)] and PointsMoved(3, 0, 5) in out
    assert scores(ref) == [5, 0, 0, -5]


def test_pp_8_one_penalty_per_shot_however_many_fouls():
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[("cue", "fl")], fouls=("touched_ball",))
    assert fouls_of(out) == [(Foul.TOUCHED_BALL, Foul.SCRATCH)]
    assert [d for d in out if isinstance(d, PointsMoved)] == [PointsMoved(0, 1, 5)]
    assert scores(ref) == [-5, 5]


@pytest.mark.parametrize(("option", "foul"), [("penalise_butt_or_side", "butt_or_side"),
                                              ("penalise_touched_ball", "touched_ball")])
def test_pp_8_waivable_fouls_can_be_waived(option, foul):
    ref = game(**{option: False})
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl")], fouls=(foul,))
    assert not fouls_of(out) and credited(out) == [(7, 7)] and scores(ref) == [7, 0]


def test_pp_8_unknown_contact_is_presumed_by_default():
    ref = game()
    out = play(ref, call=(7, "fl"))
    assert not fouls_of(out) and out[-1] == TurnPassed(1)


def test_pp_8_unknown_contact_can_be_asked():
    ref = game(presume_contact=False)
    play(ref, call=(7, "fl"))
    (q,) = ref.questions
    assert q.kind == "confirm"
    out = answer(ref, False)
    assert fouls_of(out) == [(Foul.MISS,)] and PointsMoved(0, 1, 5) in out


def test_pp_8_touching_balls_believing_the_game_over_costs_five_and_the_turn():
    ref = game()
    run(ref, 15, 14, 13, 12, 11)  # Ann 65, thinks it is over, and mixes the balls
    out = play(ref, fouls=("game_over_touch",))  # declared on a record of its own
    assert fouls_of(out) == [(Foul.GAME_OVER_TOUCH,)] and PointsMoved(0, 1, 5) in out
    assert out[-1] == TurnPassed(1, InHand.NONE)  # position restored, the turn passes
    assert scores(ref) == [60, 5] and ref.state.players[0].balls == (15, 14, 13, 12, 11)


@pytest.mark.parametrize("foul", ["wrong_ball_first", "cue_on_table", "slow_play", "bad_break"])
def test_pp_8_fouls_of_other_games_are_noted_and_cost_nothing(foul):
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl")], fouls=(foul,))
    assert Noted("foul_not_in_rules", foul) in out
    assert not fouls_of(out) and credited(out) == [(7, 7)] and scores(ref) == [7, 0]


# ---------------------------------------------------------------- PP-9
def test_pp_9_called_ball_with_the_cue_ball_down_is_spotted_on_the_third_spot():
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl"), ("cue", "fr")])
    assert not credited(out) and BallSpotted(7, Spot.FOOT_SPOT) in out
    assert 7 in ref.state.on_table and scores(ref) == [-5, 5]


def test_pp_9_when_the_spot_is_taken_the_next_ball_goes_to_the_short_rail():
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl"), (2, "sr")], off=("cue",))
    assert [d for d in out if isinstance(d, BallSpotted)] == [
        BallSpotted(7, Spot.FOOT_SPOT), BallSpotted(2, Spot.FOOT_RAIL)]


@pytest.mark.parametrize("foul", ["touched_ball", "moving_balls", "butt_or_side"])
def test_pp_9_every_five_point_foul_spots_what_fell(foul):
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl")], fouls=(foul,))
    assert not credited(out) and BallSpotted(7, Spot.FOOT_SPOT) in out
    assert scores(ref) == [-5, 5] and ref.state.to_shoot == 1


def test_pp_9_an_object_ball_driven_off_the_table_is_spotted_and_never_scores():
    # decision: PP-8 does not list it as a foul; the ball comes back like any spotted ball
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl")], off=(9,))
    assert credited(out) == [(7, 7)] and BallSpotted(9, Spot.FOOT_SPOT) in out
    assert not fouls_of(out) and out[-1] == ShooterContinues(0) and 9 in ref.state.on_table
    out = play(ref, call=(3, "fl"), first=3, off=(12,))
    assert BallSpotted(12, Spot.FOOT_SPOT) in out and out[-1] == TurnPassed(1)
    assert scores(ref) == [7, 0] and 12 in ref.state.on_table


# ---------------------------------------------------------------- PP-10
@pytest.mark.parametrize("foul", ["push", "double_hit", "bad_placement", "feet_off_floor"])
def test_pp_10_non_counting_stroke_spots_the_ball_without_penalty(foul):
    ref = game(3)
    out = play(ref, call=(7, "fl"), first=7, drops=[(7, "fl")], fouls=(foul,))
    assert fouls_of(out) == [(Foul(foul),)]
    assert not credited(out) and not any(isinstance(d, PointsMoved) for d in out)
    assert BallSpotted(7, Spot.FOOT_SPOT) in out and out[-1] == TurnPassed(1, InHand.NONE)
    assert scores(ref) == [0, 0, 0] and 7 in ref.state.on_table


# ---------------------------------------------------------------- PP-11
@pytest.mark.parametrize("kw", [{"drops": [("cue", "fr")]}, {"off": ("cue",)}])
def test_pp_11_after_the_cue_ball_fell_or_left_the_table_from_hand_in_the_house(kw):
    ref = game(3)
    out = play(ref, call=(7, "fl"), first=7, **kw)
    assert out[-1] == TurnPassed(1, InHand.KITCHEN)
    assert ref.snapshot()["ball_in_hand"] == "kitchen"


def test_pp_11_after_another_foul_the_next_player_plays_the_ball_where_it_lies():
    ref = game(3)
    out = play(ref, call=(7, "fl"), first=7, fouls=("moving_balls",))
    assert out[-1] == TurnPassed(1, InHand.NONE)
    assert ref.snapshot()["ball_in_hand"] == "none"


# ---------------------------------------------------------------- PP-12
def test_pp_12_handicap_starts_a_player_above_zero_and_the_target_stays():
    ref = game(handicap=[0, 20])
    assert scores(ref) == [0, 20]
    miss(ref)
    out = run(ref, 15, 14, 13, 8)  # Bob 20 + 50 = 70: not yet
    assert out[-1] == ShooterContinues(1)
    out = run(ref, 2)  # 72
    assert GameWon(1, 1, "points") in out and scores(ref) == [0, 72]


def test_pp_12_handicap_for_the_later_games_too():
    ref = game(3, race_to=2, handicap=[10, 0, 5])
    run(ref, 15, 14, 13)  # Ann 10 + 42 = 52
    assert ref.snapshot()["status"] == "game_over"
    play(ref, call=(7, "fl"), first=7)  # game 2 starts: scores set again
    assert scores(ref) == [10, 0, 5] and ref.state.game_no == 2


@pytest.mark.parametrize("handicap", [[-5, 0], [71, 0], [0, 0, 0], "10", [True, 0], [0, 2.5]])
def test_pp_12_bad_handicaps_are_refused(handicap):
    with pytest.raises(InvalidInput, match="handicap"):
        game(handicap=handicap)


# ---------------------------------------------------------------- PP-13
def test_pp_13_first_game_starter_by_lot_later_the_previous_winner():
    ref = game(3, race_to=2, breaker=1)
    assert ref.state.to_shoot == 1 and ref.snapshot()["options"]["break_order"] == "winner"
    miss(ref)  # Bob
    miss(ref)  # Cy
    run(ref, 15, 14, 13, 9)  # Ann: 51
    assert ref.state.winner == 0 and ref.state.to_shoot == 0  # not Cy, next after Bob
    play(ref, call=(7, "fl"), first=7)  # game 2
    assert ref.state.game_no == 2 and ref.state.breaker == 0


def test_pp_13_after_a_draw_the_next_player_starts():
    ref = game(2, race_to=2, breaker=0)
    run(ref, 1, 15, 14, 13, 12, 5)
    miss(ref)
    run(ref, 2, 3, 4, 6, 7, 8, 9, 10, 11)  # 70:70
    assert ref.state.draw and ref.state.to_shoot == 1
    assert ref.state.status is Status.GAME_OVER


# ---------------------------------------------------------------- identity
def test_an_unidentified_drop_that_decides_points_is_asked_never_guessed():
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(None, "fl"), (None, "sr")])
    assert not credited(out) and ref.state.on_table == tuple(ALL)
    (q,) = ref.questions
    assert q.kind == "identify" and 7 not in q.choices
    out = answer(ref, 12)
    assert sorted(credited(out)) == [(7, 7), (12, 12)] and scores(ref) == [19, 0]


# ---------------------------------------------------------------- issue 27: to the letter
def test_pp_8_a_direct_hit_in_the_house_costs_five_only_when_playing_from_hand():
    # «и) прямое попадание в шар, находящийся в «доме», при игре «с рук».»
    ref = game(3)
    play(ref, call=(7, "fl"), first=4, drops=[("cue", "fr")])  # Ann scratches: Bob from hand
    assert ref.state.ball_in_hand is InHand.KITCHEN
    out = play(ref, call=(7, "fl"), first=4, fouls=("direct_hit_in_kitchen",))
    assert fouls_of(out) == [(Foul.DIRECT_HIT_IN_KITCHEN,)] and PointsMoved(1, 2, 5) in out
    ref = game(3)
    miss(ref)  # Bob plays the cue ball where it lies
    out = play(ref, call=(7, "fl"), first=4, fouls=("direct_hit_in_kitchen",))
    assert not fouls_of(out) and scores(ref) == [0, 0, 0]
    assert Noted("foul_not_applicable", "direct_hit_in_kitchen") in out


@pytest.mark.parametrize("more", [False, True])
def test_pp_4_three_players_the_last_ball_to_51_wins_over_a_player_on_50(more):
    # «Чтобы выиграть, одному из партнеров необходимо набрать 51 очко. Если все трое сыграли
    # по 50 очков, фиксируется ничья.» «Своя» is the two-player rule («набрал 70 очков»).
    ref = game(3, handicap=[0, 0, 20], svoya_more_players=more)  # Cy starts on 20
    run(ref, 15, 14, 13, 8)  # Ann 50
    miss(ref)  # Ann misses: Bob
    miss(ref)  # Bob misses: Cy
    out = run(ref, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12)  # Cy takes the rest, the last ball too
    assert scores(ref) == [50, 0, 120]
    if more:  # the project's extension, an option
        assert Noted("svoya", "0") in out and GameDrawn(1) in out
    else:
        assert GameWon(2, 1, "points") in out and not any(isinstance(d, GameDrawn) for d in out)


def test_pp_9_on_a_scratch_the_called_ball_takes_the_third_spot():
    # «если одновременно в лузу упадут «заказанные» шары, они не засчитываются и
    # выставляются на третью точку стола»: the called ball, not the first to fall
    ref = game()
    out = play(ref, call=(7, "fl"), first=7, drops=[(2, "sr"), (7, "fl"), ("cue", "fr")])
    assert [d for d in out if isinstance(d, BallSpotted)] == [
        BallSpotted(7, Spot.FOOT_SPOT), BallSpotted(2, Spot.FOOT_RAIL)]


def test_pp_9_option_uncalled_balls_on_a_scratch_stay_down():
    ref = game(foul_uncalled="stay_down")
    out = play(ref, call=(7, "fl"), first=7, drops=[(2, "sr"), (7, "fl"), ("cue", "fr")])
    assert [d for d in out if isinstance(d, BallSpotted)] == [BallSpotted(7, Spot.FOOT_SPOT)]
    assert Noted("stay_down", about=(("balls", (2,)),)) in out
    assert 2 not in ref.state.on_table and 7 in ref.state.on_table and scores(ref) == [-5, 5]


def test_pp_8_option_with_three_players_every_other_player_receives_five():
    # «5 очков, которые снимаются со счета провинившегося и прибавляются к счету партнера»
    ref = game(3, penalty_to="each")
    out = play(ref, call=(7, "fl"), first=None)  # Ann misses
    assert [d for d in out if isinstance(d, PointsMoved)] == [
        PointsMoved(0, 1, 5), PointsMoved(0, 2, 5)]
    assert scores(ref) == [-10, 5, 5] and ref.state.to_shoot == 1
