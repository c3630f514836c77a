"""Scripted Ten-ball matches replayed end to end: sensor physics and requests in, MQTT out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.replaying import run
from tests.tracekit import TraceBuilder

ROOT = Path(__file__).resolve().parents[2]


#: A legal break with nothing down: four cushion hits, so four balls may have reached a cushion.
BREAK = ["f", "lf", "rh", "h"]


def ten_ball(**header) -> TraceBuilder:
    return TraceBuilder(**header).new_match("ten-ball", race_to=1, transaction="nm")


def test_tb_13_a_run_out_from_sensors_and_calls_wins_the_match():
    tb = ten_ball().shot(drops=["fl"], cushions=["f", "lf", "rf"])
    tb.request("answer", {"answer": 2})  # which ball fell on the break (no identity reader)
    for ball, pocket in [(1, "fr"), (3, "sl"), (4, "hl"), (5, "hr"), (6, "fl"), (7, "sr"),
                         (8, "fr"), (9, "fl"), (10, "sl")]:
        tb.call(ball, pocket).shot(drops=[pocket], cushions=["h"])
    out = run(tb.text())
    assert not out.bad
    assert out.state["status"] == "match_over" and out.state["winner"] == 0
    assert out.state["players"][0]["games"] == 1
    (over,) = out.events("match_over")
    assert over["data"]["winner"] == 0
    assert len(out.events("ball_pocketed")) == 10
    assert all(r["status"] == "ok" for r in out.responses())


def test_tb_2_the_ten_on_the_break_with_an_identity_reader():
    tb = ten_ball(fusion={"identity_reader": True, "cue_detector": True})
    tb.shot(drops=["sl"], returns=[(10, "sl")])
    out = run(tb.text())
    assert out.state["status"] == "match_over" and out.state["winner"] == 0
    assert out.events("game_over")[0]["data"]["reason"] == "ten_on_the_break"
    assert not out.events("question")


def test_tb_11_scratch_seen_by_the_cue_detector_gives_ball_in_hand_in_the_kitchen():
    tb = ten_ball(fusion={"cue_detector": True}).shot(cushions=BREAK)
    tb.call(1, "fl").shot(cue_drop="hr", cushions=["f"])
    out = run(tb.text())
    (foul,) = out.events("foul")
    assert foul["data"] == {"player": 1, "fouls": ["scratch"], "shot": 2}
    assert out.state["to_shoot"] == 0 and out.state["ball_in_hand"] == "kitchen"


def test_tb_11_no_rail_foul_from_silent_cushions():
    tb = ten_ball().shot(cushions=BREAK)
    tb.call(1, "fl").request("shot_end", dt=3.0)  # a soft touch: nothing reached a sensor
    out = run(tb.text())
    assert [f["data"]["fouls"] for f in out.events("foul")] == [["no_rail"]]
    assert out.state["ball_in_hand"] == "anywhere" and out.state["to_shoot"] == 0


def test_tb_12_three_declared_fouls_lose_the_game_with_a_warning():
    tb = ten_ball().shot(cushions=BREAK)  # legal break, Bob to shoot
    for _ in range(3):
        tb.call(1, "fl").shot(cushions=["h"]).request("declare", {"fouls": ["touched_ball"]})
        tb.call(1, "fr").shot(cushions=["h"])  # Ann misses, no foul
    out = run(tb.text())
    assert [w["data"] for w in out.events("warning")] == [{"player": 1, "reason": "two_fouls"}]
    (over,) = out.events("game_over")
    assert over["data"]["winner"] == 0 and over["data"]["reason"] == "three_fouls"


def test_tb_9_and_tb_6_options_are_asked_and_answered_over_requests():
    tb = ten_ball(fusion={"identity_reader": True}).shot(cushions=BREAK)  # Bob to shoot
    tb.request("call", {"kind": "push_out"}).shot(cushions=["lh"])
    tb.request("answer", {"answer": "hand_back"})  # Ann hands the push-out back to Bob
    tb.call(1, "fl").shot(drops=["fr"], returns=[(1, "fr")])  # called ball, wrong pocket
    tb.request("answer", {"answer": "shoot"})
    out = run(tb.text())
    kinds = [q["data"]["kind"] for q in out.events("question")]
    assert kinds == ["option", "option"]
    assert out.state["to_shoot"] == 0 and 1 not in out.state["on_table"]
    assert not out.state["questions"]
    assert all(r["status"] == "ok" for r in out.responses())


def test_tb_10_a_ball_declared_off_the_table_stays_off():
    # §9.9: «Другие прицельные шары не выставляются ни при каких условиях.»
    tb = ten_ball().shot(cushions=BREAK)
    tb.call(1, "fl").shot(cushions=["h"]).request("declare", {"off_table": [7]})
    out = run(tb.text())
    assert 7 not in out.state["on_table"]
    corrected = [e for e in out.events("shot_result") if e["data"]["corrected"]]
    assert corrected and out.events("foul")[0]["data"]["fouls"] == ["ball_off_table"]


def test_tb_10_option_a_ball_declared_off_the_table_is_spotted():
    tb = TraceBuilder().new_match("ten-ball", race_to=1, transaction="nm",
                                  options={"off_table_balls": "spotted"}).shot(cushions=BREAK)
    tb.call(1, "fl").shot(cushions=["h"]).request("declare", {"off_table": [7]})
    out = run(tb.text())
    assert 7 in out.state["on_table"]
    corrected = [e for e in out.events("shot_result") if e["data"]["corrected"]]
    assert corrected and out.events("foul")[0]["data"]["fouls"] == ["ball_off_table"]


def test_tb_14_stalemate_declared_rebreaks():
    tb = ten_ball().shot(drops=["fl"], cushions=["f"]).request("answer", {"answer": 5})
    tb.call(1, "fl").shot(cushions=["h"]).request("declare", {"special": "stalemate"})
    out = run(tb.text())
    assert out.state["on_table"] == list(range(1, 11)) and out.state["status"] == "break"
    assert out.state["to_shoot"] == 0


def test_tb_5_a_break_the_cushions_saw_reach_one_rail_is_a_foul():
    out = run(ten_ball().shot(cushions=["f"]).text())
    assert [f["data"]["fouls"] for f in out.events("foul")] == [["bad_break"]]
    assert out.state["ball_in_hand"] == "anywhere" and out.state["to_shoot"] == 1
    assert out.state["players"][0]["consecutive_fouls"] == 1


@pytest.mark.parametrize("click", [False, True], ids=["no-click-sensor", "click-sensor"])
@pytest.mark.parametrize("declared", [{"cushions_after_contact": 0}, {"fouls": ["no_rail"]}],
                         ids=["count", "foul"])
def test_tb_11_a_kick_shot_with_no_rail_after_the_contact(click, declared):
    tb = ten_ball().shot(cushions=BREAK)  # Bob to shoot
    tb.call(1, "fl").shot(kick=["h"], cushions=[], click=click)  # a cushion, then the 1
    out = run(tb.text())
    if not click:  # every hit presumed after the contact: legal, and the event says so
        assert not out.events("foul") and out.noted("cushions_presumed_after_contact")
        tb.request("declare", declared)  # the referee corrects it
        out = run(tb.text())
        assert out.events("shot_result")[-1]["data"]["corrected"] is True
    else:
        assert not out.noted("cushions_presumed_after_contact")
    assert out.events("foul")[-1]["data"]["fouls"] == ["no_rail"]
    assert out.state["to_shoot"] == 0 and out.state["ball_in_hand"] == "anywhere"


def test_tb_5_a_referee_corrects_a_break_the_sensors_counted_short():
    tb = ten_ball().shot(cushions=["f"])  # one hit seen: a foul
    tb.request("declare", {"balls_to_cushion": 4})
    out = run(tb.text())
    assert [f["data"]["fouls"] for f in out.events("foul")] == [["bad_break"]]
    assert out.events("shot_result")[-1]["data"]["corrected"] is True
    assert out.state["to_shoot"] == 1 and out.state["ball_in_hand"] == "none"
    assert out.state["players"][0]["consecutive_fouls"] == 0


def test_tb_14_a_declare_awards_the_match_for_unsportsmanlike_conduct():
    tb = TraceBuilder().new_match("ten-ball", race_to=3).shot(cushions=BREAK)  # Bob to shoot
    tb.request("declare", {"unsportsmanlike": {"player": 2, "reason": "x"}})  # no such player
    tb.request("declare", {"unsportsmanlike": {"player": 1, "reason": ""}})
    tb.request("declare", {"unsportsmanlike": {"player": 1, "loses": "match",
                                               "reason": "threw the cue"}})
    out = run(tb.text())
    bad, empty, ok = out.responses("declare")
    assert bad["status"] == "error" and "player index" in bad["error"]
    assert empty["status"] == "error" and "reason" in empty["error"]
    assert ok["status"] == "ok"
    (over,) = out.events("game_over")
    assert over["data"]["winner"] == 0 and over["data"]["reason"] == "unsportsmanlike"
    assert out.events("match_over")[0]["data"]["winner"] == 0
    assert out.state["status"] == "match_over" and out.state["players"][0]["games"] == 1
    assert out.noted("unsportsmanlike")


def test_tb_5_declared_bad_break():
    tb = ten_ball().shot(cushions=["f"]).request("declare", {"fouls": ["bad_break"]})
    out = run(tb.text())
    assert out.state["ball_in_hand"] == "anywhere" and out.state["to_shoot"] == 1


def test_a_late_drop_corrects_the_provisional_ruling():
    tb = ten_ball().shot(cushions=BREAK)
    tb.call(1, "fl").shot(cushions=["h"])
    # the 1 creeps into the called pocket 2 s after the provisional ruling
    tb.lines.append({"t": round(tb.t - 1.0, 6), "ch": "beam.fl", "v": 1})
    tb.lines.append({"t": round(tb.t - 0.8, 6), "ch": "beam.fl", "v": 0})
    out = run(tb.text())
    results = out.events("shot_result")
    assert results[-1]["data"]["corrected"] is True
    assert out.state["to_shoot"] == 1 and 1 not in out.state["on_table"]


# ------------------------------------------------------------ bad input in a trace
def test_unreadable_lines_are_reported_with_their_number_and_replay_goes_on():
    tb = ten_ball().shot(cushions=BREAK)
    lines = tb.text().splitlines()
    lines.insert(3, "{not json")
    lines.insert(5, json.dumps({"t": 99, "ch": "beam.zz", "v": 1}))
    out = run("\n".join(lines))
    assert [(b.line, "JSON" in b.reason or "channel" in b.reason) for b in out.bad] == [
        (4, True), (6, True)]
    assert out.state["to_shoot"] == 1  # the break was still ruled


def test_a_duplicate_request_is_applied_once_and_answered_twice():
    tb = ten_ball().shot(cushions=BREAK)
    tb.request("undo", {"shots": 1, "transaction": "u1"})
    tb.request("undo", {"shots": 1, "transaction": "u1"})
    out = run(tb.text())
    first, second = out.responses("undo")
    assert first["status"] == second["status"] == "ok"
    assert {k: v for k, v in first.items() if k not in ("seq", "ts")} == {
        k: v for k, v in second.items() if k not in ("seq", "ts")}
    assert len(out.events("undo")) == 1 and out.state["status"] == "break"


def test_malformed_requests_get_a_reason_and_change_nothing():
    tb = ten_ball().shot(cushions=BREAK)
    bad = [("call", {"calls": [{"ball": 3, "pocket": "middle"}], "transaction": "x1"}),
           ("call", {"calls": [{"ball": 11, "pocket": "fl"}], "transaction": "x2"}),
           ("answer", {"answer": "shoot", "transaction": "x3"}),
           ("new_match", {"game": "snooker", "players": ["A", "B"], "transaction": "x4"}),
           ("declare", {"fouls": ["sneezing"], "transaction": "x5"}),
           ("teleport", {"transaction": "x6"})]
    for name, payload in bad:
        tb.request(name, payload)
    out = run(tb.text())
    errors = [r for r in out.responses() if r["transaction"] and r["transaction"].startswith("x")]
    assert [r["status"] for r in errors] == ["error"] * len(bad)
    assert all(r["error"] for r in errors)
    assert "pocket" in errors[0]["error"] and "not on the table" in errors[1]["error"]
    assert out.state["to_shoot"] == 1 and out.state["shot"] == 1


# ------------------------------------------------------------ the command
def test_replay_command_is_deterministic_and_reports_bad_lines(tmp_path):
    tb = ten_ball().shot(drops=["fl"], cushions=["f"]).request("answer", {"answer": 4})
    text = tb.text() + "garbage\n"
    path = tmp_path / "match.jsonl"
    path.write_text(text)
    runs = [subprocess.run([sys.executable, "-m", "controller", "replay", str(path)],
                           capture_output=True, text=True, cwd=ROOT) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout
    assert runs[0].returncode == 1 and f"{path}:{len(text.splitlines())}:" in runs[0].stderr
    lines = [json.loads(x) for x in runs[0].stdout.splitlines()]
    assert all(set(x) == {"topic", "retain", "qos", "payload"} for x in lines)
    seqs = [x["payload"]["seq"] for x in lines]
    assert seqs == sorted(set(seqs))
    assert lines[-1]["payload"]["v"] == 1


def test_tb_1_declared_wrong_ball_first_is_a_foul():
    tb = ten_ball().shot(cushions=BREAK)
    tb.call(3, "fl").shot(drops=["fl"], cushions=["h"]).request("declare", {"first_contact": 3})
    out = run(tb.text())
    assert out.events("foul")[-1]["data"]["fouls"] == ["wrong_ball_first"]
    assert out.state["to_shoot"] == 0 and out.state["ball_in_hand"] == "anywhere"


def test_tb_3_and_tb_4_breaks_alternate_and_each_game_starts_from_a_full_rack():
    tb = TraceBuilder().new_match("ten-ball", race_to=2, breaker=1)
    tb.shot(drops=["fl"]).request("answer", {"answer": 10})  # Bob: 10 on the break
    out = run(tb.text())
    assert out.state["status"] == "game_over" and out.state["to_shoot"] == 0
    tb.shot(cushions=BREAK, gap=30.0)  # game 2, racked: Ann breaks, nothing falls
    out = run(tb.text())
    assert out.state["game_no"] == 2 and out.state["on_table"] == list(range(1, 11))
    assert out.state["to_shoot"] == 1 and out.state["players"][1]["games"] == 1


def test_tb_7_a_pot_without_a_call_is_asked_about():
    tb = ten_ball(fusion={"identity_reader": True}).shot(cushions=BREAK)
    tb.shot(drops=["fr"], returns=[(1, "fr")], gap=15.0)  # Bob pots the 1 without calling
    out = run(tb.text())
    (q,) = out.state["questions"]
    assert q["kind"] == "confirm" and "called" in q["prompt"]
    tb.request("answer", {"answer": True})
    out = run(tb.text())
    assert out.state["to_shoot"] == 1 and 1 not in out.state["on_table"]


def test_tb_8_safety_with_a_pot_offers_the_choice():
    tb = ten_ball(fusion={"identity_reader": True}).shot(cushions=BREAK)
    tb.request("call", {"kind": "safety"}).shot(drops=["sl"], returns=[(1, "sl")])
    out = run(tb.text())
    (q,) = out.state["questions"]
    assert q["kind"] == "option" and q["player"] == 0 and q["choices"] == ["shoot", "hand_back"]


def test_a_stuck_beam_in_the_trace_makes_the_referee_ask_instead_of_counting():
    tb = ten_ball().shot(cushions=BREAK)
    tb.lines.append({"t": round(tb.t, 6), "health": "beam.sr", "usable": False})
    tb.call(1, "sr").shot(drops=["sr"], cushions=["h"])  # the stuck beam sees nothing useful
    out = run(tb.text())
    assert not out.bad
    (q,) = out.state["questions"]
    assert q["kind"] == "confirm" and "sr" in q["prompt"]


def test_ball_pocketed_names_the_shot_the_ball_belongs_to():
    tb = ten_ball().shot(cushions=BREAK)
    tb.call(1, "fl").shot(cushions=["h"])
    tb.lines.append({"t": round(tb.t - 1.0, 6), "ch": "beam.fl", "v": 1})  # late: shot 2
    tb.lines.append({"t": round(tb.t - 0.8, 6), "ch": "beam.fl", "v": 0})
    tb.call(3, "sr").shot(drops=["sr"], cushions=["h"])  # shot 3
    out = run(tb.text())
    assert [e["data"]["shot"] for e in out.events("ball_pocketed")] == [2, 3]
