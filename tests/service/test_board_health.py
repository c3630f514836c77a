"""A sensor board in trouble shows in ``health`` over MQTT: its link's bad frames, sequence
gaps and resends in B/health, and a ``warning`` event (``link_trouble``) when they go up."""

from __future__ import annotations

import asyncio
from pathlib import Path

from firmware_bridge.sim import SimBoard
from tests.broker import Broker
from tests.firmware_bridge.test_link import corrupt_edges_frames
from tests.service.conftest import board_table


async def test_a_board_whose_frames_are_corrupted_shows_its_trouble_in_health(
    tmp_path: Path, broker: Broker,
) -> None:
    with SimBoard() as board:
        async with board_table(tmp_path, broker, board,
                               health={"tick_s": 0.05, "publish_interval_s": 0.2}) as (col, _):
            board.port.mangle = corrupt_edges_frames(2)  # two frames of edges fail their CRC
            for v in (1, 0, 1, 0):
                board.edge("cushion.h", v)
                await asyncio.sleep(0.03)

            def troubled() -> list[dict[str, int]]:
                return [h["links"]["serial"] for h in col.of("health")
                        if h["links"].get("serial", {}).get("bad_frames", 0) >= 2
                        and h["links"]["serial"]["resends"] >= 1]

            [serial, *_] = await col.wait(troubled)
            assert serial["protocol_errors"] == 0 and serial["blind_spells"] == 0
            warnings = await col.wait(lambda: [e["data"] for e in col.events("warning")
                                               if e["data"].get("kind") == "link_trouble"])
            assert warnings[0]["source"] == "serial" and "bad_frames +" in warnings[0]["reason"]
            assert sum(w["added"].get("bad_frames", 0) for w in warnings) >= 2
