"""The physics oracle's pure parts: the facts of a shot from its happenings, Ten-ball over
perfect facts, and the sensor events the happenings cause. No pooltool needed."""

from __future__ import annotations

import random
import sys

import pytest

from controller.sim.physics.engine import PhysicsUnavailable, load_pooltool, rail_of
from controller.sim.physics.rack import Refused, true_answer
from controller.sim.physics.sensors import Sensors, sensor_events
from controller.sim.physics.truth import CUE, Happening, ShotTruth, TenBallOracle, shot_truth
from rules.state import Question, QuestionKind, Topic
from vocabulary import Pocket, Rail

FL, HR = Pocket.FOOT_LEFT, Pocket.HEAD_RIGHT


def shot(shooter: int = 0, drops: tuple[tuple[int | str, Pocket], ...] = (), first: int | None = 1,
         after: int = 1, to_cushion: int = 0, call: tuple[int, Pocket] | None = (1, FL),
         is_break: bool = False) -> ShotTruth:
    return ShotTruth(shooter, is_break, call, drops, first, after, to_cushion)


def test_the_facts_are_read_from_the_happenings_in_time_order() -> None:
    happenings = [
        Happening(0.1, "cushion", CUE, rail=Rail.HEAD, speed=1.0),  # before the contact
        Happening(0.5, "contact", CUE, 3, speed=2.0),
        Happening(0.7, "cushion", 3, rail=Rail.LEFT_HEAD, speed=1.0),
        Happening(0.9, "cushion", 3, rail=Rail.LEFT_FOOT, speed=0.5),  # the same long rail
        Happening(1.2, "pocket", 3, pocket=FL, speed=1.0),
    ]
    truth = shot_truth(1, False, (3, FL), happenings)
    assert truth.first_contact == 3
    assert truth.cushions_after_contact == 1
    assert truth.balls_to_cushion == 1
    assert truth.drops == ((3, FL),)


@pytest.mark.parametrize(("facts", "foul", "next_shooter"), [
    (shot(drops=((1, FL),)), False, 0),  # the called ball in the called pocket
    (shot(drops=((1, HR),)), False, 1),  # the wrong pocket: no foul, the turn passes
    (shot(drops=((1, FL), (CUE, HR))), True, 1),  # scratch
    (shot(first=2), True, 1),  # not the lowest first
    (shot(first=None, after=0), True, 1),  # no contact
    (shot(after=0), True, 1),  # no rail after the contact
    (shot(call=None, is_break=True, to_cushion=4, after=3), False, 1),  # four balls to a rail
    (shot(call=None, is_break=True, to_cushion=3, after=3), True, 1),  # three
    (shot(call=None, is_break=True, drops=((5, FL),), to_cushion=0), False, 0),
])
def test_ten_ball_over_perfect_facts(facts: ShotTruth, foul: bool, next_shooter: int) -> None:
    ruling = TenBallOracle().rule(facts)
    assert (ruling.foul, ruling.next_shooter, ruling.winner) == (foul, next_shooter, None)


def test_the_ten_wins_on_a_legal_break_and_is_spotted_when_pocketed_uncalled() -> None:
    assert TenBallOracle().rule(shot(call=None, is_break=True, drops=((10, FL),))).winner == 0
    oracle = TenBallOracle()
    ruling = oracle.rule(shot(drops=((10, HR),)))
    assert (ruling.spotted_ten, ruling.winner, 10 in oracle.on_table) == (True, None, True)


def test_three_fouls_in_a_row_lose_the_game() -> None:
    oracle = TenBallOracle()
    rulings = [oracle.rule(shot(shooter=1, first=2)) for _ in range(3)]
    assert [r.winner for r in rulings] == [None, None, 0]


