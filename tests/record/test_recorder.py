"""The venue recorder against a real Mosquitto, real table services and both stores: the
store equals what the tables' journals published, 0 lost and 0 duplicated, through kill -9
of the recorder and a restart of the broker; it backfills after being away; and a seq the
journal no longer holds is a gap in the record, never made up."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import signal
import sqlite3
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from controller.record.health import EVERY_S
from controller.record.ledger import REPLACED, UNHEARD, Ledger
from controller.record.recorder import Recorder
from controller.record.store import Progress, Store
from controller.wire.connection import parse_broker
from tests.broker import Broker
from tests.record.venue import epoch, published, recorder, stored, tables
from tests.waiting import until


def complete(store: Store, root: Path, names: list[str]) -> bool:
    """Whether the store holds exactly what each table's journal published."""
    return all(stored(store, root, t) == published(root, t) for t in names)


async def wait_complete(store: Store, root: Path, names: list[str], timeout: float = 30.0) -> None:
    def check() -> bool:
        return complete(store, root, names)
    try:
        await until(check, timeout=timeout, what="the store to equal the journals")
    except AssertionError:
        for t in names:
            j, s = published(root, t), stored(store, root, t)
            print(t, "journal", len(j), "store", len(s), "missing", sorted(set(j) - set(s))[:20],
                  "extra", sorted(set(s) - set(j))[:20])
        raise


async def kill_and_restart(tmp_path: Path, broker: Broker, store_url: str, *, count: int,
                           kills: int, broker_restarts: tuple[int, ...], speed: float,
                           shots: int, seed: int = 31) -> Store:
    """Tables play ``shots`` shots each while the recorder is killed (kill -9) ``kills``
    times at random moments, the broker restarted after the kills numbered in
    ``broker_restarts``; returns the store once it equals the journals (the tables stay up,
    idle, once played, as a venue's do)."""
    store = Store(store_url)
    log = tmp_path / "recorder.log"
    names = [f"t{n}" for n in range(1, count + 1)]
    rng = random.Random(seed)
    proc = recorder(broker, store_url, log)
    try:
        async with tables(tmp_path, broker, count, speed=speed, shots=shots, loop=False):
            for n in range(kills):
                await asyncio.sleep(rng.uniform(0.5, 2.5))  # starting, recording or filling
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                if n in broker_restarts:
                    broker.stop()
                    await asyncio.sleep(rng.uniform(0.2, 0.8))
                    broker.start()
                proc = recorder(broker, store_url, log)
            # the tables play on past the kills (on a loaded machine they start slower)
            await until(lambda: all(len(published(tmp_path, t)) > 50 for t in names), 60,
                        "the tables playing")
            await wait_complete(store, tmp_path, names, timeout=60)
            # seqs redelivered after later ones are complete once a fill says so
            await until(lambda: all(p.complete_upto == p.high for p in store.progress().values()),
                        30, "every epoch complete")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    assert all(len(published(tmp_path, t)) > 50 for t in names)  # they played meanwhile
    assert store.gaps() == []
    assert all(p.complete_upto == p.high for p in store.progress().values()), store.progress()
    return store


async def test_the_store_equals_the_journals_through_kill_9_and_a_broker_restart(
        tmp_path, broker, store_url):
    await kill_and_restart(tmp_path, broker, store_url, count=2, kills=3, broker_restarts=(1,),
                           speed=60, shots=30)


@pytest.mark.soak
@pytest.mark.timeout(900)
async def test_twelve_tables_for_a_simulated_hour_through_kills_and_broker_restarts(
        tmp_path, broker, store_url):
    # 12 tables at 60 times real time for a minute: an hour of play each
    await kill_and_restart(tmp_path, broker, store_url, count=12, kills=25,
                           broker_restarts=(5, 15), speed=60, shots=400, seed=12)


