"""A host that stalls (the evening soak: load 30 on 2 cores) loses no drop: time the service did
not listen through judges no sensor stuck. On the core (a fake clock), stepped as the shell
steps it (``idle_for`` before each wait, the tick when the wait ends), and through the whole
service (gpiozero's MockFactory pins, a real Mosquitto) with its event loop really stalled."""

from __future__ import annotations

import json
import math
import time

from controller.service.clock import Listening
from hardware.events import SensorEvent
from hardware.health import Health
from tests.broker import Broker
from tests.service.conftest import Collector, gpio_table, running
from tests.service.corekit import Stepper, core_config, events
from tests.service.test_core import NEW_MATCH, in_a_match


def test_the_hold_of_a_stall_lasts_until_the_service_listened_again_and_always_moves_on():
    heard = Listening()
    heard.stepped(0.0, 1.0)
    heard.stepped(5.0, 6.0)  # no pace told yet (a core stepped by hand, a replay): no stall
    assert heard.held == math.inf
    heard.waiting(5.0, 0.5)
    heard.stepped(5.5, 6.5)  # the wait timed out on time
    assert heard.held == math.inf
    heard.waiting(5.6, 0.5)
    heard.stepped(9.0, 10.0)  # 2.9 s past the wait: a stall
    assert heard.held == 6.5  # the table's time at the step before it
    heard.stepped(9.01, 10.01)  # an input right after: not yet listened
    assert heard.held == 6.5
    heard.waiting(9.02, 0.5)
    heard.stepped(9.03, 10.03)  # an input in the wait, on time: listened again
    assert heard.held == math.inf
    heard.waiting(9.04, 0.5)
    heard.stepped(12.0, 13.0)  # a stall ...
    heard.waiting(12.3, 0.5)  # ... the core's own work slow (0.3 s) ...
    heard.stepped(12.4, 13.4)  # ... a stall after a stall: held at the step between them
    assert heard.held == 13.0
    heard.stepped(12.42, 13.42)
    heard.stepped(12.46, 13.46)  # on time, LAG after the stall: what waited is in
    assert heard.held == math.inf


def a_block_before_a_stall(data, stall: float) -> Stepper:
    """A shot (a cushion at 2.0), a ball blocks ``beam.fl`` at 2.2 (taken on time); the shell
    asks how long it may wait, and the host stalls ``stall`` s past it; the wait ends, the
    tick runs: the release (stamped 2.3 by the backend) is not in yet."""
    s = in_a_match(core_config(data))
    s.step({"t": 2.0, "ch": "cushion.f", "v": 1})
    s.step({"t": 2.01, "ch": "cushion.f", "v": 0})
    s.step({"t": 2.2, "ch": "beam.fl", "v": 1})
    s.clock.t += s.core.idle_for() + stall
    s.take(s.core.tick())
    return s


def kinds(s: Stepper) -> list[str]:
    return [json.loads(o.payload)["type"] for o in s.sent if o.topic.endswith("/event")]


def test_a_release_that_waited_out_a_3_s_stall_keeps_its_drop(tmp_path):
    s = a_block_before_a_stall(tmp_path, 3.0)
    assert s.core.health.state("beam.fl") is Health.OK  # the stall is no evidence
    s.take(s.core.handle(SensorEvent(2.3, "beam.fl", 0)))  # the backend hands it over
    for n in range(40):
        s.settle(5.3 + 0.1 * n)
    assert kinds(s) == ["match_started", "ball_pocketed", "question"]  # no sensor_fault
    dropped = [json.loads(o.payload)["data"] for o in events(s.sent, "ball_pocketed")]
    assert [(d["pocket"], d["shot"]) for d in dropped] == [("fl", 1)]
    # the drop stands in the ruling: ten-ball asks which ball it was (no identity reader),
    # not whether one fell (the question of a beam out of order, its drop taken back)
    (asked,) = [json.loads(o.payload)["data"] for o in events(s.sent, "question")]
    assert asked["topic"] == "which_balls" and asked["about"] == {"pocket": "fl"}
    s.close()


