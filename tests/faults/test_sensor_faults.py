"""Sensors failing mid-match on the live service: a beam stuck blocked, a beam chattering, a
cushion gone silent.

Each is reported by health (a ``sensor_fault`` event), judged in time on the table's own
clock (the times its journal gave the edges and the verdicts, whatever the machine's load);
a shot the broken beam could not see is asked about (a question) rather than ruled; and no
score the table ever shows is one the same match with working sensors would not have shown.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message, Table
from hardware.events import SensorEvent
from hardware.health import Health, HealthConfig
from tests.broker import Broker
from tests.faults.record import note
from tests.service.conftest import Collector, make_config, running
from tests.tracekit import TraceBuilder

RAILS = ["h", "f", "rh", "rf"]  # never "lf" (its sensor is dead), nor "lh" (it shakes lf)
RUN = [(4, "hl"), (5, "hr"), (6, "fl"), (7, "sr"), (8, "fr"), (9, "fl"), (10, "sl")]


#: The service's speed-up of the trace (table seconds per host second). Edges and requests are
#: taken at their own times on the table's clock; only the health tick's verdicts follow the
#: host's pace (on a clock ``controller.service.clock.LAG`` host seconds behind: 1.2 table
#: seconds here, so the shot after the block waits 8 s, and the tick, not that shot's first
#: edge, finds the beam stuck).
SPEED = 24.0
#: How late (host seconds) the service's health tick may judge a stuck beam: it ticks every
#: 0.05 s; the rest is the slack of a loaded machine (a table second is 1/SPEED of it here).
TICK_SLACK_S = 1.0


def match(faulty: bool, seed: int, chatter: bool = False) -> str:
    """Returns a Ten-ball run-out trace, with the sensor faults or without.

    The faults: the fr beam stuck blocked, cushion lf dead all match, and (``chatter``) the hl
    beam chattering while the 3 is played into sl."""
    rng = random.Random(seed)
    tb = TraceBuilder(seed=seed).new_match("ten-ball", race_to=1, transaction="nm")
    tb.shot(drops=["fl"], cushions=["f", "rf", "h"])
    tb.request("answer", {"answer": 2, "transaction": "a-break"})
    # the 1 is called into fr; the fr beam then blocks for good (a ball lodged in the jaws)
    # and the 1 falls into fr unseen
    tb.call(1, "fr", transaction="c1")
    if faulty:
        tb.lines.append({"t": round(tb.t + 0.3, 6), "ch": "beam.fr", "v": 1})
    tb.shot(drops=[] if faulty else ["fr"], cushions=["h", "rh"], gap=8.0)
    if faulty:  # the referee asks whether a ball fell in fr: yes
        tb.request("answer", {"answer": True, "transaction": "a-fr"}, dt=1.0)
        tb.lines.append({"t": round(tb.t + 0.5, 6), "ch": "beam.fr", "v": 0})  # the lens wiped
        tb.t += 1.0
    # the hl beam chatters (a loose wire: pulses shorter than any ball) while the 3 goes in sl
    tb.call(3, "sl", transaction="c3")
    start = tb.t + 1.0
    tb.shot(drops=["sl"], cushions=["h"])
    if faulty and chatter:
        at, level = start, 1
        while at < start + 1.5:
            tb.lines.append({"t": round(at, 6), "ch": "beam.hl", "v": level})
            at += rng.uniform(0.0005, 0.004)
            level ^= 1
        tb.lines.append({"t": round(at, 6), "ch": "beam.hl", "v": 0})
        tb.t = max(tb.t, at + 4.0)
    for ball, pocket in RUN:
        tb.call(ball, pocket, transaction=f"c{ball}").shot(drops=[pocket], cushions=[rng.choice(RAILS)])
    tb.lines.sort(key=lambda x: x["t"])
    return tb.text()


def scores(state: dict[str, Any]) -> tuple[int, ...]:
    return tuple(p["score"] for p in state["players"])


KEYS = ("status", "players", "on_table", "winner", "game_no")


async def play(tmp_path: Path, broker: Broker, seed: int, chatter: bool,
               until: Callable[[Collector], Any]) -> tuple[Collector, list[dict[str, Any]],
                                                          set[Any], dict[str, Any]]:
    """Plays the faulty match on the live service; returns what a subscriber saw, the inputs
    its journal holds (edges and health verdicts, on the table's clock), the scores the
    working table showed, and its final state."""
    trace = tmp_path / "match.jsonl"
    trace.write_text(match(faulty=True, seed=seed, chatter=chatter))
    clean: list[Message] = []
    replay(match(faulty=False, seed=seed).splitlines(), clean.append, lambda bad: None)
    clean_states = [m.payload for m in clean if m.topic == "state"]
    config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": SPEED},
                         health={"tick_s": 0.05})
    async with Collector(broker) as col, running(config) as service:
        await col.wait(lambda: until(col), 60)
        inputs = service.core.journal.inputs()
    return col, inputs, {scores(s) for s in clean_states}, clean_states[-1]


def edges(inputs: list[dict[str, Any]], channel: str) -> list[tuple[float, int]]:
    """Returns the channel's edges as the table took them: (time, level), oldest first."""
    return [(line["t"], line["v"]) for line in inputs if line.get("ch") == channel]


def verdict(inputs: list[dict[str, Any]], channel: str, state: Health) -> float:
    """Returns when (table time) sensor health first judged the channel to be in ``state``;
    raises AssertionError if it never did."""
    found = [line["t"] for line in inputs
             if line.get("health") == channel and line["state"] == state]
    assert found, f"{channel} never judged {state}"
    return float(found[0])


def faults_of(col: Collector) -> dict[tuple[str, str], float]:
    """Returns when (table time) each (channel, state) fault was first reported."""
    found: dict[tuple[str, str], float] = {}
    for e in col.events("sensor_fault"):
        found.setdefault((e["data"]["channel"], e["data"]["state"]), e["ts"])
    return found


async def test_a_stuck_beam_and_a_dead_cushion_are_reported_and_the_blind_pocket_is_asked_about(
        tmp_path: Path, broker: Broker) -> None:
    def over(c: Collector) -> bool:  # the 10th shot of play without lf makes it silent
        return bool(c.events("match_over")) and ("cushion.lf", "silent") in faults_of(c)

    col, inputs, allowed, clean_final = await play(tmp_path, broker, 4, False, over)
    faults = faults_of(col)
    states = col.of("state")
    asked = [q for s in states for q in s["questions"] if "fr" in q["prompt"]]
    wrong = [scores(s) for s in states if scores(s) not in allowed]
    final = {k: states[-1][k] for k in KEYS}
    ok = not wrong and final == {k: clean_final[k] for k in KEYS}
    note("sensor stuck (beam blocked for good)", 1, ok)
    note("sensor silent (cushion dead all match)", 1, ok)
    blocked = next(t for t, level in edges(inputs, "beam.fr") if level)  # the 1 lodged in fr
    released = next(t for t, level in edges(inputs, "beam.fr") if t > blocked and not level)
    stuck = verdict(inputs, "beam.fr", Health.STUCK)
    limit = HealthConfig().limits_for("beam.fr").stuck_after  # the service's: the defaults
    assert limit is not None
    # stuck once blocked longer than the limit, never before, judged by the ticks that follow
    # (on the table's clock: a tick the loaded machine ran late is late by SPEED times as much)
    assert limit < stuck - blocked < limit + TICK_SLACK_S * SPEED, (stuck - blocked, faults)
    assert stuck < released
    assert ("beam.fr", "stuck") in faults
    assert ("cushion.lf", "silent") in faults
    assert asked and asked[0]["kind"] == "confirm", "the blind pocket was not asked about"
    assert not wrong, f"scores the working table never showed: {wrong}"
    assert final == {k: clean_final[k] for k in KEYS}


async def test_a_chattering_beam_is_reported_within_a_second_and_gives_no_wrong_score(
        tmp_path: Path, broker: Broker) -> None:
    def ruled_3(c: Collector) -> bool:
        return any(s["shot"] >= 3 for s in c.of("state")) and bool(faults_of(c))

    col, inputs, allowed, _ = await play(tmp_path, broker, 4, True, ruled_3)
    faults = faults_of(col)
    wrong = [scores(s) for s in col.of("state") if scores(s) not in allowed]
    note("sensor chattering (loose wire on a beam)", 1, not wrong)
    first = edges(inputs, "beam.hl")[0][0]  # the chatter (the hl beam had not fired before)
    # more than 20 edges within a second are found at the edge that makes them too many
    assert verdict(inputs, "beam.hl", Health.CHATTERING) - first < HealthConfig().chatter_window
    assert ("beam.hl", "chattering") in faults
    assert not wrong, f"scores the working table never showed: {wrong}"


def test_drops_counted_from_a_beam_before_it_was_found_chattering_are_taken_back() -> None:
    out: list[Message] = []
    table = Table()
    out += table.start(0.0)
    out += table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]}, 1.0).messages
    out += table.request("call", {"calls": [{"ball": 1, "pocket": "sl"}]}, 2.0).messages
    rng = random.Random(0)
    t, level = 3.0, 1
    while t < 3.1:  # chatter: edges 0.5-4 ms apart; the glitch filter merges some into "balls"
        out += table.sensor(SensorEvent(round(t, 6), "beam.hl", level))
        t += rng.uniform(0.0005, 0.004)
        level ^= 1
    assert [m for m in out if m.topic == "event" and m.payload["type"] == "ball_pocketed"]
    table.sensor(SensorEvent(round(t, 6), "beam.hl", 0))
    table.set_health("beam.hl", Health.CHATTERING, t)  # sensor health's verdict
    table.sensor(SensorEvent(3.5, "beam.sl", 1))
    table.sensor(SensorEvent(3.52, "beam.sl", 0))
    table.request("shot_end", {}, 6.0)
    # "did a ball fall in hl?" is right (the pocket was blind); "which balls fell in hl?" is not
    asked = [q.kind for q in table.referee.questions if q.params.get("pocket") == "hl"]
    assert asked == ["confirm"]


@pytest.mark.soak
@pytest.mark.timeout(900)
@pytest.mark.parametrize("seed", [5, 6, 7])
async def test_soak_stuck_and_dead_sensors_with_other_timings(tmp_path: Path, broker: Broker,
                                                              seed: int) -> None:
    col, _, allowed, clean_final = await play(tmp_path, broker, seed, False,
                                              lambda c: c.events("match_over"))
    wrong = [scores(s) for s in col.of("state") if scores(s) not in allowed]
    final = {k: col.last("state")[k] for k in KEYS}
    ok = not wrong and final == {k: clean_final[k] for k in KEYS}
    note("sensor stuck (beam blocked for good)", 1, ok)
    note("sensor silent (cushion dead all match)", 1, ok)
    assert ok
