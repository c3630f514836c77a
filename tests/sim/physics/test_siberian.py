"""Siberian Ten on the physics oracle (seed 000, docs/rules.md ST-*): the rulings over perfect
facts, the facts a shot's happenings give, and the centre line. No pooltool needed."""

from __future__ import annotations

import pytest

from controller.sim.physics.engine import crossings
from controller.sim.physics.truth import ShotTruth
from controller.sim.physics.truth_siberian import SiberianFacts, SiberianOracle
from vocabulary import Pocket


@pytest.mark.parametrize(("track", "times"), [
    ([(0.0, 0.5), (1.0, 1.5)], [0.5]),  # straight across y = 1.0 (interpolated)
    ([(0.0, 0.5), (1.0, 0.9), (2.0, 0.6)], []),  # up to the line and back: not crossed
    ([(0.0, 0.5), (1.0, 1.5), (2.0, 0.5)], [0.5, 1.5]),  # across and back again
    ([(0.0, 0.5), (1.0, 1.0), (2.0, 1.0)], []),  # stopped on the line
    ([(0.0, 0.5), (1.0, 1.0), (3.0, 1.5)], [1.0]),  # over the line, on the other side later
    ([(0.0, 1.2)], []),
])
def test_a_ball_crosses_the_centre_line_where_its_track_changes_side(
        track: list[tuple[float, float]], times: list[float]) -> None:
    assert crossings(track, 1.0) == pytest.approx(times)


# ------------------------------------------------------------------ the rulings over perfect facts
FL, SR, HR = Pocket.FOOT_LEFT, Pocket.SIDE_RIGHT, Pocket.HEAD_RIGHT


def shot(shooter: int = 0, drops: tuple[tuple[int | str, Pocket], ...] = (), first: int | None = 3,
         after: int = 2, call: tuple[int, Pocket] | None = (3, FL), is_break: bool = False,
         centre: bool = False, kitchen: bool = False, bullet: bool = False,
         cue_call: Pocket | None = None) -> SiberianFacts:
    return SiberianFacts(ShotTruth(shooter, is_break, call, drops, first, after, 0),
                         centre_line=centre, kitchen_hit=kitchen, bullet=bullet, cue_call=cue_call)


def ruled(facts: SiberianFacts, oracle: SiberianOracle | None = None) -> tuple[bool, int, dict[str, int]]:
    ruling = (oracle or SiberianOracle()).rule(facts)
    return ruling.foul, ruling.next_shooter, ruling.points


