"""The called-pocket presumption at the table: said in the ruling, undone by a declare."""

from __future__ import annotations

from typing import Any

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from tests.tracekit import TraceBuilder

FOUR = ["f", "h", "lh", "rf"]  # the break drove balls to four cushions


def _events(trace: TraceBuilder, kind: str) -> list[dict[str, Any]]:
    out: list[Message] = []
    replay(trace.text().splitlines(), out.append, lambda bad: pytest.fail(str(bad)))
    return [m.payload["data"] for m in out
            if m.topic == "event" and m.payload["type"] == kind]


def test_tb_13_a_presumed_called_ball_is_published_as_a_noted_decision():
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .call(1, "fr").shot(drops=["fr"]))  # Bob: one unidentified drop in the called pocket
    result = _events(trace, "shot_result")[-1]
    notes = [d for d in result["decisions"] if d["decision"] == "Noted"]
    assert {"decision": "Noted", "what": "called_presumed", "detail": "",
            "about": {"ball": 1, "pocket": "fr"}} in notes
    assert {"decision": "BallStaysDown", "ball": 1} in result["decisions"]
    assert result["to_shoot"] == 1


def test_tb_9_a_declare_of_what_fell_rules_the_shot_again_without_the_presumption():
    trace = (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
             .call(1, "fr").shot(drops=["fr"])
             .request("declare", {"pocketed": [{"ball": 8, "pocket": "fr"}]}))
    result = _events(trace, "shot_result")[-1]
    assert result["corrected"] is True
    assert not [d for d in result["decisions"] if d.get("what") == "called_presumed"]
    assert {"decision": "BallStaysDown", "ball": 8} in result["decisions"]
    (question,) = _events(trace, "question")
    assert (question["topic"], question["player"]) == ("shoot_or_hand_back", 0)  # TB-9