async def test_a_recorder_away_while_tables_play_backfills_when_back(tmp_path, store_url):
    # the broker keeps at most 10 messages for the absent recorder: the rest come from the
    # tables' journals (history_since)
    broker = Broker(tmp_path / "broker", extra="max_queued_messages 10\n")
    broker.start()
    store = Store(store_url)
    log = tmp_path / "recorder.log"
    names = ["t1", "t2", "t3"]
    proc = recorder(broker, store_url, log)
    try:
        async with tables(tmp_path, broker, len(names), speed=60, shots=40, loop=False):
            await until(lambda: len(store.progress()) == 3, timeout=30, what="every table seen")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            seen = sum(len(stored(store, tmp_path, t)) for t in names)
            # play goes on with the recorder away, until more than the broker keeps for it
            await until(lambda: sum(len(published(tmp_path, t)) for t in names) - seen > 3 * 10,
                        30, "play with the recorder away")
            proc = recorder(broker, store_url, log)
            await wait_complete(store, tmp_path, names)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        broker.stop()
    assert store.gaps() == []


async def test_seqs_the_journal_no_longer_holds_are_a_gap_never_made_up(tmp_path, broker,
                                                                         store_url):
    async with tables(tmp_path, broker, 1, speed=60):
        await until(lambda: len(published(tmp_path, "t1")) > 60, timeout=20, what="some play")
    # a replaced Pi: its journal has forgotten the first 40 messages
    db = sqlite3.connect(tmp_path / "t1" / "journal.sqlite3")
    with db:
        db.execute("DELETE FROM published WHERE seq <= 40")
    db.close()
    journal = published(tmp_path, "t1")
    store = Store(store_url)
    log = tmp_path / "recorder.log"
    async with tables(tmp_path, broker, 1, speed=40, shots=10, loop=False):
        proc = recorder(broker, store_url, log)
        try:
            await until(lambda: set(journal) <= set(stored(store, tmp_path, "t1")) and store.gaps(),
                        timeout=30, what="the record of t1")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait()
    assert store.gaps() == [("club", "t1", epoch(tmp_path, "t1"), 1, 40,
                             "no longer in the table's journal")]
    assert not set(range(1, 41)) & set(stored(store, tmp_path, "t1"))


async def test_history_since_answers_from_the_journal_and_refuses_a_bad_seq(tmp_path, broker):
    async with tables(tmp_path, broker, 1, speed=50):
        await until(lambda: len(published(tmp_path, "t1")) > 20, timeout=20, what="some play")
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("billiards/club/t1/response/history_since", qos=1)
            mine = epoch(tmp_path, "t1")
            for body in ({"seq": 5, "limit": 10, "transaction": "a"},
                         {"seq": -1, "transaction": "b"},
                         {"seq": 5, "limit": 10, "transaction": "c", "epoch": mine},
                         {"seq": 5, "limit": 10, "transaction": "d", "epoch": "0123456789abcdef"}):
                await client.publish("billiards/club/t1/request/history_since",
                                     json.dumps(body), qos=1)
            answers = {}
            async with asyncio.timeout(10):
                async for message in client.messages:
                    reply = json.loads(message.payload)
                    answers[reply["transaction"]] = reply
                    if len(answers) == 4:
                        break
    journal = published(tmp_path, "t1")
    ok = answers["a"]
    assert ok["status"] == "ok"
    assert [m["seq"] for m in ok["data"]["messages"]] == list(range(6, 16))
    assert [m["topic"] for m in ok["data"]["messages"]] == [journal[s] for s in range(6, 16)]
    assert {m["payload"]["epoch"] for m in ok["data"]["messages"]} == {mine}
    assert ok["data"]["upto"] == 15 and ok["data"]["first"] == 1
    assert ok["data"]["epoch"] == mine and ok["data"]["since"] == 0
    assert answers["b"]["status"] == "error" and "seq" in answers["b"]["error"]
    assert answers["c"]["data"] == ok["data"]  # its own epoch named: the same answer
    # another epoch's seqs are not this journal's: refused, never answered with its own
    assert answers["d"]["status"] == "error" and "epoch" in answers["d"]["error"]


async def test_a_session_topic_says_when_a_table_starts_and_stops_being_played(tmp_path, broker):
    store_url = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    proc = recorder(broker, store_url, tmp_path / "recorder.log")
    seen: list[dict] = []
    try:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("billiards/club/t1/session", qos=1)
            async with tables(tmp_path, broker, 1, speed=20):
                async with asyncio.timeout(60):
                    async for message in client.messages:
                        seen.append(json.loads(message.payload))
                        if seen[-1]["playing"]:  # the match began: the referee ends it
                            await client.publish("billiards/club/t1/request/end_match", "{}", qos=1)
                        elif len(seen) >= 2:
                            break
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
    start, end = seen[-2:]
    assert start["playing"] and not end["playing"]
    assert start["match_id"] and start["seq"] < end["seq"]


