"""Sensor boards misbehaving mid-match: the real firmware on a pty, the real service and broker.

Shot after shot a board is unplugged and plugged in again mid-shot (the drop happens while the
cable is out), has garbage and corrupted frames on its line, or reboots (a new boot id). Every
drop must reach subscribers once, in order; a pulled cable must show in health as a
disconnected board; and the match must end in the state the same shots give without faults.
A board powered by its cable restarts when it is plugged in again (a data gap: the referee is
asked), and a cushion chattering while the cable is out crowds out no drop (issue 32).
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from controller.pipeline.table import Table
from firmware_bridge.sim import SimBoard
from hardware.events import SensorEvent
from hardware.health import Health
from tests.broker import Broker
from tests.faults.record import note
from tests.firmware_bridge.test_link import corrupt_edges_frames
from tests.service.conftest import Collector, board_table

RUN = [(None, "fl"), (1, "fr"), (3, "sl"), (4, "hl"), (5, "hr"), (6, "fl"), (7, "sr"), (8, "fr"),
       (9, "fl"), (10, "sl")]
FAULTS = ("unplug", "garbage", "reboot", "none")
KEYS = ("status", "players", "to_shoot", "ball_in_hand", "on_table", "shot", "questions", "winner")


def expected(shots: list[tuple[int | None, str]]) -> dict[str, Any]:
    """Returns the state the same shots leave when every board behaves."""
    table = Table()
    table.start(0.0)
    t = 1.0
    table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 1}, t)
    for ball, pocket in shots:
        t += 1.0
        if ball is not None:
            table.request("call", {"calls": [{"ball": ball, "pocket": pocket}]}, t)
        for dt, ch, v in ((1.0, "cushion.h", 1), (1.01, "cushion.h", 0), (1.5, f"beam.{pocket}", 1),
                          (1.52, f"beam.{pocket}", 0)):
            table.sensor(SensorEvent(t + dt, ch, v))
        t += 2.0
        table.request("shot_end", {}, t)
        if ball is None:
            table.request("answer", {"answer": 2}, t + 0.5)
        t += 1.0
    snap = table.referee.snapshot()
    return {k: snap[k] for k in KEYS}


def ruled(col: Collector) -> int:
    return len([e for e in col.events("shot_result") if not e["data"].get("corrected")])


async def referee_answers(col: Collector, service: Any, n: int, script: list[tuple[int | None, str]]
                          ) -> None:
    """Waits for shot ``n`` to be ruled, answering what the table asks as a referee who saw
    the shots would: a pocket whose sensor was out of order had a ball if that shot's ball went
    there; the ball was the one called (on the break, the 2). (The shot a question is about is
    the number in its id, ``q-<shot>-<n>``; without one, the current shot.)"""
    answered: set[str] = set()
    while ruled(col) < n or col.last("state")["questions"]:
        await col.wait(lambda: (ruled(col) >= n and not col.last("state")["questions"]) or [
            q for q in col.last("state")["questions"] if q["id"] not in answered])
        for q in col.last("state")["questions"]:
            if q["id"] in answered:
                continue
            answered.add(q["id"])
            about = re.fullmatch(r"q-(\d+)-\d+", q["id"])
            ball, pocket = script[int(about.group(1)) - 1 if about else n - 1]
            if q["kind"] == "confirm":  # "did a ball fall in X?", after a gap "... X unseen?"
                asked = re.search(r"fall in (\w+)( unseen)?\?", q["prompt"])
                shot = int(about.group(1)) if about else n
                seen = any(e["data"]["pocket"] == pocket and e["data"]["shot"] == shot
                           for e in col.events("ball_pocketed"))
                answer: Any = (asked is not None and asked.group(1) == pocket
                               and not (asked.group(2) and seen))
            else:
                answer = 2 if ball is None else ball
            ASKED.append(q["prompt"])
            service.request("answer", {"question": q["id"], "answer": answer})


ASKED: list[str] = []


async def board_faults(tmp_path: Path, broker: Broker, shots: int, seed: int,
                       faults: list[str] | None = None) -> None:
    rng = random.Random(seed)
    plan = faults or [rng.choice(FAULTS) for _ in range(shots)]
    script = RUN[:shots]
    with SimBoard(link=tmp_path / "usb-Raspberry_Pi_Pico_E6614103E7000001-if00") as board:
        async with board_table(tmp_path, broker, board, health={"tick_s": 0.1}) as (col, service):
            service.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                          "race_to": 1})
            await col.wait(lambda: col.events("match_started"))
            for n, ((ball, pocket), fault) in enumerate(zip(script, plan, strict=True), start=1):
                if ball is not None:
                    service.request("call", {"calls": [{"ball": ball, "pocket": pocket}]})
                    await asyncio.sleep(0.05)
                board.edge("cushion.h", 1)
                await asyncio.sleep(0.01)
                board.edge("cushion.h", 0)
                if fault == "unplug":
                    await asyncio.sleep(rng.uniform(0.0, 0.2))
                    board.unplug()
                    await col.wait(lambda: any(e["data"].get("state") == "disconnected"
                                               for e in col.events("sensor_fault")[-13:]), 10)
                elif fault == "garbage":
                    board.port.write(bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))))
                    board.port.mangle = corrupt_edges_frames(1)
                elif fault == "reboot":
                    # once the shot's edges so far are acknowledged: a reboot loses what the
                    # board had not sent yet, and that is not this test's fault
                    ring = board.firmware.ring
                    await col.wait(lambda ring=ring: ring.ctl[1] == ring.ctl[0])  # type: ignore[misc]
                    board.reboot()
                await asyncio.sleep(rng.uniform(0.05, 0.3))
                board.edge(f"beam.{pocket}", 1)
                await asyncio.sleep(0.02)
                board.edge(f"beam.{pocket}", 0)
                if fault == "unplug":
                    await asyncio.sleep(rng.uniform(0.1, 0.6))
                    board.replug()
                await col.wait(lambda n=n: len(col.events("ball_pocketed")) >= n)  # type: ignore[misc]
                await col.wait(lambda: service.health.summary()["ok"])
                service.request("shot_end", {})
                await referee_answers(col, service, n, script)
            # every edge acknowledged (the board sends again only what is not), then a get
            # answered after whatever those edges caused: nothing sent twice is on its way
            ring = board.firmware.ring
            await col.wait(lambda: ring.ctl[1] == ring.ctl[0])
            service.request("get", {"transaction": "settled"})
            await col.response("get", "settled")
            await referee_answers(col, service, len(script), script)  # asked about late
            state = {k: col.last("state")[k] for k in KEYS}
    drops = [e["data"]["pocket"] for e in col.events("ball_pocketed")]
    seqs = [s.payload["seq"] for s in col.seen if not s.retain and "seq" in s.payload]
    unplugs = plan.count("unplug")
    disconnected = [e for e in col.events("sensor_fault") if e["data"].get("state") == "disconnected"]
    want = expected(script)
    ok = drops == [p for _, p in script] and state == want and seqs == sorted(set(seqs))
    for fault in set(plan):
        note(f"sensor board: {'none (control)' if fault == 'none' else fault} mid-shot",
             plan.count(fault), ok)
    assert drops == [p for _, p in script], "a drop lost or doubled"
    assert seqs == sorted(set(seqs))
    assert state == want
    assert (len(disconnected) > 0) == (unplugs > 0 or "reboot" in plan)


async def test_a_board_unplugged_mid_shot_corrupted_and_rebooted_loses_and_doubles_nothing(
        tmp_path: Path, broker: Broker) -> None:
    await board_faults(tmp_path, broker, 5, seed=3,
                       faults=["unplug", "garbage", "reboot", "none", "unplug"])


@pytest.mark.soak
@pytest.mark.timeout(900)
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_soak_random_board_faults_over_a_whole_run_out(tmp_path: Path, broker: Broker,
                                                             seed: int) -> None:
    await board_faults(tmp_path, broker, len(RUN), seed=seed)


def test_a_board_going_down_does_not_take_back_the_drops_its_beams_already_reported() -> None:
    table = Table()
    table.start(0.0)
    table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 1}, 1.0)
    table.request("call", {"calls": [{"ball": 1, "pocket": "fr"}]}, 2.0)
    table.sensor(SensorEvent(3.0, "beam.fr", 1))
    table.sensor(SensorEvent(3.02, "beam.fr", 0))
    table.request("shot_end", {}, 4.0)
    before = table.referee.snapshot()
    assert 1 not in before["on_table"] and not before["questions"]
    table.advance(4.5)
    for pocket in ("hl", "hr", "sl", "sr", "fl", "fr"):  # the board's link went down
        table.set_health(f"beam.{pocket}", Health.DISCONNECTED, 4.5)
    after = table.referee.snapshot()
    assert (after["on_table"], after["questions"]) == (before["on_table"], before["questions"])


async def test_a_board_powered_off_by_its_unplug_mid_shot_sends_the_shot_to_the_referee(
        tmp_path: Path, broker: Broker) -> None:
    """Issue 32 §1: a Pico powered by its USB cable is off while the cable is out; the ball
    that fell meanwhile is gone with it. The shot was ruled with no drop, no question and no
    warning; now the restart is a data gap: warned of, and the referee asked."""
    with SimBoard(link=tmp_path / "usb-Raspberry_Pi_Pico_E6614103E7000001-if00") as board:
        async with board_table(tmp_path, broker, board, health={"tick_s": 0.1}) as (col, service):
            service.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                          "race_to": 1})
            await col.wait(lambda: col.events("match_started"))
            board.edge("cushion.h", 1)
            await asyncio.sleep(0.01)
            board.edge("cushion.h", 0)
            ring = board.firmware.ring
            await col.wait(lambda: ring.ctl[0] == 2 and ring.ctl[1] == 2)  # the hit delivered
            first_boot = board.boot_id
            board.unplug()
            await col.wait(lambda: any(e["data"].get("state") == "disconnected"
                                       for e in col.events("sensor_fault")))
            board.edge("beam.fl", 1)  # kept by the board, until its power goes
            await asyncio.sleep(0.02)
            board.edge("beam.fl", 0)
            board.reboot()  # off with the cable, and on again when it is back
            board.replug()
            gaps = await col.wait(lambda: [e["data"] for e in col.events("warning")
                                           if e["data"].get("kind") == "data_gap"], 20)
            service.request("shot_end", {})
            asked = await col.wait(lambda: [q for q in col.last("state")["questions"]
                                            if re.search(r"fall in fl( unseen)?\?",
                                                         q["prompt"])], 20)
            # the health says it in its next snapshot (read at once, on a loaded machine the
            # last one was still the unplug's: "port lost")
            health = await col.wait(lambda: (h := col.last("health")["links"].get(board.uid, {}))
                                    .get("reason") == "rebooted" and h, 20)
    assert board.boot_id != first_boot
    assert [g["source"] for g in gaps] == [board.uid] and "beam.fl" in gaps[0]["channels"]
    assert asked and not col.events("ball_pocketed")
    assert health["reason"] == "rebooted" and health["up"]


async def test_a_chattering_cushion_while_the_cable_is_out_crowds_out_no_drop(
        tmp_path: Path, broker: Broker) -> None:
    """Issue 32 §3: a cushion sensor toggling every 1 ms through a 2 s unplug filled the
    board's ring, and 8 of 11 drops were lost without a word. Every drop is published once,
    with its own time."""
    pockets = ["fl", "fr", "sl", "sr", "hl", "hr"]
    with SimBoard(link=tmp_path / "usb-Raspberry_Pi_Pico_E6614103E7000001-if00") as board:
        async with board_table(tmp_path, broker, board, health={"tick_s": 0.1}) as (col, service):
            service.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                          "race_to": 1})
            await col.wait(lambda: col.events("match_started"))
            board.unplug()
            await col.wait(lambda: any(e["data"].get("state") == "disconnected"
                                       for e in col.events("sensor_fault")))
            drops: list[tuple[str, float]] = []
            start, ms = time.monotonic(), 0
            while ms < 2000:  # the cable out for 2 s: each edge at its own instant (played
                while ms < 2000 and start + ms / 1000 <= time.monotonic():  # a few ms late)
                    at = start + ms / 1000
                    board.edge("cushion.h", (ms + 1) % 2, at)
                    if ms % 180 == 50 and len(drops) < 11:  # a ball through a beam, 20 ms
                        pocket = pockets[len(drops) % 6]
                        board.edge(f"beam.{pocket}", 1, at + 0.0005)
                        board.edge(f"beam.{pocket}", 0, at + 0.0205)
                        drops.append((pocket, at + 0.0005))
                    ms += 1
                await asyncio.sleep(0.002)
            board.replug()
            await col.wait(lambda: len(col.events("ball_pocketed")) >= 11, 20)
            ring = board.firmware.ring
            await col.wait(lambda: ring.ctl[1] == ring.ctl[0])  # all acknowledged
            service.request("get", {"transaction": "settled"})
            await col.response("get", "settled")
    got = [(e["data"]["pocket"], e["ts"]) for e in col.events("ball_pocketed")]
    assert [p for p, _ in got] == [p for p, _ in drops]  # each once, in order
    # on the service's clock: the same offset for all, each with its own time
    offset = got[0][1] - drops[0][1]
    assert all(abs((ts - t) - offset) < 0.005 for (_, ts), (_, t) in zip(got, drops, strict=True))
    assert board.firmware.gate.throttled[board.firmware.channels[7].index] > 0
    assert board.firmware.ring.lost[0] == 0


#: How long the table's clock holds for a board that went down (``health.board_hold_s``; 10 s
#: by default): the test is the board back after the hold gave up on it, not its length.
HOLD_S = 2.0


async def test_a_board_unplugged_past_the_clocks_hold_mid_shot_has_every_drop_published_with_its_time(
        tmp_path: Path, broker: Broker) -> None:
    """Issue 32 §2: the hold gave up 0.23 s before the board was back, and the kept edges were
    taken at the replug instant (zero-width pulses): no drop was published. Two balls in fl
    and one in fr while the cable is out; back once the table, its hold given up, has ruled
    the shot without them (asking about the pockets): three drops, their own times."""
    with SimBoard(link=tmp_path / "usb-Raspberry_Pi_Pico_E6614103E7000001-if00") as board:
        async with board_table(tmp_path, broker, board, health={
                "tick_s": 0.1, "board_hold_s": HOLD_S}) as (col, service):
            service.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                          "race_to": 1})
            await col.wait(lambda: col.events("match_started"))
            board.edge("cushion.h", 1)
            await asyncio.sleep(0.01)
            board.edge("cushion.h", 0)
            ring = board.firmware.ring
            await col.wait(lambda: ring.ctl[0] == 2 and ring.ctl[1] == 2)
            pulled = time.monotonic()
            board.unplug()
            truth = []
            for pocket in ("fl", "fr", "fl"):
                await asyncio.sleep(0.3)
                before = time.monotonic()  # the board stamps the edge in between
                board.edge(f"beam.{pocket}", 1)
                truth.append((pocket, before, time.monotonic()))
                await asyncio.sleep(0.03)
                board.edge(f"beam.{pocket}", 0)
            # the held clock stands where the board's data ended: the shot is ruled (its quiet
            # window over: the pockets of the board's beams asked about) only after the hold
            # was given up
            await col.wait(lambda: col.events("question"), 20)
            assert not col.events("ball_pocketed")
            assert time.monotonic() - pulled > HOLD_S
            board.replug()
            await col.wait(lambda: len(col.events("ball_pocketed")) >= 3, 20)
            await col.wait(lambda: ring.ctl[1] == ring.ctl[0])
            service.request("get", {"transaction": "settled"})
            await col.response("get", "settled")
    got = [(e["data"]["pocket"], e["ts"]) for e in col.events("ball_pocketed")]
    assert [p for p, _ in got] == [p for p, _, _ in truth]  # each once
    # each at its own time: measured from the first drop, within the spans the two were
    # stamped in (a loaded machine can preempt the test between its clock and the board's)
    _, before0, after0 = truth[0]
    for (_, ts), (pocket, before, after) in zip(got, truth, strict=True):
        since = ts - got[0][1]
        assert before - after0 - 0.01 < since < after - before0 + 0.01, (pocket, since)
    assert got[-1][1] < got[0][1] + 1.0  # their own times, not the replug's, 2 s later
