"""A shot no sensor saw: ``shot_end`` rules it, ``declare`` says what happened (issue 15, item 3)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from tests.tracekit import TraceBuilder


def _run(trace: TraceBuilder) -> list[Message]:
    out: list[Message] = []
    replay(trace.text().splitlines(), out.append, lambda bad: pytest.fail(str(bad)))
    return out


def _events(out: list[Message], kind: str) -> list[dict[str, Any]]:
    return [m.payload["data"] for m in out if m.topic == "event" and m.payload["type"] == kind]


def _responses(out: list[Message], name: str) -> list[dict[str, Any]]:
    return [m.payload for m in out if m.topic == f"response/{name}"]


def _state(out: list[Message]) -> dict[str, Any]:
    return [m.payload for m in out if m.topic == "state"][-1]


def test_st_5_a_break_that_touched_nothing_is_ruled_by_shot_end():
    out = _run(TraceBuilder().new_match("siberian-ten").request("shot_end", dt=5.0))
    (response,) = _responses(out, "shot_end")
    assert response["status"] == "ok" and response["data"] == {"shot": 1}
    (result,) = _events(out, "shot_result")
    assert {"decision": "FoulCalled", "player": 0, "fouls": ["two_cushion"]} in result["decisions"]
    (question,) = _events(out, "question")  # ST-5: the opponent chooses
    assert (question["topic"], question["player"]) == ("illegal_break", 1)


def test_st_5_a_declare_before_shot_end_is_a_fact_of_that_shot():
    trace = (TraceBuilder().new_match("siberian-ten")
             .request("declare", {"first_contact": None}, dt=4.0).request("shot_end"))
    out = _run(trace)
    assert [r["status"] for r in _responses(out, "declare")] == ["ok"]
    (result,) = _events(out, "shot_result")
    fouls = [d["fouls"] for d in result["decisions"] if d["decision"] == "FoulCalled"]
    assert fouls == [["miss"]]  # a miss on the break: a foul (ST-15), not the ST-5 choice


def test_pp_8_a_shot_that_missed_every_ball_is_ruled_from_the_declare_and_shot_end():
    trace = (TraceBuilder().new_match("pyramid")
             .request("declare", {"first_contact": None}, dt=4.0).request("shot_end"))
    out = _run(trace)
    (result,) = _events(out, "shot_result")
    assert {"decision": "PointsMoved", "offender": 0, "to": 1, "points": 5} in result["decisions"]
    assert [p["score"] for p in _state(out)["players"]] == [-5, 5]


def test_tb_5_a_declare_then_shot_end_moves_the_facts_off_the_last_shot():
    four = ["f", "h", "lh", "rf"]
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=four)  # a legal break: Bob
             .request("declare", {"first_contact": None}, dt=1.0)  # a correction, so far
             .request("shot_end"))  # no: about Bob's shot, which no sensor saw
    out = _run(trace)
    results = _events(out, "shot_result")
    assert results[-1]["shot"] == 2 and results[-1]["to_shoot"] == 0
    fouls = [d["fouls"] for d in results[-1]["decisions"] if d["decision"] == "FoulCalled"]
    assert fouls == [["miss"]]
    restored = [r for r in results if r["shot"] == 1][-1]  # the break, as it was ruled
    assert not [d for d in restored["decisions"] if d["decision"] == "FoulCalled"]


def test_shot_end_with_nothing_to_rule_is_refused_with_the_reason():
    out = _run(TraceBuilder().request("shot_end"))
    (response,) = _responses(out, "shot_end")
    assert response["status"] == "error" and "no match" in response["error"]
    trace = (TraceBuilder().new_match("ten-ball")
             .shot(drops=["fr"], cushions=["f", "h", "lh", "rf"])  # which ball? (asked)
             .request("shot_end"))
    out = _run(trace)
    (response,) = _responses(out, "shot_end")
    assert response["status"] == "error" and "answer it first" in response["error"]
    assert [r["shot"] for r in _events(out, "shot_result")] == []
    assert _state(out)["shot"] == 1 and _state(out)["status"] == "awaiting"


def test_a_declare_with_no_match_is_refused():
    out = _run(TraceBuilder().request("declare", {"first_contact": None}))
    (response,) = _responses(out, "declare")
    assert response["status"] == "error" and "no match" in response["error"]


# A declare may name its shot: then nothing that follows moves its facts to another shot,
# and no shot is ruled again and back (the unnamed declare's correction of the last shot
# is taken back when a shot_end shows it was about a shot no sensor saw).

FOUR = ["f", "h", "lh", "rf"]  # a legal Ten-ball break: Bob to shoot


def _fouls(result: dict[str, Any]) -> list[list[str]]:
    return [d["fouls"] for d in result["decisions"] if d["decision"] == "FoulCalled"]


def test_a_declare_naming_the_shot_to_come_never_touches_the_last_shot():
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .request("declare", {"first_contact": None, "shot": 2}, dt=1.0)
             .request("shot_end"))
    out = _run(trace)
    (declared,) = _responses(out, "declare")
    assert declared["status"] == "ok" and declared["data"] == {"facts": ["first_contact"], "shot": 2}
    results = _events(out, "shot_result")
    assert [r["shot"] for r in results] == [1, 2]  # the break ruled once, never again
    assert _fouls(results[0]) == [] and _fouls(results[1]) == [["miss"]]
    assert results[1]["to_shoot"] == 0


def test_a_declare_naming_the_shot_to_come_waits_for_the_sensors_to_open_it():
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .request("declare", {"first_contact": None, "shot": 2}, dt=1.0)
             .shot(cushions=["f"], gap=8.0))  # Bob's shot, once the balls stopped: a cushion felt
    results = _events(_run(trace), "shot_result")
    assert [r["shot"] for r in results] == [1, 2]
    assert _fouls(results[1]) == [["miss"]]


def test_a_declare_naming_the_last_shot_stays_with_it_through_a_shot_end():
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .request("declare", {"first_contact": None, "shot": 1}, dt=1.0)
             .request("shot_end"))
    results = _events(_run(trace), "shot_result")
    assert [(r["shot"], r["corrected"]) for r in results] == [(1, False), (1, True), (2, False)]
    assert _fouls(results[1]) == [["miss"]]  # the break corrected: Ann missed, Bob in hand
    assert ["miss"] not in _fouls(results[2])  # Bob's empty shot has no fact of the break
    assert _fouls(results[2]) == [["no_rail"]]  # (nothing reached a cushion)


def test_a_declare_naming_a_shot_that_cannot_take_facts_is_refused_and_changes_nothing():
    plain = _run(TraceBuilder().new_match("ten-ball").shot(cushions=FOUR).request("shot_end"))
    for stale in (3, 7):
        out = _run(TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
                   .request("declare", {"first_contact": None, "shot": stale}, dt=1.0)
                   .request("shot_end"))
        (response,) = _responses(out, "declare")
        assert response["status"] == "error"
        assert f"shot {stale} cannot take facts now" in response["error"]
        assert "shot 1 was the last ruled" in response["error"]
        assert _events(out, "shot_result") == _events(plain, "shot_result")


def test_a_declare_naming_the_last_shot_while_the_next_is_in_play_is_refused():
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .request("call", {"calls": [{"ball": 1, "pocket": "fl"}]}, dt=9.0)
             .request("declare", {"first_contact": None, "shot": 1}, dt=0.5))
    out = _run(trace)
    (response,) = _responses(out, "declare")
    assert response["status"] == "error" and "shot 2 is in play" in response["error"]
    assert [r["shot"] for r in _events(out, "shot_result")] == [1]


@pytest.mark.parametrize("payload", [{"deadline": 4102444800.0}, {"shot": 1},
                                     {"shot": 2, "deadline": 4102444800.0}])
def test_a_declare_needs_a_fact_beside_its_shot_and_deadline(payload: dict[str, Any]):
    out = _run(TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
               .request("declare", payload))
    (response,) = _responses(out, "declare")
    assert response["status"] == "error" and "names no fact" in response["error"]
    assert [r["corrected"] for r in _events(out, "shot_result")] == [False]


@pytest.mark.parametrize("back", [
    pytest.param([("undo", {})], id="after-undo"),
    pytest.param([("undo", {}), ("redo", {})], id="after-redo"),
])
def test_a_declare_naming_a_shot_an_undo_or_redo_left_last_is_refused_with_a_reason(back):
    """An undo forgets the sensors' record of the shots it takes back, and a redo gives back
    their rulings, not that record: the shot left last cannot be corrected by a declare. It
    was an internal error (a ValueError out of fusion); it is a refusal that says why."""
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .shot(cushions=FOUR, gap=8.0))
    for name, payload in back:
        trace = trace.request(name, payload)
    before = _run(trace)
    last = [m.payload for m in before if m.topic == "state"][-1]["shot"]
    out = _run(trace.request("declare", {"first_contact": None, "shot": last}, dt=1.0))
    (response,) = _responses(out, "declare")
    assert response["status"] == "error"
    assert f"shot {last} cannot take facts now" in response["error"]
    assert "undo" in response["error"]
    assert _events(out, "shot_result") == _events(before, "shot_result")
    assert {k: _state(out)[k] for k in ("shot", "to_shoot", "players", "on_table")} == \
        {k: _state(before)[k] for k in ("shot", "to_shoot", "players", "on_table")}
