"""The recorder survives every input (issue 39, item 2), as ``python -m controller record``
runs it, on a real Mosquitto and both stores: a 300-character response topic (PostgreSQL's
``varchar(200)`` refused it, the recorder exited, came back to the same message, and again)
is stored and every later message too; a message the store cannot take (text that is not
Unicode, an epoch too long to key) is quarantined: kept raw, counted, its seq a gap, shown
on the recorder's health topic and page; never replayed into a crash loop."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.request
from pathlib import Path
from typing import Any

import aiomqtt

from controller.record.store import Store
from tests.broker import Broker, free_port
from tests.record.venue import recorder
from tests.waiting import until

LONG = "x" * 300


async def test_a_300_character_response_topic_is_stored_and_so_is_every_later_message(
        tmp_path: Path, broker: Broker, store_url: str) -> None:
    # a table answers on the response topic a request names (MQTT 5): here its seq 2
    store = Store(store_url)
    proc = recorder(broker, store_url, tmp_path / "recorder.log")
    try:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await _first(client, store, _event(1))
            await client.publish(f"billiards/club/t9/response/{LONG}", json.dumps(
                {"v": 1, "seq": 2, "ts": 2.0, "status": "ok", "transaction": "long"}), qos=1)
            for seq in range(3, 21):
                await client.publish("billiards/club/t9/event", _event(seq), qos=1)
            await until(lambda: store.seqs("club", "t9") == list(range(1, 21)), 30,
                        "every message stored")
            assert proc.poll() is None  # never restarted
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    assert [m.topic for m in store.messages("club", "t9", 2, 2)] == [f"response/{LONG}"]
    assert store.gaps() == []
    assert store.quarantined()[0] == 0


async def _first(client: aiomqtt.Client, store: Store, body: str) -> None:
    """Publishes t9's seq 1 (``body``) once the recorder has subscribed (its health says it
    is online: it says so once subscribed), and waits until it has stored it."""
    await client.subscribe("billiards/recorder/health", qos=1)
    async with asyncio.timeout(30):
        async for message in client.messages:
            if json.loads(message.payload).get("online"):
                break
    await client.publish("billiards/club/t9/event", body, qos=1)
    await until(lambda: store.seqs("club", "t9") == [1], 30, "seq 1 stored")


def _event(seq: int, **extra: Any) -> str:
    return json.dumps({"v": 1, "seq": seq, "ts": float(seq), "type": "foul",
                       "data": {"player": 0}, **extra})


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 (a test's own URL)
        return dict(json.load(answer))


async def test_a_message_the_store_cannot_take_is_quarantined_counted_and_shown(
        tmp_path: Path, broker: Broker, store_url: str) -> None:
    store = Store(store_url)
    port = free_port()
    proc = recorder(broker, store_url, tmp_path / "recorder.log", "--web", f"127.0.0.1:{port}")
    health: list[dict[str, Any]] = []
    try:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("billiards/recorder/health", qos=1)
            async with asyncio.timeout(60):
                async for message in client.messages:
                    health.append(json.loads(message.payload))
                    if len(health) == 1:  # it has subscribed (then says it is up)
                        await _send_bad_messages(client)
                    if health[-1].get("quarantined") == 2:
                        break
            await until(lambda: store.progress().get(("club", "t9", "")) is not None
                        and store.progress()[("club", "t9", "")].complete_upto == 5, 30,
                        "t9 complete")
            # it goes on: later messages are stored
            await client.publish("billiards/club/t9/event", _event(6), qos=1)
            await until(lambda: 6 in store.seqs("club", "t9"), 30, "seq 6 stored")
            page = _get(f"http://127.0.0.1:{port}/record/health.json")
            assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    assert store.seqs("club", "t9") == [1, 2, 4, 5, 6]
    (gap,) = store.gaps()
    assert gap[:5] == ("club", "t9", "", 3, 3) and gap[5].startswith("quarantined: ")
    count, newest = store.quarantined()
    assert count == 2
    assert {q["topic"] for q in newest} == {"billiards/club/t9/event", "billiards/club/t8/event"}
    assert health[-1]["online"] and health[-1]["store"]["up"]
    assert page["recorder"]["quarantined"] == 2 and page["quarantine"]["count"] == 2


async def _send_bad_messages(client: aiomqtt.Client) -> None:
    """A table's messages where seq 3 holds text that is not Unicode (a lone surrogate);
    another table's with an epoch longer than the store keys by."""
    for seq in range(1, 6):
        body = _event(seq, note="\ud800") if seq == 3 else _event(seq)
        await client.publish("billiards/club/t9/event", body, qos=1)
    await client.publish("billiards/club/t8/event", _event(1, epoch="e" * 100), qos=1)


async def test_a_match_whose_messages_are_not_a_tables_does_not_stop_the_record(
        tmp_path: Path, broker: Broker, store_url: str) -> None:
    # a match_started whose players are a number: summing the match up raised TypeError
    # after every batch, the recorder exited, and systemd brought it back to the same
    store = Store(store_url)
    proc = recorder(broker, store_url, tmp_path / "recorder.log")
    try:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            started = json.dumps({"v": 1, "seq": 1, "ts": 1.0, "type": "match_started",
                                  "data": {"match_id": "m-1", "players": 5}})
            await _first(client, store, started)
            await client.publish("billiards/club/t9/event", json.dumps(
                {"v": 1, "seq": 2, "ts": 2.0, "type": "match_over", "data": {"winner": 0}}),
                qos=1)
            await until(lambda: 2 in store.seqs("club", "t9"), 30, "the match's end stored")
            for seq in range(3, 8):
                await client.publish("billiards/club/t9/event", _event(seq), qos=1)
            await until(lambda: store.seqs("club", "t9") == list(range(1, 8)), 30,
                        "every later message stored")
            assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