def test_sensor_events_follow_the_physics() -> None:
    happenings = [
        Happening(0.2, "contact", CUE, 1, speed=2.0),
        Happening(0.3, "contact", 1, 2, speed=0.1),  # too slow to click
        Happening(0.4, "cushion", 1, rail=Rail.FOOT, speed=0.05),  # too soft to feel
        Happening(0.6, "cushion", 2, rail=Rail.LEFT_FOOT, speed=2.0),  # shakes the other half
        Happening(1.0, "pocket", 2, pocket=FL, speed=1.0),
    ]
    events = sensor_events(happenings, 10.0, Sensors(identity_reader=True, click=True), random.Random(1))
    channels = {e.ch for e in events}
    assert channels == {"click", "cushion.lf", "cushion.lh", "beam.fl", "ball_id"}
    assert [e.t for e in events if e.ch == "click"] == [10.2, 10.202]
    block = [e.t for e in events if e.ch == "beam.fl"]
    assert 0.057 * 0.55 <= block[1] - block[0] <= 0.057 * 0.95  # chord ÷ 1 m/s
    assert 11.5 <= next(e.t for e in events if e.ch == "ball_id") <= 13.0
    plain = sensor_events(happenings, 10.0, Sensors(), random.Random(1))
    assert {e.ch for e in plain} == {"cushion.lf", "cushion.lh", "beam.fl"}


def test_cushion_segments_map_to_our_rails() -> None:
    assert [rail_of(s) for s in ("1", "18t", "9", "3", "6", "15", "12")] == [
        Rail.HEAD, Rail.HEAD, Rail.FOOT, Rail.LEFT_HEAD, Rail.LEFT_FOOT, Rail.RIGHT_HEAD, Rail.RIGHT_FOOT]


def test_without_pooltool_the_physics_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pooltool", None)  # import pooltool raises ImportError
    with pytest.raises(PhysicsUnavailable, match="./dev physics-install"):
        load_pooltool()


def test_simulate_physics_without_pooltool_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.__main__ import main

    monkeypatch.setitem(sys.modules, "pooltool", None)
    assert main(["simulate", "--game", "ten-ball", "--shots", "5", "--physics"]) == 2
    assert "./dev physics-install" in capsys.readouterr().err
    assert main(["simulate", "--game", "siberian-ten", "--shots", "5", "--physics"]) == 2
    assert "./dev physics-install" in capsys.readouterr().err
    assert main(["simulate", "--game", "pyramid", "--shots", "5", "--physics"]) == 2
    assert "./dev physics-install" in capsys.readouterr().err


def test_a_channel_already_on_is_not_switched_on_again() -> None:
    happenings = [Happening(0.1, "contact", CUE, 1, speed=5.0),  # a break: contacts µs apart
                  Happening(0.100005, "contact", 1, 2, speed=4.0),
                  Happening(0.101, "contact", 2, 3, speed=3.0)]
    events = sensor_events(happenings, 0.0, Sensors(click=True), random.Random(2))
    assert [(round(e.t, 6), e.v) for e in events] == [(0.1, 1), (0.103, 0)]


def _question(kind: str, topic: str, choices: tuple[object, ...], **about: object) -> Question:
    return Question("q-2-0", QuestionKind(kind), 0, Topic(topic), tuple(sorted(about.items())), choices)


def test_the_referee_answers_the_pipelines_questions_from_the_truth() -> None:
    truth = shot(drops=((3, FL), (CUE, HR)), call=(3, FL))
    assert true_answer(truth, _question("identify", "which_balls", (2, 3, 4), pocket=FL)) == 3
    assert true_answer(truth, _question("confirm", "cue_ball", (True, False), pocket=HR)) is True
    assert true_answer(truth, _question("confirm", "called_ball", (True, False), ball=3, pocket=FL)) is True
    assert true_answer(truth, _question("confirm", "any_called", (True, False))) is True


def test_the_referee_picks_no_ball_when_none_offered_fell_there() -> None:
    truth = shot(drops=((3, FL),))
    with pytest.raises(Refused, match=r"none of \[2, 4\] fell there"):
        true_answer(truth, _question("identify", "which_balls", (2, 4), pocket=FL))
    with pytest.raises(Refused):  # nothing at all fell in that pocket
        true_answer(truth, _question("identify", "which_balls", (2, 3, 4), pocket=HR))
