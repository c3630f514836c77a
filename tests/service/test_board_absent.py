"""A configured sensor board that is absent makes the table say so at once (issue 28): the
live service with a real broker publishes ``ok: false`` naming the port and why, in
B/health and in B/status's summary (what the dashboard shows), and logs it."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from tests.broker import Broker
from tests.service.conftest import Collector, make_config, running


async def test_an_absent_board_is_a_fault_from_the_first_second(
        tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture) -> None:
    port = str(tmp_path / "usb-Raspberry_Pi_Pico-if00")
    config = make_config(tmp_path, broker, backend="serial", serial={"ports": [port]})
    caplog.set_level(logging.ERROR, logger="controller.service.backends")
    async with Collector(broker) as col, running(config):
        started = time.monotonic()
        [health, *_] = await col.wait(lambda: [h for h in col.of("health")
                                               if port in h.get("links", {})], 5.0)
        assert time.monotonic() - started < 2.0  # from the first second (and the publish)
        assert health["ok"] is False and health["summary"]["ok"] is False
        assert not health["links"][port]["up"]
        assert health["links"][port]["reason"].startswith(f"absent: no device {port}")
        [summary, *_] = await col.wait(lambda: [s["health"] for s in col.of("status")
                                                if s.get("health", {}).get("down")], 5.0)
        assert summary["ok"] is False and summary["down"][port].startswith("absent")
    assert any(port in r.getMessage() and "absent" in r.getMessage() for r in caplog.records)
