"""Scripted Siberian Ten replayed end to end: sensors, calls, declares and answers in, MQTT out."""

from __future__ import annotations

import pytest

from tests.e2e.replaying import run
from tests.tracekit import TraceBuilder

SENSORS = {"cue_detector": True, "identity_reader": True}


def siberian(**options: object) -> TraceBuilder:
    return TraceBuilder(fusion=SENSORS).new_match("siberian-ten", options=options)


def test_st_4_everything_on_the_break_counts_for_the_breaker():
    tb = siberian().shot(drops=["fl", "sr"], returns=[(3, "fl"), (8, "sr")], cushions=["f"])
    out = run(tb.text())
    assert [p["score"] for p in out.state["players"]] == [2, 0]
    assert out.state["to_shoot"] == 0 and sorted(set(range(1, 11)) - set(out.state["on_table"])) == [3, 8]


def test_st_6_and_st_7_the_called_ball_to_the_shooter_the_other_to_the_opponent():
    tb = siberian().shot(cushions=["f", "lf"])  # legal break, nothing down: Bob
    tb.call(5, "fr").shot(drops=["fr", "hl"], returns=[(5, "fr"), (9, "hl")])
    out = run(tb.text())
    assert [p["score"] for p in out.state["players"]] == [1, 1]  # the 9 is Ann's
    assert out.state["to_shoot"] == 1


def test_st_9_the_called_cue_ball_scores_and_the_opponent_picks_the_ball():
    tb = siberian().shot(cushions=["f", "lf"])  # Bob to shoot
    tb.call("cue", "sl").shot(cue_drop="sl", cushions=["h"])
    out = run(tb.text())
    (q,) = out.state["questions"]
    assert q["kind"] == "pick_ball" and q["player"] == 0
    tb.request("answer", {"answer": 10})
    out = run(tb.text())
    assert [p["score"] for p in out.state["players"]] == [0, 1]
    assert 10 not in out.state["on_table"]
    assert out.state["to_shoot"] == 1 and out.state["ball_in_hand"] == "kitchen"


def test_st_14_one_cushion_and_no_centre_line_is_a_foul_with_penalty_then_option():
    tb = siberian().shot(cushions=["f", "lf"])
    tb.call(4, "fl").shot(cushions=["h"]).request("declare", {"centre_line": False})
    out = run(tb.text())
    assert out.events("foul")[-1]["data"]["fouls"] == ["two_cushion"]
    kinds = [q["kind"] for q in out.state["questions"]]
    assert kinds == ["pick_ball", "option"]  # the penalty ball first, then shoot or hand back
    tb.request("answer", {"answer": 7}).request("answer", {"answer": "hand_back"})
    out = run(tb.text())
    assert [p["score"] for p in out.state["players"]] == [1, 0] and out.state["to_shoot"] == 1


def test_st_5_illegal_break_offers_rebreak_break_or_accept():
    tb = siberian().shot(cushions=["f"])  # one cushion, nothing down
    tb.request("declare", {"centre_line": False})
    out = run(tb.text())
    (q,) = out.state["questions"]
    assert q["kind"] == "option" and set(q["choices"]) == {"rebreak", "break", "accept"}


def test_st_13_uncalled_play_with_plain_balls_asks_nobody():
    tb = TraceBuilder(fusion={"cue_detector": True}).new_match(
        "siberian-ten", options={"called": False})
    tb.shot(cushions=["f", "lf"])
    tb.shot(drops=["fl", "fr"], cushions=["h"], gap=15.0)  # Bob, no call
    out = run(tb.text())
    assert not out.state["questions"] and not out.events("question")
    assert [p["score"] for p in out.state["players"]] == [0, 2] and out.state["to_shoot"] == 1


@pytest.mark.parametrize("click", [False, True], ids=["no-click-sensor", "click-sensor"])
@pytest.mark.parametrize("declared", [{"cushions_after_contact": 0}, {"fouls": ["two_cushion"]}],
                         ids=["count", "foul"])
def test_st_14_a_kick_shot_with_no_cushion_after_the_contact(click, declared):
    tb = siberian().shot(cushions=["f", "lf"])  # legal break, nothing down: Bob
    tb.call(4, "fl").shot(kick=["h", "lh"], cushions=[], click=click)  # two cushions, then 4
    out = run(tb.text())
    if not click:  # every hit presumed after the contact: legal, and the event says so
        assert not out.events("foul") and out.noted("cushions_presumed_after_contact")
        assert out.state["to_shoot"] == 0 and not out.state["questions"]
        tb.request("declare", declared)  # the referee corrects it
        out = run(tb.text())
        assert out.events("shot_result")[-1]["data"]["corrected"] is True
    else:
        assert not out.noted("cushions_presumed_after_contact")
    assert out.events("foul")[-1]["data"]["fouls"] == ["two_cushion"]
    assert [q["kind"] for q in out.state["questions"]] == ["pick_ball", "option"]  # ST-16: Ann
