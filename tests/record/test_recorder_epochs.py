"""Which epoch is a table's own is decided without the recorder's wall clock, and askings
stay bounded per table whatever the clocks do (issue 39, item 7): the wall clock stepped
back an hour (an NTP step), then the table replaced (a new journal, numbering from 1). The
recorder took the epoch heard last by its wall clock for the table's own: the old one, and
asked the table ~150 times a second, the new epoch never complete."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import aiomqtt
import pytest

from controller.record.recorder import Recorder
from controller.record.store import Store
from controller.wire.connection import parse_broker
from tests.broker import Broker
from tests.record.venue import epoch, published, stored, tables
from tests.waiting import until

#: How long askings are counted once the record is complete (the defect asked ~150 times a
#: second: a few seconds show it as well as a minute).
WINDOW_S = 5.0


@pytest.mark.timeout(300)
async def test_the_clock_stepped_back_an_hour_then_the_table_replaced_asks_little_and_completes(
        tmp_path: Path, broker: Broker, store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(store_url)
    rec = Recorder(store, parse_broker(broker.url), client_id="epochs-test")
    recording = asyncio.create_task(rec.run())
    asked: list[float] = []
    try:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("billiards/club/t1/request/history_since", qos=1)

            async def count() -> None:
                async for _ in client.messages:
                    asked.append(time.monotonic())

            counting = asyncio.create_task(count())
            await until(lambda: rec.counters.connections >= 1, 30, "the recorder subscribed")
            async with tables(tmp_path, broker, 1, speed=40, shots=10, loop=False):
                old = epoch(tmp_path, "t1")
                await until(lambda: len(store.progress()) == 1, 30, "the old Pi heard")
            wall = time.time
            monkeypatch.setattr(time, "time", lambda: wall() - 3600.0)  # an NTP step back
            shutil.rmtree(tmp_path / "t1")  # the Pi replaced: a new, empty data directory
            async with tables(tmp_path, broker, 1, speed=40, shots=10, loop=False):
                new = epoch(tmp_path, "t1")
                await until(lambda: set(published(tmp_path, "t1")) <= set(stored(store, tmp_path, "t1"))
                            and store.progress().get(("club", "t1", new)) is not None
                            and store.progress()[("club", "t1", new)].complete_upto
                            >= max(published(tmp_path, "t1"))
                            and store.progress()[("club", "t1", old)].closed, 60,
                            "the new epoch complete and the old one closed")
                start = time.monotonic()
                await asyncio.sleep(WINDOW_S)  # the window the askings are counted in
                during = [t for t in asked if t >= start]
            counting.cancel()
    finally:
        recording.cancel()
        await asyncio.gather(recording, return_exceptions=True)
    assert new != old
    assert len(during) <= 1  # at most one asking late in the window, not ~150 a second
    assert len(asked) < 30  # and few in all
