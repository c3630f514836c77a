"""The broker stopped and started again and again while matches are played on sensors.

A persistent subscriber (its session kept by the broker across its restarts) must see every
event exactly once, in order: ``seq`` strictly increasing, never repeated, and the events the
same as an uninterrupted replay of what the table was given (its recorded trace).
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from tests.broker import Broker
from tests.faults.record import note
from tests.service.conftest import Collector, make_config, running
from tests.service.test_outage import significant
from tests.tracekit import TraceBuilder

RUN = [(1, "fr"), (3, "sl"), (4, "hl"), (5, "hr"), (6, "fl"), (7, "sr"), (8, "fr"), (9, "fl"),
       (10, "sl")]


def matches(count: int, seed: int) -> TraceBuilder:
    """``count`` Ten-ball run-outs on sensors, each its own match (own transactions)."""
    tb = TraceBuilder(seed=seed)
    for m in range(count):
        tb.new_match("ten-ball", race_to=1, transaction=f"nm{m}")
        tb.shot(drops=["fl"], cushions=["f", "lf", "rf"])
        tb.request("answer", {"answer": 2, "transaction": f"a{m}"})
        for ball, pocket in RUN:
            tb.call(ball, pocket, transaction=f"c{m}-{ball}").shot(drops=[pocket], cushions=["h"])
    return tb


async def flaps(tmp_path: Path, outages: int, count: int, seed: int, speed: float) -> None:
    rng = random.Random(seed)
    broker = Broker(tmp_path / "broker", extra=f"persistence true\npersistence_location {tmp_path}/")
    broker.start()
    stopped = 0
    try:
        trace = tmp_path / "match.jsonl"
        trace.write_text(matches(count, seed).text())
        config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": speed})
        async with Collector(broker, identifier="watcher", persistent=True) as col, \
                running(config) as service:
            await col.wait(lambda: col.events("ball_pocketed"), 15)
            # the sleeps are the fault injected: up and down for random spells, whatever
            # the service is doing at the time
            for _ in range(outages):
                await asyncio.sleep(rng.uniform(0.3, 1.2))  # up a while
                broker.stop()
                stopped += 1
                await asyncio.sleep(rng.uniform(0.2, 1.0))  # down a while: play goes on
                broker.start()
            await col.wait(lambda: len(col.events("match_over")) >= count, 30 + 10 * count)
            service.request("get", {"transaction": "settled"})  # answered after all the rest
            await col.response("get", "settled")
            connections = service.link.connections
    finally:
        broker.stop()
    events = col.events()
    seqs = [e["seq"] for e in events]
    expected: list[Message] = []
    recorded = sorted((tmp_path / "data" / "traces").glob("trace-*.jsonl"))
    replay(recorded[-1].read_text().splitlines(), expected.append, lambda bad: None)
    want = significant([m.payload for m in expected if m.topic == "event"])
    ok = seqs == sorted(set(seqs)) and significant(events) == want
    note("broker stopped and restarted mid-match (persistent subscriber)", stopped, ok,
         events=len(events), connections=connections)
    # (an up-time shorter than the service's reconnect delay may pass without it connecting)
    assert connections >= 2
    assert seqs == sorted(set(seqs)), "an event out of order, or twice"
    assert significant(events) == want, "an event lost"
    # the drops the table saw (a beam health takes out of play counts none) all came through
    assert len(col.events("ball_pocketed")) == len([m for m in expected if m.topic == "event" and
                                                    m.payload["type"] == "ball_pocketed"]) > 0


async def test_the_broker_going_away_again_and_again_loses_and_repeats_no_event(tmp_path: Path) -> None:
    await flaps(tmp_path, outages=3, count=1, seed=5, speed=8.0)


@pytest.mark.soak
@pytest.mark.timeout(900)
async def test_soak_broker_flapping_over_several_matches(tmp_path: Path) -> None:
    await flaps(tmp_path, outages=20, count=4, seed=8, speed=5.0)