async def test_a_replaced_pi_numbering_from_1_again_is_recorded_beside_the_old_journal(
        tmp_path, store_url):
    # the broker keeps at most 10 messages for an absent recorder: the old Pi's last
    # messages while the recorder is away are unheard, and no journal holds them any more
    broker = Broker(tmp_path / "broker", extra="max_queued_messages 10\n")
    broker.start()
    store = Store(store_url)
    log = tmp_path / "recorder.log"
    proc = recorder(broker, store_url, log)
    try:
        async with tables(tmp_path, broker, 1, speed=40, shots=10, loop=False):
            old = epoch(tmp_path, "t1")
            await until(lambda: len(published(tmp_path, "t1")) > 30, 30, "the old Pi playing")
            await wait_complete(store, tmp_path, ["t1"])
            heard = stored(store, tmp_path, "t1")
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            async with aiomqtt.Client(broker.host, broker.port) as client:
                for n in range(40):  # the old Pi answers on while the recorder is away
                    await client.publish("billiards/club/t1/request/get",
                                         json.dumps({"transaction": f"away-{n}"}), qos=1)
            await until(lambda: len(published(tmp_path, "t1")) >= len(heard) + 40, 30,
                        "the old Pi answering")
        old_journal = published(tmp_path, "t1")
        shutil.rmtree(tmp_path / "t1")  # the Pi replaced: a new, empty data directory
        proc = recorder(broker, store_url, log)
        async with tables(tmp_path, broker, 1, speed=40, shots=10, loop=False):
            new = epoch(tmp_path, "t1")
            await until(lambda: len(published(tmp_path, "t1")) > 20, 30, "the new Pi playing")
            await wait_complete(store, tmp_path, ["t1"])
            await until(lambda: any(g[2] == old for g in store.gaps()), 30,
                        "the old journal's unheard tail recorded as a gap")
        await wait_complete(store, tmp_path, ["t1"])  # with the new Pi's last status
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        broker.stop()
    assert new != old and min(published(tmp_path, "t1")) == 1  # seqs restarted at 1
    # the new journal's messages are all kept, though the old one's had the same seqs
    assert stored(store, tmp_path, "t1") == published(tmp_path, "t1")
    kept = stored(store, tmp_path, "t1", of=old)  # counted refusals as heard has them
    assert heard.items() <= kept.items() <= old_journal.items()  # 0 lost, nothing made up
    lost = [(a, b, why) for v, t, e, a, b, why in store.gaps() if e == old]
    assert len(store.gaps()) == len(lost)  # the new journal's: none
    # what was not heard of the old journal is a gap, the end open (the broker dropped its
    # last messages for the absent recorder, and no journal holds them now)
    *known, (tail, end, why) = lost
    assert (end, why) == (None, UNHEARD) and tail == max(kept) + 1 <= max(old_journal)
    assert {why for _, _, why in known} <= {REPLACED}
    unheard = {s for a, b, _ in known for s in range(a, b + 1)}
    assert not unheard & set(kept)
    assert unheard | set(kept) == set(range(1, max(kept) + 1))


async def _slow_table(broker: Broker, asked: list[str]) -> None:
    """A table that published seqs 1–10 before the recorder came (it sends 5–10 again now)
    and answers the recorder's first ``history_since`` only once it has been asked again
    (late, as a busy table does), with seqs 1–10, its answer taking the next seq; it never
    answers the later askings. (It waited a fixed time before: on a loaded machine the
    recorder had not always asked again by then.)"""
    def message(seq: int) -> dict[str, object]:
        return {"v": 1, "seq": seq, "ts": float(seq), "type": "foul", "data": {"player": 0}}

    first: dict[str, Any] | None = None
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.subscribe("billiards/club/t1/request/history_since", qos=1)
        for seq in range(5, 11):
            await client.publish("billiards/club/t1/event", json.dumps(message(seq)), qos=1)
        async for request in client.messages:
            body = json.loads(request.payload)
            asked.append(body["transaction"])
            if first is None:
                first = body
            if len(asked) != 2:
                continue
            answer = {"v": 1, "seq": 11, "ts": 11.0, "status": "ok",
                      "transaction": first["transaction"],
                      "data": {"first": 1, "upto": 10, "messages": [
                          {"seq": s, "topic": "event", "payload": message(s)}
                          for s in range(first["seq"] + 1, 11)]}}
            await client.publish("billiards/club/t1/response/history_since", json.dumps(answer), qos=1)


