"""Late edges keep their time: a sensor source that goes down holds the table's clock, and the
edges it kept come in with their own times. On the core (a fake clock) and through the whole
service (serial backend, the real firmware on a pty, a real Mosquitto)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from controller.service.core import HOLD_S
from firmware_bridge.sim import SimBoard
from hardware.events import LinkChanged, SensorEvent
from hardware.health import Health
from tests.broker import Broker
from tests.service.conftest import board_table
from tests.service.corekit import Stepper, core_config, events
from tests.service.test_core import in_a_match, journal_lines

BEAMS = ("beam.hl", "beam.hr", "beam.sl", "beam.sr", "beam.fl", "beam.fr")
#: Eleven balls into the pockets, each blocking its beam for 30 ms (seconds after the unplug).
DROPS = [("fl", 0.10), ("fr", 0.25), ("sl", 0.40), ("sr", 0.55), ("hl", 0.70), ("hr", 0.85),
         ("fl", 1.00), ("fr", 1.15), ("sl", 1.30), ("sr", 1.45), ("hl", 1.60)]


def kept_edges(start: float) -> list[SensorEvent]:
    return [SensorEvent(start + at + dt, f"beam.{pocket}", v)
            for pocket, at in DROPS for dt, v in ((0.0, 1), (0.03, 0))]


def pocketed(stepper: Stepper) -> list[tuple[str, float]]:
    return [(json.loads(o.payload)["data"]["pocket"], json.loads(o.payload)["ts"])
            for o in events(stepper.sent, "ball_pocketed")]


def test_a_board_back_after_2_s_has_every_drop_it_kept_ruled_with_its_pocket_and_time(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.step({"t": 2.0, "ch": "cushion.f", "v": 1})
    s.step({"t": 2.01, "ch": "cushion.f", "v": 0})
    s.at(2.06)
    s.take(s.core.handle(LinkChanged(2.05, "board-a", False, "unplugged", BEAMS)))
    for n in range(40):  # 4 s of ticks while it is out: far past the 3 s a shot settles in
        s.settle(2.1 + 0.1 * n)
    assert not events(s.sent, "shot_result") and not events(s.sent, "question")
    assert s.core.now() == 2.05  # held at what the board had confirmed
    s.at(6.2)
    s.take(s.core.handle(LinkChanged(6.2, "board-a", True, "reconnected", BEAMS)))
    for edge in kept_edges(2.05):  # queued right behind its LinkChanged, as the link sends them
        s.take(s.core.handle(edge))
    assert pocketed(s) == []  # they wait for the tick: other edges may be older
    s.settle(6.2)
    assert pocketed(s) == [(p, round(2.05 + at, 6)) for p, at in DROPS]
    s.commit()
    journaled = [line for line in journal_lines(tmp_path) if line.get("ch", "").startswith("beam")]
    assert [line["t"] for line in journaled] == [round(e.t, 6) for e in kept_edges(2.05)]
    s.close()


def a_down_while_b_drops(data: Path) -> Stepper:
    """Board A (``beam.fl``) goes down at 2.0; board B, live, sees a drop in fr at 2.4."""
    s = in_a_match(core_config(data))
    s.at(2.0)
    s.take(s.core.handle(LinkChanged(2.0, "board-a", False, "unplugged", ("beam.fl",))))
    s.at(2.5)
    s.take(s.core.handle(SensorEvent(2.4, "beam.fr", 1)))
    s.take(s.core.handle(SensorEvent(2.43, "beam.fr", 0)))
    return s


def test_a_live_sources_edges_wait_for_the_held_one_and_all_come_in_time_order(tmp_path):
    s = a_down_while_b_drops(tmp_path)
    assert pocketed(s) == []  # B's drop waits: A may have seen something earlier
    s.at(3.0)
    s.take(s.core.handle(LinkChanged(3.0, "board-a", True, "reconnected", ("beam.fl",))))
    s.take(s.core.handle(SensorEvent(2.2, "beam.fl", 1)))  # what A kept
    s.take(s.core.handle(SensorEvent(2.23, "beam.fl", 0)))
    s.settle(3.0)
    assert pocketed(s) == [("fl", 2.2), ("fr", 2.4)]
    s.close()


def test_a_source_down_longer_than_the_hold_lets_the_clock_go_on(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.step({"t": 2.0, "ch": "cushion.f", "v": 1})
    s.step({"t": 2.01, "ch": "cushion.f", "v": 0})
    s.at(2.05)
    s.take(s.core.handle(LinkChanged(2.05, "board-a", False, "unplugged", ("beam.fl",))))
    s.at(3.0)
    s.take(s.core.handle(SensorEvent(2.9, "beam.fr", 1)))  # another source's, waiting
    s.take(s.core.handle(SensorEvent(2.93, "beam.fr", 0)))
    s.settle(2.05 + HOLD_S - 0.1)
    assert pocketed(s) == []
    s.settle(2.05 + HOLD_S + 0.1)  # given up on: the clock goes on, what waited comes in
    assert pocketed(s) == [("fr", 2.9)]
    s.settle(2.05 + HOLD_S + 4.0)
    assert events(s.sent, "shot_result") or events(s.sent, "question")  # the shot is ruled
    s.close()


def test_a_link_that_carries_no_sensor_does_not_hold_the_clock(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.at(2.0)
    s.take(s.core.handle(LinkChanged(2.0, "broker", False, "refuses B/event")))
    s.at(2.5)
    s.take(s.core.handle(SensorEvent(2.4, "beam.fr", 1)))
    s.take(s.core.handle(SensorEvent(2.43, "beam.fr", 0)))
    assert s.core.now() == 2.5 and pocketed(s) == [("fr", 2.4)]  # not held
    s.close()


def test_edges_waiting_for_a_held_source_are_not_lost_at_a_clean_stop(tmp_path):
    s = a_down_while_b_drops(tmp_path)
    s.take(s.core.stop())
    assert pocketed(s) == [("fr", 2.4)]
    s.close()


def a_late_drop(data: Path, pocket: str = "fl", block: float = 2.2, at: float = 2.4) -> Stepper:
    """A shot (a cushion at 2.0); at ``at`` on the table's clock a loaded host hands over a drop
    in ``pocket`` (blocked 30 ms from ``block``: 200 ms on its way by default) behind a cushion
    pulse that the table already took (50 ms before ``at``)."""
    s = in_a_match(core_config(data))
    s.step({"t": 2.0, "ch": "cushion.f", "v": 1})
    s.step({"t": 2.01, "ch": "cushion.f", "v": 0})
    s.at(at)
    s.take(s.core.tick())
    for t, ch, v in ((at - 0.05, "cushion.lf", 1), (at - 0.04, "cushion.lf", 0),
                     (block, f"beam.{pocket}", 1), (block + 0.03, f"beam.{pocket}", 0)):
        s.take(s.core.handle(SensorEvent(t, ch, v)))
    return s


def test_an_edge_200_ms_late_keeps_its_own_time_and_its_drop_is_published(tmp_path):
    s = a_late_drop(tmp_path)
    s.settle(2.5)
    assert pocketed(s) == [("fl", 2.2)]  # taken at the table's time, it was a 0 ms block
    for n in range(60):
        s.settle(2.5 + 0.1 * n)
    (asked,) = [json.loads(o.payload)["data"] for o in events(s.sent, "question")]
    assert asked["topic"] == "which_balls" and asked["about"] == {"pocket": "fl"}  # shot 1 ruled
    s.commit()
    beam = [line for line in journal_lines(tmp_path) if line.get("ch") == "beam.fl"]
    assert [line.get("at") for line in beam] == [2.2, 2.23]  # its own time, journaled
    assert min(line["t"] for line in beam) >= 2.36  # taken at the table's time
    s.close()


def test_sensor_health_judges_a_late_block_by_its_own_time(tmp_path):
    s = a_late_drop(tmp_path)
    s.take(s.core.handle(SensorEvent(2.3, "beam.fr", 1)))  # 50 ms late, and never cleared
    s.settle(4.33)  # 2.03 s after the block, 1.98 s after the table took it: stuck
    assert s.core.health.state("beam.fr") is Health.STUCK
    assert s.core.health.state("beam.fl") is Health.OK
    s.close()


def test_a_drop_reaching_the_table_2_5_s_late_is_not_judged_stuck_as_it_began(tmp_path):
    # 2.5 s of play is 125 ms of host time at 20 times: the evening soak's loaded host
    s = a_late_drop(tmp_path, "fr", block=2.3, at=4.8)
    s.settle(4.9)
    faults = [json.loads(o.payload)["type"] for o in s.sent if o.topic.endswith("/event")
              and json.loads(o.payload)["type"].startswith("sensor_")]
    assert faults == [] and pocketed(s) == [("fr", 2.3)]
    s.close()


# -- the whole service -----------------------------------------------------------------------


async def test_a_board_unplugged_for_2_s_mid_shot_publishes_every_drop_once_with_pocket_and_time(
    tmp_path: Path, broker: Broker,
) -> None:
    with SimBoard(link=tmp_path / "usb-Raspberry_Pi_Pico_E6614103E7000001-if00") as board:
        async with board_table(tmp_path, broker, board, health={"tick_s": 0.1}) as (col, service):
            service.request("new_match", {"game": "pyramid", "players": ["Ann", "Bob"]})
            await col.wait(lambda: col.events("match_started"))
            board.edge("cushion.h", 1)
            await asyncio.sleep(0.01)
            board.edge("cushion.h", 0)
            await asyncio.sleep(0.6)  # back 2.6 s after this hit: past the 2.5 s a shot settles in
            board.unplug()
            start = time.monotonic()
            truth = []
            for pocket, at in DROPS:
                for dt, v in ((0.0, 1), (0.03, 0)):
                    target = start + at + dt
                    await asyncio.sleep(max(0.0, target - time.monotonic()))
                    board.edge(f"beam.{pocket}", v, target)
                truth.append(start + at)
            await asyncio.sleep(max(0.0, start + 2.0 - time.monotonic()))
            board.replug()
            await col.wait(lambda: len(col.events("ball_pocketed")) >= len(DROPS), 20)
            await asyncio.sleep(0.5)  # anything published twice would have arrived by now
            offset = service.core.clock() - time.monotonic()  # the service's time on the host's
            drops = col.events("ball_pocketed")
    assert [d["data"]["pocket"] for d in drops] == [p for p, _ in DROPS]
    assert [d["data"]["shot"] for d in drops] == [1] * len(DROPS)  # the shot they fell in
    errors = [abs(d["ts"] - offset - t) for d, t in zip(drops, truth, strict=True)]
    assert max(errors) < 0.002, [f"{e * 1e3:.2f} ms" for e in errors]
    assert len({d["seq"] for d in drops}) == len(DROPS)
