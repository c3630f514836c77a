"""Point pyramid over perfect facts (``controller.sim.physics.truth_pyramid``), the oracle the
physics corpus is ruled by, apart from ``rules/``; seed 004's clauses as docs/rules.md numbers
them. No pooltool needed."""

from __future__ import annotations

import random

import pytest

from controller.sim.physics.pyramid import PYRAMID_12FT, direct_hit_in_house, pyramid_rack
from controller.sim.physics.truth import CUE, Happening, ShotTruth
from controller.sim.physics.truth_pyramid import PyramidOracle, PyramidRuling
from vocabulary import Pocket, Rail

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


def test_pp_4_three_players_play_to_51_and_the_last_ball_wins_over_fifty() -> None:
    oracle = PyramidOracle(players=3, scores=[40, 20, 30])
    assert oracle.rule(shot(call=(11, FL), drops=((11, FL),))).winner == 0  # 51
    # «своя» is the two-player rule («набрал 70 очков»); for three: «Чтобы выиграть, одному
    # из партнеров необходимо набрать 51 очко. Если все трое сыграли по 50 очков,
    # фиксируется ничья.» The 2nd player has 50; the 1st reaches 51 with the last ball: wins
    oracle = PyramidOracle(players=3, on_table={5}, scores=[40, 50, 45])
    assert oracle.rule(shot(call=(5, FL), drops=((5, FL),))) == PyramidRuling(False, 0, {0: 15}, winner=0)
    # not the last ball: the target wins at once, «своя» or not
    oracle = PyramidOracle(players=3, on_table={5, 9}, scores=[46, 50, 20])
    assert oracle.rule(shot(call=(5, FL), drops=((5, FL),))).winner == 0


def test_pp_2_the_pyramid_is_racked_as_the_seed_racks_it() -> None:
    size = PYRAMID_12FT
    balls = pyramid_rack(size, random.Random(7))
    assert sorted(b for b in balls if isinstance(b, int)) == list(range(1, 16))
    assert balls[4] == pytest.approx((size.width / 2, size.length * 3 / 4))  # the apex, third spot
    base = sorted((b for b in balls if balls[b][1] == max(y for _, y in balls.values())),
                  key=lambda b: balls[b][0])
    assert (base[0], base[-1]) == (2, 3)  # the base's corners
    r = size.ball_radius * 1.002  # the rack's spacing
    at = {b: (row := round((y - size.length * 3 / 4) / (r * 3 ** 0.5)),
              round((x - size.width / 2) / (2 * r) + row / 2)) for b, (x, y) in balls.items()}
    inside = {b for b, (row, k) in at.items() if 0 < k < row < 4}  # touching no edge
    assert inside == {13, 14, 15}


@pytest.mark.parametrize(("cushion_first", "where", "foot", "direct"), [
    (False, 0.5, False, True),   # a ball in the house, struck straight from hand
    (True, 0.5, False, False),   # off a cushion first: allowed
    (False, 1.5, False, False),  # a ball out of the house
    (False, 3.0, True, True),    # every ball was in the house: the foot end is the house
])
def test_pp_8_a_direct_hit_in_the_house_is_told_from_the_happenings(
        cushion_first: bool, where: float, foot: bool, direct: bool) -> None:
    happenings = [Happening(0.1, "cushion", CUE, rail=Rail.LEFT_HEAD, speed=1.0)] if cushion_first else []
    happenings.append(Happening(0.4, "contact", CUE, 9, speed=1.0))
    balls: dict[int | str, tuple[float, float]] = {9: (0.8, where), CUE: (0.6, 0.3)}
    assert direct_hit_in_house(PYRAMID_12FT, balls, happenings, foot) is direct
