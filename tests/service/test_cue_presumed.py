"""Issue 41 item 5: a Ten-ball break on a table with a cue-ball detector and no identity
reader, the 8 into fr and the cue ball into sr 0.27 s apart. The detector's one report fits
both drops; it goes to the older one, said in the ruling (``cue_presumed``), and the question
about sr offers the cue ball: the same live and in the replay of the trace the table wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from controller.sim.pulses import ball_return, beam_block
from tests.service.corekit import Stepper, core_config, payloads
from tests.tracekit import TraceBuilder

TEN = [*range(1, 11)]


def _break(tb: TraceBuilder, *first: tuple[str, float]) -> TraceBuilder:
    """Appends a break whose balls fall into ``first``'s pockets at their offsets; the cue
    ball's one report reaches the return 0.8 s after the first drop."""
    start = tb.t + 1.0
    lines = [e for pocket, dt in first for e in beam_block(pocket, start + dt, tb.rng)]
    lines += ball_return("cue", start + 0.5, tb.rng)
    tb.lines += [e.to_json() for e in sorted(lines, key=lambda e: e.t)]
    tb.t = start + 8.0
    return tb


def _live(tmp_path: Path, tb: TraceBuilder, *answers: Any) -> tuple[Stepper, list[dict[str, Any]]]:
    """Plays ``tb`` on a live core of a simulated table (its cue-ball detector as the simulator
    has it), answering each question as it opens with the next of ``answers``; returns the
    core and every state it published."""
    live = Stepper(core_config(tmp_path / "data", recording={"enabled": True}))
    left = list(answers)
    for line in tb.lines:
        live.step(line)
    live.settle(tb.t)
    while left:
        states = payloads(live.sent, "state")
        asked = states[-1]["questions"]
        assert asked, f"no question open for the answer {left[0]!r}"
        tb.t += 2.0
        live.step({"t": tb.t, "request": "answer",
                   "payload": {"question": asked[0]["id"], "answer": left.pop(0),
                               "transaction": f"a{len(left)}"}})
    live.settle(tb.t + 5.0)
    live.commit()
    return live, payloads(live.sent, "state")


def _replayed(tmp_path: Path) -> list[dict[str, Any]]:
    messages: list[Message] = []
    (trace,) = sorted((tmp_path / "data" / "traces").glob("trace-*.jsonl"))
    replay(trace.read_text().splitlines(), messages.append, lambda bad: None)
    return [m.payload for m in messages if m.topic == "state"]


def _rulings(live: Stepper) -> list[dict[str, Any]]:
    return [p["data"] for p in payloads(live.sent, "event") if p["type"] == "shot_result"]


def _questions(states: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Returns each question as it was first asked: its topic, what about, its choices."""
    seen: dict[str, tuple[Any, ...]] = {}
    for state in states:
        for q in state["questions"]:
            seen.setdefault(q["id"], (q["topic"], q["about"], q["choices"]))
    return list(seen.values())


def test_the_break_offers_the_cue_ball_for_sr_and_moves_it_there_when_answered(tmp_path: Path):
    tb = TraceBuilder(seed=41).new_match("ten-ball", race_to=3, transaction="nm")
    _break(tb, ("fr", 0.0), ("sr", 0.27))
    live, states = _live(tmp_path, tb, ["cue"], [8])
    assert _questions(states) == [
        ("which_balls", {"pocket": "sr"}, [*TEN, "cue"]),  # the cue ball only presumed in fr
        ("which_balls", {"pocket": "fr"}, TEN),  # so what fell in fr is asked
    ]
    ruled = _rulings(live)[-1]
    decisions = [d["decision"] for d in ruled["decisions"]]
    assert "FoulCalled" in decisions  # the scratch on the break
    assert not [d for d in ruled["decisions"] if d.get("what") == "cue_presumed"]  # answered
    assert states[-1]["to_shoot"] == 1 and states[-1]["ball_in_hand"] != "none"
    assert 8 not in states[-1]["on_table"]
    live.close()
    assert _questions(_replayed(tmp_path)) == _questions(states)
    table = ("players", "status", "to_shoot", "ball_in_hand", "on_table", "questions")
    assert {k: _replayed(tmp_path)[-1][k] for k in table} == {k: states[-1][k] for k in table}


def test_the_cue_balls_guessed_pocket_is_noted_and_stands_when_sr_was_an_object_ball(
        tmp_path: Path):
    tb = TraceBuilder(seed=42).new_match("ten-ball", race_to=3, transaction="nm")
    _break(tb, ("fr", 0.0), ("sr", 0.27))
    live, states = _live(tmp_path, tb, [8])
    assert _questions(states) == [("which_balls", {"pocket": "sr"}, [*TEN, "cue"])]
    ruled = _rulings(live)[-1]
    assert {"decision": "Noted", "what": "cue_presumed", "detail": "",
            "about": {"ball": "cue", "pocket": "fr"}} in ruled["decisions"]
    assert 8 not in states[-1]["on_table"] and states[-1]["to_shoot"] == 1
    live.close()
    assert _questions(_replayed(tmp_path)) == _questions(states)


def test_a_simulated_tables_trace_replays_with_the_cue_ball_detector_it_ran_with(
        tmp_path: Path):
    # live and replay disagreed: the trace's header had [fusion] as written, without the
    # detector a simulated table has, so the replay offered the cue ball the table had not
    tb = TraceBuilder(seed=44).new_match("ten-ball", race_to=3, transaction="nm")
    tb.shot(drops=["hl"], cushions=["f", "lf", "rh", "h"])  # one ball down; no report: not the cue ball
    live, states = _live(tmp_path, tb, [3])
    live.close()
    assert _questions(states) == [("which_balls", {"pocket": "hl"}, TEN)]
    assert _questions(_replayed(tmp_path)) == _questions(states)
