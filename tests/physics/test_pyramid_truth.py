"""Point pyramid over perfect facts (``controller.physics.truth_pyramid``), the oracle the
physics corpus is ruled by, apart from ``rules/``; seed 004's clauses as docs/rules.md numbers
them. No pooltool needed."""

from __future__ import annotations

import pytest

from controller.physics.truth import CUE, ShotTruth
from controller.physics.truth_pyramid import PyramidOracle, PyramidRuling
from vocabulary import Pocket

FL, HR, SL = Pocket.FOOT_LEFT, Pocket.HEAD_RIGHT, Pocket.SIDE_LEFT


def shot(shooter: int = 0, drops: tuple[tuple[int | str, Pocket], ...] = (), first: int | None = 7,
         call: tuple[int, Pocket] | None = (7, FL)) -> ShotTruth:
    return ShotTruth(shooter, False, call, drops, first, 1, 0)


@pytest.mark.parametrize(("facts", "ruling"), [
    # PP-6: the called ball in its pocket: it and every other ball that fell score, shoot again
    (shot(drops=((7, FL),)), PyramidRuling(False, 0, {0: 7})),
    (shot(drops=((7, FL), (12, HR))), PyramidRuling(False, 0, {0: 19})),
    # PP-3: the ace is worth 11
    (shot(drops=((1, SL), (7, FL))), PyramidRuling(False, 0, {0: 18})),
    # PP-6 (decision): the called ball missed its pocket: nothing scores, spotted, turn passes
    (shot(drops=((7, HR),)), PyramidRuling(False, 1, spotted=(7,))),
    (shot(drops=((12, FL),)), PyramidRuling(False, 1, spotted=(12,))),
    (shot(call=None, drops=((7, FL),)), PyramidRuling(False, 1, spotted=(7,))),  # no call
    (shot(), PyramidRuling(False, 1)),  # nothing fell
    # PP-8: 5 points from the offender to the other player; PP-9: what fell is spotted
    (shot(drops=((7, FL), (CUE, HR))), PyramidRuling(True, 1, {0: -5, 1: 5}, spotted=(7,))),
    (shot(first=None), PyramidRuling(True, 1, {0: -5, 1: 5})),  # the cue ball touched no ball
    (shot(shooter=1, first=None), PyramidRuling(True, 0, {1: -5, 0: 5})),
])
def test_point_pyramid_over_perfect_facts(facts: ShotTruth, ruling: PyramidRuling) -> None:
    assert PyramidOracle().rule(facts) == ruling


def test_pp_8_a_direct_hit_in_the_house_from_hand_costs_five_points() -> None:
    ruling = PyramidOracle().rule(shot(drops=((7, FL),)), direct_hit_in_house=True)
    assert ruling == PyramidRuling(True, 1, {0: -5, 1: 5}, spotted=(7,))


def test_pp_3_the_last_ball_scores_ten_more_and_a_cleared_table_short_of_71_is_drawn() -> None:
    oracle = PyramidOracle(on_table={7}, scores=[58, 65])
    ruling = oracle.rule(shot(drops=((7, FL),)))
    assert ruling == PyramidRuling(False, 0, {0: 17}, drawn=False, winner=0)  # 58 + 17 = 75
    oracle = PyramidOracle(on_table={3}, scores=[57, 70])
    assert oracle.rule(shot(call=(3, FL), drops=((3, FL),))) == PyramidRuling(False, 0, {0: 13}, drawn=True)


def test_pp_4_the_first_to_71_wins_penalty_points_included() -> None:
    oracle = PyramidOracle(scores=[60, 68])
    assert oracle.rule(shot(drops=((12, FL),), call=(12, FL))).winner == 0
    oracle = PyramidOracle(scores=[60, 68])
    assert oracle.rule(shot(drops=((CUE, FL),))) == PyramidRuling(True, 1, {0: -5, 1: 5}, winner=1)
    assert oracle.scores == [55, 73]


def test_the_balls_spotted_go_back_on_the_table_and_scored_ones_leave_it() -> None:
    oracle = PyramidOracle()
    oracle.rule(shot(drops=((7, FL), (9, HR))))
    oracle.rule(shot(shooter=0, call=(3, FL), drops=((4, FL),)))
    assert oracle.on_table == set(range(1, 16)) - {7, 9}
    assert oracle.scores == [16, 0]
    assert PyramidRuling(False, 0, {0: 16, 1: 0}).to_json()["points"] == {"0": 16}


def test_pp_3_with_three_players_the_2_scores_twelve_and_the_turn_goes_round() -> None:
    oracle = PyramidOracle(players=3)
    assert oracle.rule(shot(shooter=1, call=(2, FL), drops=((2, FL),))) == PyramidRuling(False, 1, {1: 12})
    assert oracle.rule(shot(shooter=2)) == PyramidRuling(False, 0)  # nothing fell: the next in turn
    # PP-8: the penalty goes to the next player in turn
    assert oracle.rule(shot(shooter=2, first=None)) == PyramidRuling(True, 0, {2: -5, 0: 5})
    four = PyramidOracle(players=4)
    assert four.rule(shot(shooter=3, call=(3, FL), drops=((3, FL),))).points == {3: 13}


def test_pp_4_three_players_play_to_51_and_svoya_draws_the_last_ball() -> None:
    oracle = PyramidOracle(players=3, scores=[40, 20, 30])
    assert oracle.rule(shot(call=(11, FL), drops=((11, FL),))).winner == 0  # 51
    # «своя»: the 2nd player has 50; the 1st reaches 51 with the last ball: a draw
    oracle = PyramidOracle(players=3, on_table={5}, scores=[40, 50, 45])
    assert oracle.rule(shot(call=(5, FL), drops=((5, FL),))) == PyramidRuling(False, 0, {0: 15}, drawn=True)
    # not the last ball: the target wins at once, «своя» or not
    oracle = PyramidOracle(players=3, on_table={5, 9}, scores=[46, 50, 20])
    assert oracle.rule(shot(call=(5, FL), drops=((5, FL),))).winner == 0
