"""A table with no sensor for a fact leaves it unknown (issue 29, first defect): the demo's
hand-played table has no cushion sensors, so a shot the referee ends with «Шары остановились»
is ruled by the game's documented default or a question, never as "no cushion hits"."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from controller.sim.demo import HAND_FUSION, table_config
from tests.service.corekit import Stepper
from tests.tracekit import TraceBuilder


def _run(trace: TraceBuilder) -> list[Message]:
    out: list[Message] = []
    replay(trace.text().splitlines(), out.append, lambda bad: pytest.fail(str(bad)))
    return out


def _events(out: list[Message], kind: str) -> list[dict[str, Any]]:
    return [m.payload["data"] for m in out if m.topic == "event" and m.payload["type"] == kind]


def _fouls(result: dict[str, Any]) -> list[list[str]]:
    return [d["fouls"] for d in result["decisions"] if d["decision"] == "FoulCalled"]


def _hand() -> TraceBuilder:
    return TraceBuilder(fusion=HAND_FUSION)


def test_st_5_a_break_ended_by_hand_is_asked_about_its_cushions_not_ruled_a_foul():
    out = _run(_hand().new_match("siberian-ten").request("shot_end", dt=5.0))
    assert not _events(out, "shot_result")  # not ruled until the referee says
    (question,) = _events(out, "question")
    assert question["topic"] == "two_cushions" and question["player"] == 0


def test_st_14_a_miss_by_hand_is_no_foul_with_a_penalty_ball_unasked():
    trace = (_hand().new_match("siberian-ten").request("shot_end", dt=5.0)
             .request("answer", {"answer": True})  # the break reached two cushions
             .request("shot_end", dt=5.0))  # Bob pots nothing
    out = _run(trace)
    results = _events(out, "shot_result")
    assert [r["shot"] for r in results] == [1]
    assert _fouls(results[0]) == []
    questions = _events(out, "question")
    assert [(q["topic"], q["player"]) for q in questions] == [("two_cushions", 0), ("two_cushions", 1)]


def test_tb_11_a_miss_by_hand_is_not_no_rail():
    trace = (_hand().new_match("ten-ball").request("shot_end", dt=5.0)  # the break
             .request("shot_end", dt=5.0))  # Bob pots nothing
    out = _run(trace)
    results = _events(out, "shot_result")
    assert [r["shot"] for r in results] == [1, 2]
    assert [_fouls(r) for r in results] == [[], []]
    noted = [d.get("what") for d in results[1]["decisions"] if d["decision"] == "Noted"]
    assert "rail_presumed" in noted


def test_a_sensed_table_still_rules_an_empty_shot_as_no_cushion_hits():
    out = _run(TraceBuilder().new_match("ten-ball").request("shot_end", dt=5.0)
               .request("shot_end", dt=5.0))
    results = _events(out, "shot_result")
    assert ["no_rail"] in _fouls(results[-1])


def test_a_pocket_whose_beam_is_declared_absent_is_asked_about_not_read_as_empty():
    # issue 28: a channel declared absent ([fusion] absent) is asked, never a sensed nothing
    out = _run(TraceBuilder(fusion={"absent": ["beam.fr"]}).new_match("ten-ball")
               .shot(cushions=["f", "h", "lh", "rf"]))
    (question,) = _events(out, "question")
    assert question["topic"] == "ball_fell" and question["about"] == {"pocket": "fr"}


def test_the_demos_hand_played_table_runs_at_real_time_while_the_simulated_ones_keep_speed(
        tmp_path):
    # issue 41 item 11: a 5:33 match by hand showed «матч 24:50» at --speed 20; the table's
    # clock (its states' ts and match_t0, the history's times) ran at the simulator's speed
    args = SimpleNamespace(hand=["t2"], speed=20.0, language="ru")
    ran = {}
    for n in (1, 2):
        config = table_config(args, n, "ten-ball", "mqtt://127.0.0.1:9", 9, tmp_path)
        table = Stepper(config)
        start = table.core.time.clock()
        table.clock.t += 333.0  # 5:33 of real time
        ran[config.table] = round(table.core.time.clock() - start, 6)
        table.close()
    assert ran == {"t1": 333.0 * 20, "t2": 333.0}
