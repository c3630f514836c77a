"""The recorder's store calls run off its event loop (issue 39, item 10): a PostgreSQL store
held up (a table locked by another session) while a fill's answer is taken leaves the loop
free (the MQTT session, the health, the pages); aiomqtt's private queue is read only through
the one pinned place (``controller.wire.connection``)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import aiomqtt
import psycopg
import pytest

from controller.record.recorder import Recorder
from controller.record.store import Store
from controller.wire.connection import parse_broker
from tests.broker import Broker
from tests.postgres import Postgres
from tests.waiting import LoopLag, until

ROOT = Path(__file__).resolve().parents[2]
#: How long the store is held up.
HELD_S = 3.0


def _event(seq: int) -> dict[str, object]:
    return {"v": 1, "seq": seq, "ts": float(seq), "type": "foul", "data": {"player": 0}}


def _hold(url: str, locked: threading.Event) -> None:
    """Holds the messages table locked for HELD_S, from a thread (another session)."""
    with psycopg.connect(url) as other:
        other.execute("LOCK TABLE messages IN ACCESS EXCLUSIVE MODE")
        locked.set()
        time.sleep(HELD_S)
        other.rollback()


@pytest.mark.timeout(120)
async def test_a_store_held_up_while_a_fill_is_taken_leaves_the_event_loop_free(
        broker: Broker, postgres: Postgres) -> None:
    url = postgres.database()
    store = Store(url)
    rec = Recorder(store, parse_broker(broker.url), client_id="loop-test")
    recording = asyncio.create_task(rec.run())
    try:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("billiards/club/t9/request/history_since", qos=1)
            await until(lambda: rec.counters.connections >= 1, 30, "the recorder subscribed")
            for seq in (1, 10):  # 2-9 missing: asked of the table
                await client.publish("billiards/club/t9/event", json.dumps(_event(seq)), qos=1)
            async with asyncio.timeout(30):
                async for message in client.messages:
                    asking = json.loads(message.payload)
                    break
            answer = {"v": 1, "seq": 11, "ts": 11.0, "status": "ok",
                      "transaction": asking["transaction"],
                      "data": {"first": 1, "upto": 10, "since": 0, "messages": [
                          {"seq": s, "topic": "event", "payload": _event(s)}
                          for s in range(2, 10)]}}
            locked = threading.Event()
            # another session holds the table meanwhile
            holding = asyncio.ensure_future(asyncio.to_thread(_hold, url, locked))
            await asyncio.to_thread(locked.wait, 10)
            async with LoopLag() as lag:
                await asyncio.sleep(0.1)  # the probe running before the answer goes
                await client.publish("billiards/club/t9/response/history_since",
                                     json.dumps(answer), qos=1)
                await holding
            assert lag.worst < 0.5
            await until(lambda: store.seqs("club", "t9") == list(range(1, 12)), 30,
                        "the fill stored once the store is free")
    finally:
        recording.cancel()
        await asyncio.gather(recording, return_exceptions=True)


def test_the_recorder_reads_no_private_member_of_aiomqtt() -> None:
    for path in (ROOT / "controller" / "record").glob("*.py"):
        assert "._queue" not in path.read_text(), path
        assert "client._client" not in path.read_text(), path