@pytest.mark.parametrize(("facts", "foul", "next_shooter", "points"), [
    # ST-6: the called ball in the called pocket counts, the shooter continues
    (shot(drops=((3, FL),)), False, 0, {"0": 1}),
    # ST-6: another ball that fell as well counts for the opponent
    (shot(drops=((3, FL), (5, SR))), False, 0, {"0": 1, "1": 1}),
    # ST-7: the called ball missed, a «дурак» fell: it counts for the opponent, turn passes
    (shot(drops=((5, FL),)), False, 1, {"1": 1}),
    # the called ball in another pocket: the opponent's, turn passes
    (shot(drops=((3, SR),)), False, 1, {"1": 1}),
    # an uncalled cue ball that fell: no foul, nothing counts, turn passes (a decision)
    (shot(drops=(("cue", SR),), after=0), False, 1, {}),
    # ST-9: the cue ball called too («свояк») and both fell as called: two balls (one taken
    # off the table for the cue ball), the shooter continues
    (shot(drops=((3, FL), ("cue", SR)), cue_call=SR), False, 0, {"0": 2}),
    # ST-8: of two called balls only the cue ball fell as called: it counts, turn passes
    (shot(drops=(("cue", SR),), cue_call=SR, after=0), False, 1, {"0": 1}),
    # ST-8: the called cue ball into another pocket: the object ball counts, the cue ball
    # goes to the opponent, turn passes («Если второй из заказанных шаров упал в другую (не
    # заказанную) лузу, этот шар и очередность удара переходит сопернику.»)
    (shot(drops=((3, FL), ("cue", HR)), cue_call=SR), False, 1, {"0": 1, "1": 1}),
    # ST-14: nothing fell, two cushions after the contact: legal
    (shot(after=2), False, 1, {}),
    # ST-14: one cushion and the centre line: legal; one cushion alone: a foul, penalty ball
    (shot(after=1, centre=True), False, 1, {}),
    (shot(after=1), True, 1, {"1": 1}),
    # the centre line alone is one cushion, not two
    (shot(after=0, centre=True), True, 1, {"1": 1}),
    # ST-15 г: no ball touched: a foul, the opponent takes a penalty ball
    (shot(first=None, after=0), True, 1, {"1": 1}),
    # ST-12: a ball in the kitchen struck directly from hand after a foul: no penalty ball
    (shot(kitchen=True, drops=((5, SR),)), True, 1, {"1": 1}),
    # ST-4: the break: every ball counts for the breaker, who continues
    (shot(is_break=True, call=None, drops=((4, FL), (8, SR))), False, 0, {"0": 2}),
    # ST-4, ST-9: the cue ball on the break counts too: a ball taken off the table for it
    (shot(is_break=True, call=None, drops=(("cue", HR),)), False, 0, {"0": 1}),
    # ST-5: nothing down, the two-cushion rule broken: an illegal break, no penalty ball,
    # the opponent accepts and shoots
    (shot(is_break=True, call=None, after=1), True, 1, {}),
    (shot(is_break=True, call=None, after=1, centre=True), False, 1, {}),
])
def test_siberian_ten_over_perfect_facts(facts: SiberianFacts, foul: bool, next_shooter: int,
                                         points: dict[str, int]) -> None:
    assert ruled(facts) == (foul, next_shooter, points)


def test_a_penalty_ball_is_the_lowest_on_the_table_and_leaves_it() -> None:
    oracle = SiberianOracle()
    ruling = oracle.rule(shot(first=None, after=0, shooter=1))
    assert (ruling.picked, ruling.points) == ((1,), {"0": 1})
    assert (1 in oracle.on_table, oracle.balls) == (False, [1, 0])


def test_a_called_cue_ball_with_no_ball_left_to_take_counts_itself() -> None:
    oracle = SiberianOracle(on_table={3}, balls=[4, 5])  # 5:5 after the 3, the cue ball the sixth
    ruling = oracle.rule(shot(drops=((3, FL), ("cue", SR)), cue_call=SR))
    assert (ruling.points, ruling.picked, ruling.winner) == ({"0": 2}, (), 0)


def test_six_balls_win_the_game() -> None:
    oracle = SiberianOracle(on_table={3, 7, 9}, balls=[5, 2])
    ruling = oracle.rule(shot(drops=((3, FL),)))
    assert (ruling.winner, ruling.points) == (0, {"0": 1})


def test_a_penalty_ball_can_be_the_sixth() -> None:
    oracle = SiberianOracle(on_table={3, 7}, balls=[2, 5])
    ruling = oracle.rule(shot(first=None, after=0))
    assert (ruling.foul, ruling.winner, ruling.picked) == (True, 1, (3,))


def test_the_table_empty_at_five_all_starts_the_shoot_out_with_the_last_ball_s_shooter() -> None:
    oracle = SiberianOracle(on_table={3}, balls=[4, 5])
    ruling = oracle.rule(shot(drops=((3, FL),)))
    assert (ruling.shootout, ruling.winner, ruling.next_shooter, oracle.first) == (True, None, 0, 0)


