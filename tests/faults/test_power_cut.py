"""Power cuts: ``kill -9`` of the real service at random moments while a match is played.

A scorekeeper's app plays a recorded Ten-ball match by requests, resending a request (same
transaction) when no answer comes, as an app does. The service is killed at random moments
and started again each time. Afterwards the state must equal an uninterrupted replay of the
same requests, every transaction must be in the journal once, and the events a persistent
subscriber saw (told apart by ``seq``; QoS 1 may deliver one twice across a kill) must be the
uninterrupted replay's events, in order: nothing lost, nothing applied twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message, Table
from tests.broker import Broker
from tests.faults.record import note
from tests.service.conftest import Collector, requester
from tests.service.plays import MATCH
from tests.service.test_restart import start, write_config

POCKETS = ["fl", "fr", "sl", "sr", "hl", "hr"]


def recorded_match() -> list[tuple[str, dict[str, Any]]]:
    """Ten-ball, race to 1: Ann runs the 1, misses the 3 (ball in hand), Bob runs 2 to 10."""
    reqs = list(MATCH)
    for i, ball in enumerate(range(2, 11)):
        pocket = POCKETS[i % 6]
        reqs += [("call", {"calls": [{"ball": ball, "pocket": pocket}], "transaction": f"k{ball}"}),
                 ("declare", {"pocketed": [{"ball": ball, "pocket": pocket}], "transaction": f"p{ball}"}),
                 ("shot_end", {"transaction": f"s{ball}"})]
    return reqs


KEYS = ("status", "game_no", "players", "to_shoot", "ball_in_hand", "on_table", "shot",
        "questions", "winner", "draw")
QUIET = ("sensor_fault", "sensor_recovered")


def fact(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Returns an event's type and data, without the match id (its prefix is the day's)."""
    return payload["type"], {k: v for k, v in payload["data"].items() if k != "match_id"}


def uninterrupted(reqs: list[tuple[str, dict[str, Any]]]) -> tuple[dict[str, Any], list[Any]]:
    """Returns the final state and the events of the requests played without a cut."""
    out: list[Message] = []
    table = Table()
    out += table.start(0.0)
    for n, (name, payload) in enumerate(reqs, start=2):
        out += table.request(name, payload, float(n)).messages
    events = [fact(m.payload) for m in out
              if m.topic == "event" and m.payload["type"] not in QUIET]
    return table.referee.snapshot(), events


def part(state: dict[str, Any]) -> dict[str, Any]:
    return {k: state[k] for k in KEYS}


async def cuts(tmp_path: Path, broker: Broker, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    reqs = recorded_match()
    config = write_config(tmp_path, broker)
    procs: list[subprocess.Popen[bytes]] = []
    done = asyncio.Event()
    killed = [0]

    async def killer() -> None:
        while killed[0] < kills and not done.is_set():
            await asyncio.sleep(rng.uniform(0.3, 1.8))  # a moment in the match, or in a restart
            os.kill(procs[-1].pid, signal.SIGKILL)
            procs[-1].wait()
            killed[0] += 1
            await asyncio.sleep(rng.uniform(0.0, 0.4))  # the power comes back
            procs.append(start(config))

    async with Collector(broker, identifier="watcher", persistent=True) as col:
        procs.append(start(config))
        try:
            await col.wait(lambda: any(p["state"] == "online" for p in col.of("status")), 20)
            kill_task = asyncio.create_task(killer())
            async with requester(broker) as req:
                for name, payload in reqs:
                    await req.until_answered(col, name, payload, wait=4.0)
                    await asyncio.sleep(rng.uniform(0.0, 0.25))
                if killed[0] < kills:
                    await kill_task  # the remaining cuts come after the match
                done.set()
                await kill_task
                await col.wait(lambda: any(p["state"] == "online" for p in col.of("status")[-1:]), 20)
                await req.send("get", {"transaction": "final"})
                await col.response("get", "final")
            procs[-1].send_signal(signal.SIGTERM)
            assert procs[-1].wait(15) == 0
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        await col.wait(lambda: col.last("status")["state"] == "stopped")

    state, events = uninterrupted(reqs)
    by_seq: dict[int, dict[str, Any]] = {}
    for p in col.events():
        by_seq.setdefault(p["seq"], p)  # QoS 1 across a kill: the same message again
    first_seen = list(by_seq)
    seen = [fact(p) for p in by_seq.values() if p["type"] not in QUIET]
    traces = sorted((tmp_path / "data" / "traces").glob("trace-*.jsonl"))
    lines = [json.loads(x) for x in traces[-1].read_text().splitlines()]
    journaled = [x["payload"]["transaction"] for x in lines[1:] if "request" in x
                 and x["request"] != "get"]
    replayed: list[Message] = []
    replay(traces[-1].read_text().splitlines(), replayed.append, lambda bad: None)
    last_replayed = [m.payload for m in replayed if m.topic == "state"][-1]
    ok = (part(col.last("state")) == part(state) and seen == events
          and journaled == [p["transaction"] for _, p in reqs]
          and first_seen == sorted(first_seen) and part(last_replayed) == part(state))
    note("power cut: kill -9 at random moments mid-match", killed[0], ok,
         sessions=len(traces))
    assert killed[0] == kills
    assert part(col.last("state")) == part(state)
    assert seen == events, "an event lost, or applied twice"
    assert journaled == [p["transaction"] for _, p in reqs], "a request lost, or applied twice"
    assert first_seen == sorted(first_seen), "seq went back"
    assert part(last_replayed) == part(state)
    assert 1 <= len(traces) <= kills + 1  # a session killed while starting may leave none


async def test_kill_9_at_random_moments_leaves_the_state_of_an_uninterrupted_replay(
        tmp_path: Path, broker: Broker) -> None:
    await cuts(tmp_path, broker, kills=3, seed=11)


@pytest.mark.soak
@pytest.mark.timeout(900)
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_soak_many_power_cuts_over_several_matches(tmp_path: Path, broker: Broker,
                                                          seed: int) -> None:
    await cuts(tmp_path, broker, kills=12, seed=seed)