async def test_a_table_answering_slower_than_the_recorder_asks_again_still_fills_its_gap(
        tmp_path, broker):
    """Before: each asking again (after the ledger's ``timeout_s``) replaced the one the late
    answer was for, so a busy table's answers were never taken and its seqs never complete
    (seen with the demo's four tables at 20x on a loaded host)."""
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    asked: list[str] = []
    # it asks again once an answer is 1 s late (5 s as shipped: what is proved is that the
    # late answer to the first asking is still taken, not how late it may be)
    rec = Recorder(store, parse_broker(broker.url), client_id="slow-test",
                   ledger=Ledger(timeout_s=1.0))
    async with asyncio.TaskGroup() as tg:
        recording = tg.create_task(rec.run())
        await until(lambda: rec.counters.connections >= 1, timeout=30,
                    what="the recorder subscribed before the table sends")
        table = tg.create_task(_slow_table(broker, asked))
        try:
            await until(lambda: store.progress().get(("club", "t1", ""), Progress(0, 0)).complete_upto > 10,
                        timeout=30, what="t1 complete")
        finally:
            table.cancel()
            recording.cancel()
    assert len(asked) >= 2  # it did ask again before the first answer came
    kept = {m.seq: m.topic for m in store.messages("club", "t1")}  # no epoch: ""
    assert [kept[s] for s in range(1, 12)] == ["event"] * 10 + ["response/history_since"]
    assert store.gaps() == []


async def test_a_recorder_whose_broker_was_killed_reconnects_and_records_on(tmp_path):
    """The venue broker killed (SIGKILL) while the recorder reads its queue, and started
    again: the recorder notices the lost connection, connects again and records what the
    tables publish after (the evening's broker-kill: before, it read its queue for ever,
    recording nothing more and saying nothing)."""
    broker = Broker(tmp_path / "broker")
    broker.start()
    store_url = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    store = Store(store_url)
    log = tmp_path / "recorder.log"
    proc = recorder(broker, store_url, log)
    try:
        # the table plays again and again until it was seen publishing after the broker's
        # restart: one done with its 40 shots before the restart (the recorder slow to record
        # and reconnect on a loaded machine) published nothing after it
        async with tables(tmp_path, broker, 1, speed=20, shots=40, loop=True):
            await until(lambda: len(stored(store, tmp_path, "t1")) > 5, timeout=30,
                        what="the recorder recording t1")
            broker.kill()
            broker.start()
            before = len(published(tmp_path, "t1"))
            # it connects again because it saw the connection go, not because a publish of
            # its own failed (its health, every EVERY_S: the only one while all is recorded)
            await until(lambda: log.read_text().count("recording billiards/#") == 2,
                        timeout=EVERY_S / 2, what="the recorder to connect again")
            # the table plays on and publishes after the broker is back
            await until(lambda: len(published(tmp_path, "t1")) > before + 20, timeout=60,
                        what="t1 publishing after the broker's restart")
            # and the record holds all of it while the table is up: what the table could not
            # deliver live (both reconnecting on a loaded machine) is filled from its journal,
            # which only a running table answers (a run that waited for this after the table
            # had stopped found 138 of its 174 seqs missing for ever)
            mark = max(published(tmp_path, "t1"))
            await until(lambda: set(range(1, mark + 1)) <= set(stored(store, tmp_path, "t1")),
                        timeout=60, what="the record to hold what t1 published up to then")
        await wait_complete(store, tmp_path, ["t1"], timeout=60)  # its clean stop's last words
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        broker.stop()
    assert store.gaps() == []