def test_a_beam_still_blocked_after_the_stall_is_stuck_at_the_next_tick(tmp_path):
    s = a_block_before_a_stall(tmp_path, 3.0)
    s.clock.t += s.core.idle_for()  # the service listened again: no release came
    s.take(s.core.tick())
    assert s.core.health.state("beam.fl") is Health.STUCK
    s.close()


def test_a_beam_blocked_with_the_clock_moving_on_normally_is_stuck_after_2_s(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.step({"t": 2.2, "ch": "beam.fl", "v": 1})
    while s.core.health.state("beam.fl") is Health.OK:
        s.clock.t += s.core.idle_for()
        s.take(s.core.tick())
    assert 4.2 < s.core.now() < 4.2 + 0.5 + 0.06  # the 2 s limit, then one tick and LAG at most
    s.close()


async def test_a_service_whose_loop_stalls_3_s_between_a_block_and_its_release_keeps_the_drop(
    tmp_path, broker: Broker,
) -> None:
    pins: dict[str, int | str] = {"beam.fl": 5, "cushion.f": 17}
    with gpio_table(tmp_path, broker, pins) as (service, driver):
        async with Collector(broker) as col, running(service):
            service.request("new_match", NEW_MATCH)
            await col.wait(lambda: col.events("match_started"))
            at = driver.factory.ticks() - driver.t0 + 0.01
            await driver.edge("cushion.f", 1, at)
            await driver.edge("cushion.f", 0, at + 0.01)
            await driver.edge("beam.fl", 1, at + 0.2)
            await col.wait(lambda: col.events("ball_pocketed"))  # the block was taken
            release = driver.submit("beam.fl", 0, at + 0.3)  # on the driver's (lgpio's) thread
            time.sleep(3.0)  # the host stalls the loop: the service runs nothing meanwhile
            assert release.done()  # the release happened (and was stamped) during the stall
            # the service wakes: its wait has timed out, the tick runs before the release is in
            await col.wait(lambda: col.events("question"))
            service.request("get", {"transaction": "g"})  # what it said by now comes first
            await col.response("get", "g")
            faults = [e for e in col.events() if e["type"].startswith("sensor_")]
            questions = [(e["data"]["topic"], e["data"]["about"]) for e in col.events("question")]
            pocketed = [e["data"]["pocket"] for e in col.events("ball_pocketed")]
    assert not faults, faults
    assert pocketed == ["fl"]
    assert questions == [("which_balls", {"pocket": "fl"})]  # the drop stands: which ball?


def test_a_block_and_its_release_a_source_hands_over_late_together_keep_their_drop(tmp_path):
    """A source that fell behind (a board's backlog; the evening's simulated world starved of
    CPU at load 15, its table at 10x: a wait of 0.25 s is 2.5 s of table time) hands over a
    block and its release 2.3 s after their times, one after the other, within the wait the
    host promised: no stall, no tick, nothing newer taken before them (the block is not
    late). It is judged at its own time, as far as its source was heard: not stuck for the
    time it waited (the full evening lost 20 drops so: the block judged stuck on arrival,
    its drop taken back)."""
    s = in_a_match(core_config(tmp_path))
    s.step({"t": 2.15, "ch": "cushion.f", "v": 1})
    s.step({"t": 2.16, "ch": "cushion.f", "v": 0})
    s.clock.t += 2.3  # stepped by hand (no pace told: no stall), no tick meanwhile
    assert s.core.now() > 2.2 + 2.0  # the block's time is past the stuck limit
    s.take(s.core.handle(SensorEvent(2.2, "beam.fl", 1)))
    s.take(s.core.handle(SensorEvent(2.209, "beam.fl", 0)))
    assert s.core.health.state("beam.fl") is Health.OK
    for n in range(40):
        s.settle(4.5 + 0.1 * n)
    assert kinds(s) == ["match_started", "ball_pocketed", "question"]  # no sensor_fault
    dropped = [json.loads(o.payload)["data"] for o in events(s.sent, "ball_pocketed")]
    assert [(d["pocket"], d["shot"]) for d in dropped] == [("fl", 1)]
    s.close()
