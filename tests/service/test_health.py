"""Sensor health on the wire: a beam stuck blocked is a ``sensor_fault`` and shows in B/health."""

from __future__ import annotations

import json

from tests.service.conftest import Collector, make_config, running


async def test_a_stuck_beam_is_reported_as_a_fault_in_events_health_and_status(tmp_path, broker):
    trace = tmp_path / "stuck.jsonl"
    lines = [{"trace": 1}, {"t": 1.0, "ch": "cushion.f", "v": 1}, {"t": 1.01, "ch": "cushion.f", "v": 0},
             {"t": 2.0, "ch": "beam.fl", "v": 1}, {"t": 9.0, "ch": "beam.fl", "v": 0}]
    trace.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": 10.0},
                         health={"tick_s": 0.05})
    async with Collector(broker) as col, running(config):
        (fault,) = await col.wait(lambda: col.events("sensor_fault"))
        assert fault["data"]["channel"] == "beam.fl" and fault["data"]["state"] == "stuck"
        health = await col.wait(lambda: [h for h in col.of("health") if h["faults"]])
        assert health[-1]["faults"] == {"beam.fl": "stuck"} and "links" in health[-1]
        (recovered,) = await col.wait(lambda: col.events("sensor_recovered"))
        assert recovered["data"]["channel"] == "beam.fl"
        status = [p["health"] for p in col.of("status") if p["state"] == "online"]
        assert {"ok": False, "faults": {"beam.fl": "stuck"}} in status
        assert status[-1] == {"ok": True, "faults": {}}
    # fusion was told, and the journal and the trace hold it, so replays rule as the table did
    (recorded,) = (tmp_path / "data" / "traces").glob("trace-*.jsonl")
    told = [(x["health"], x["usable"]) for x in map(json.loads, recorded.read_text().splitlines())
            if "health" in x]
    assert told == [("beam.fl", False), ("beam.fl", True)]
