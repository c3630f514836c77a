"""Scripted Point pyramid replayed end to end, for two and three players."""

from __future__ import annotations

from tests.e2e.replaying import run
from tests.tracekit import TraceBuilder

SENSORS = {"cue_detector": True, "identity_reader": True}


def test_pp_3_and_pp_6_values_and_every_ball_of_a_called_shot_score():
    tb = TraceBuilder(fusion=SENSORS).new_match("pyramid", players=("Ann", "Bob", "Cleo"))
    tb.request("call", {"calls": [{"ball": 2, "pocket": "fl"}]})
    tb.shot(drops=["fl", "sr"], returns=[(2, "fl"), (1, "sr")])
    out = run(tb.text())
    # three players: the 2 is worth 12, the ace 11
    assert [p["score"] for p in out.state["players"]] == [23, 0, 0]
    assert out.state["to_shoot"] == 0


def test_pp_8_a_scratch_moves_five_points_to_the_next_player_and_spots_the_called_ball():
    tb = TraceBuilder(fusion=SENSORS).new_match("pyramid", players=("Ann", "Bob", "Cleo"))
    tb.request("call", {"calls": [{"ball": 7, "pocket": "fr"}]})
    tb.shot(drops=["fr"], returns=[(7, "fr")], cue_drop="hl")
    out = run(tb.text())
    assert [p["score"] for p in out.state["players"]] == [-5, 5, 0]
    assert 7 in out.state["on_table"]
    assert out.state["to_shoot"] == 1 and out.state["ball_in_hand"] == "kitchen"


def test_pp_6_a_missed_call_scores_nothing_and_passes_the_turn():
    tb = TraceBuilder(fusion=SENSORS).new_match("pyramid")
    tb.request("call", {"calls": [{"ball": 9, "pocket": "sl"}]})
    tb.shot(drops=["fl"], returns=[(4, "fl")])
    out = run(tb.text())
    assert [p["score"] for p in out.state["players"]] == [0, 0]
    assert 4 in out.state["on_table"] and out.state["to_shoot"] == 1


def test_pp_identity_is_asked_without_a_reader():
    tb = TraceBuilder(fusion={"cue_detector": True}).new_match("pyramid")
    tb.request("call", {"calls": [{"ball": 9, "pocket": "sl"}]})
    tb.shot(drops=["sl", "hr"])
    out = run(tb.text())
    (q,) = out.state["questions"]
    assert q["kind"] == "identify" and "hr" in q["prompt"]
    tb.request("answer", {"answer": 15})
    out = run(tb.text())
    assert [p["score"] for p in out.state["players"]] == [24, 0]