def test_a_penalty_ball_that_empties_the_table_gives_the_shoot_out_to_the_last_pocketer() -> None:
    # «Первым бьет игрок, последним забившим шар»: the penalty ball is nobody's pocketing
    oracle = SiberianOracle(on_table={2, 3}, balls=[4, 4])
    oracle.rule(shot(drops=((2, FL),), call=(2, FL), shooter=0))  # Ann pockets: 5:4, Ann on
    ruling = oracle.rule(shot(first=None, after=0, call=(3, SR), shooter=0))  # Ann's foul
    assert (ruling.shootout, ruling.picked, oracle.balls) == (True, (3,), [5, 5])
    assert oracle.first == 0  # Ann, not Bob who took the penalty ball


def test_bullets_score_what_fell_after_the_contact_and_a_miss_is_retaken_twice() -> None:
    oracle = SiberianOracle(on_table=set(), balls=[5, 5], first=1)
    bullet = {"bullet": True, "call": None}
    assert oracle.rule(shot(shooter=1, first=None, **bullet)).next_shooter == 1  # retaken
    assert oracle.rule(shot(shooter=1, first=None, **bullet)).next_shooter == 1  # retaken
    third = oracle.rule(shot(shooter=1, first=None, **bullet))  # scores 0
    assert (third.next_shooter, third.winner) == (0, None)
    tied = oracle.rule(shot(shooter=0, first=1, **bullet))  # 0:0, the round again
    assert (tied.next_shooter, tied.winner, tied.foul) == (1, None, False)
    oracle.rule(shot(shooter=1, first=1, drops=((1, FL),), **bullet))
    won = oracle.rule(shot(shooter=0, first=1, drops=((1, FL), ("cue", SR)), **bullet))
    assert won.winner == 0  # 2 against 1


def test_the_corpus_plays_the_two_cushion_rule_misses_the_kitchen_and_the_shoot_out() -> None:
    from tests.sim.physics.test_corpus import racks

    shots = [s for r in racks("siberian-ten") for s in r["shots"]]
    two_cushion_fouls = [s for s in shots if s["expected"]["foul"] and s["truth"]["first_contact"]]
    centre_decided = [s for s in shots if not s["truth"]["drops"] and s["truth"]["first_contact"]
                      and s["truth"]["cushions_after_contact"] == 1]
    assert len(two_cushion_fouls) >= 10 and len(centre_decided) >= 10
    assert any(s["truth"]["first_contact"] is None and not s["truth"]["bullet"] for s in shots)
    assert any(s["expected"]["shootout"] and s["expected"]["winner"] is not None for s in shots)
    assert any(s["expected"]["picked"] for s in shots)  # a penalty ball taken
    assert any(s["truth"]["kitchen_hit"] and s["expected"]["foul"] for s in shots)  # ST-12
    assert any(s["truth"]["cue_call"] and s["expected"]["picked"] and not s["expected"]["foul"]
               for s in shots)  # ST-9: a called cue ball that fell as called


def test_the_referee_knows_what_the_cushion_sensors_count_and_whether_the_centre_line_was_crossed() -> None:
    from controller.sim.physics.siberian import crossed_after_contact, cushions_felt
    from controller.sim.physics.truth import CUE, Happening
    from vocabulary import Rail

    happenings = [
        Happening(0.1, "cushion", CUE, rail=Rail.HEAD, speed=1.0),  # before the contact
        Happening(0.2, "centre", CUE),  # before the contact: not the rule's crossing
        Happening(0.5, "contact", CUE, 3, speed=2.0),
        Happening(0.7, "cushion", 3, rail=Rail.LEFT_HEAD, speed=1.0),
        Happening(0.8, "cushion", 3, rail=Rail.LEFT_FOOT, speed=1.0),  # the same long rail
        Happening(0.9, "cushion", CUE, rail=Rail.FOOT, speed=0.05),  # too soft to feel
    ]
    assert cushions_felt(happenings, click=True) == 1  # after the click
    assert cushions_felt(happenings, click=False) == 2  # every felt hit, presumed after
    assert not crossed_after_contact(happenings)
    assert crossed_after_contact([*happenings, Happening(1.0, "centre", 3)])
