"""A fitted click sensor in order that heard nothing is evidence of a miss (issue 27), end to
end: a trace with a click sensor replayed through fusion and the rules.

The seeds: a miss is a foul (Siberian Ten «биток не коснулся ни одного шара»; Ten-ball §8);
no sensor saw the contact, but the sensor that would have heard it heard nothing, so the shot
is ruled a miss and noted ``miss_unheard`` — unless a referee declared the first contact.
"""

from __future__ import annotations

from tests.e2e.replaying import Published, run
from tests.tracekit import TraceBuilder

#: A legal break with nothing down: four cushion hits, so four balls may have reached a cushion.
BREAK = ["f", "lf", "rh", "h"]


def _after_break(**fusion: object) -> TraceBuilder:
    tb = TraceBuilder(fusion={"cue_detector": True, **fusion})
    tb.new_match("ten-ball", race_to=1, transaction="nm")
    return tb.shot(cushions=BREAK, click=True)  # the break: the click sensor hears the contact


def _fouls(out: Published) -> list[list[str]]:
    """The fouls of the last shot as last ruled (a correction's ruling replaces the first)."""
    last = out.events("shot_result")[-1]["data"]["decisions"]
    return [d["fouls"] for d in last if d["decision"] == "FoulCalled"]


def test_a_shot_the_fitted_click_sensor_heard_nothing_in_is_ruled_a_miss():
    tb = _after_break(click_sensor=True).call(1, "fl").shot(cushions=["f", "h"])
    out = run(tb.text())
    assert not out.bad
    assert _fouls(out) == [["miss"]]
    assert out.noted("miss_unheard")
    assert out.state["to_shoot"] == 0 and out.state["ball_in_hand"] == "anywhere"


def test_a_heard_click_is_contact():
    tb = _after_break(click_sensor=True).call(1, "fl").shot(cushions=["f", "h"], click=True)
    out = run(tb.text())
    assert _fouls(out) == []
    assert not out.noted("miss_unheard")


def test_a_declared_first_contact_stands_over_the_silent_click_sensor():
    tb = _after_break(click_sensor=True).call(1, "fl").shot(cushions=["f", "h"])
    tb.request("declare", {"first_contact": 1, "shot": 2}, dt=0.5)
    out = run(tb.text())
    assert out.events("shot_result")[-1]["data"]["corrected"]
    assert _fouls(out) == []
    assert out.state["ball_in_hand"] == "none"
    assert not out.noted("miss_unheard")


def test_without_a_click_sensor_silence_is_no_evidence():
    tb = _after_break().call(1, "fl").shot(cushions=["f", "h"])
    out = run(tb.text())
    assert _fouls(out) == []
    assert not out.noted("miss_unheard")


def test_a_click_sensor_declared_absent_is_no_evidence():
    tb = _after_break(click_sensor=True, absent=["click"]).call(1, "fl").shot(cushions=["f", "h"])
    out = run(tb.text())
    assert _fouls(out) == []


def test_a_click_sensor_out_of_order_is_no_evidence():
    tb = _after_break(click_sensor=True)
    tb.lines.append({"t": round(tb.t, 6), "health": "click", "state": "silent"})
    tb.call(1, "fl").shot(cushions=["f", "h"])
    out = run(tb.text())
    assert not out.bad
    assert _fouls(out) == []
    assert not out.noted("miss_unheard")


def test_a_click_sensor_that_never_heard_a_click_is_no_evidence():
    """Dead from the start (unplugged, never wired): sensor health finds it silent only after
    ten shots; until then its silence must not make every shot a miss."""
    tb = TraceBuilder(fusion={"cue_detector": True, "click_sensor": True})
    tb.new_match("ten-ball", race_to=1, transaction="nm")
    tb.shot(cushions=BREAK)  # the break: no click heard
    tb.call(1, "fl").shot(cushions=["f", "h"])
    out = run(tb.text())
    assert not out.bad
    assert [f["data"]["fouls"] for f in out.events("foul")] == []
