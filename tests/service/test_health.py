"""Sensor health on the wire: a beam stuck blocked is a ``sensor_fault`` and shows in B/health."""

from __future__ import annotations

import json
import time

import pytest

from tests.service.conftest import Collector, HeldClock, gpio_table, make_config, running


async def test_a_stuck_beam_is_reported_as_a_fault_in_events_health_and_status(tmp_path, broker):
    trace = tmp_path / "stuck.jsonl"
    lines = [{"trace": 1}, {"t": 1.0, "ch": "cushion.f", "v": 1}, {"t": 1.01, "ch": "cushion.f", "v": 0},
             {"t": 2.0, "ch": "beam.fl", "v": 1}, {"t": 9.0, "ch": "beam.fl", "v": 0}]
    trace.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    # blocked 7 s of trace time, stuck after 2: at 5 times real time the loop may stall for a
    # second (a loaded machine) before the release edge could come in ahead of the verdict
    config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": 5.0},
                         health={"tick_s": 0.05})
    async with Collector(broker) as col, running(config):
        (fault,) = await col.wait(lambda: col.events("sensor_fault"))
        assert fault["data"]["channel"] == "beam.fl" and fault["data"]["state"] == "stuck"
        health = await col.wait(lambda: [h for h in col.of("health") if h["faults"]])
        assert health[-1]["faults"] == {"beam.fl": "stuck"} and "links" in health[-1]
        (recovered,) = await col.wait(lambda: col.events("sensor_recovered"))
        assert recovered["data"]["channel"] == "beam.fl"

        def status() -> list[dict]:
            return [p["health"] for p in col.of("status") if p["state"] == "online"]
        # B/status follows the event (and B/health) it goes with
        await col.wait(lambda: status()[-1] == {"ok": True, "faults": {}})
        assert {"ok": False, "faults": {"beam.fl": "stuck"}} in status()
    # fusion was told, and the journal and the trace hold it, so replays rule as the table did
    (recorded,) = (tmp_path / "data" / "traces").glob("trace-*.jsonl")
    told = [(x["health"], x["state"]) for x in map(json.loads, recorded.read_text().splitlines())
            if "health" in x]
    assert told == [("beam.fl", "stuck"), ("beam.fl", "ok")]


async def test_a_beam_whose_release_reaches_the_service_late_is_not_called_stuck(tmp_path, broker):
    # the lgpio thread (here the driver) hands each edge over 40 ms after it happened: a beam
    # blocked for 1.98 s, just under the stuck limit (2 s), clears 2.02 s after its block
    # reached the service. Judged on the service's own clock, the health tick in between
    # would call it stuck (and then recovered), for an edge that was merely on its way.
    # The service's clock is held (HeldClock) at the moments that matter: a loaded machine's
    # late thread or loop cannot make the release later than the 40 ms on the table's clock.
    pins: dict[str, int | str] = {"beam.fl": 5, "cushion.f": 17}
    clock = HeldClock()
    with gpio_table(tmp_path, broker, pins, clock=clock,
                    health={"tick_s": 0.002}) as (service, driver):
        async with Collector(broker) as col, running(service):
            def edges() -> int:
                return int(service.health.snapshot()["channels"]["beam.fl"]["edges"])

            def handed_over_40_ms_late() -> float:  # a driver time 40 ms before now
                return float(driver.factory.ticks() - driver.t0 - 0.04)

            clock.hold(time.monotonic())
            await driver.edge("beam.fl", 1, handed_over_40_ms_late())
            await col.wait(lambda: edges() >= 1)
            blocked = service.health.snapshot()["channels"]["beam.fl"]["last"]
            # 2.02 s after the block: its release (1.98 s after it) is 40 ms on its way
            clock.hold(clock.held + 2.02 - (service.clock() - blocked))  # type: ignore[operator]
            assert service.clock() - blocked == pytest.approx(2.02)
            # the service's loop ticks (its health too) at that time before the release comes
            await col.wait(lambda: clock.reads >= 50)
            await driver.edge("beam.fl", 0, handed_over_40_ms_late())
            await col.wait(lambda: edges() >= 2)
            released = service.health.snapshot()["channels"]["beam.fl"]["last"]
            assert 1.9 < released - blocked <= 1.98 + 1e-6
            # anything health said of the beam by now is published before the answer to this
            service.request("get", {"transaction": "g"})
            await col.response("get", "g")
            faults = [e for e in col.events() if e["type"].startswith("sensor_")]
            assert not faults, faults
