"""The journal and the outbox, without a broker: grouped writes, bounds, what survives."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from controller.service.journal import Journal
from controller.service.outbox import Outbox


def test_nothing_is_on_disk_until_the_batch_is_written(tmp_path):
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.add_input({"t": 1.0, "ch": "beam.fl", "v": 1})
    journal.new_outgoing("b/event", b"{}", False)
    assert Journal(path).inputs() == [] and Journal(path).outbox() == []
    journal.write(journal.take())
    again = Journal(path)
    assert again.inputs() == [{"t": 1.0, "ch": "beam.fl", "v": 1}]
    assert [o.topic for o in again.outbox()] == ["b/event"]


def test_ids_continue_after_a_restart_and_compaction_keeps_answers(tmp_path):
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    for n in range(3):
        journal.add_input({"t": float(n), "request": "get", "payload": {}})
    last = journal.add_input({"t": 3.0, "request": "new_match", "payload": {}})
    journal.compact(last, [("tx1", "call", {"status": "ok", "transaction": "tx1", "data": None})])
    journal.write(journal.take())
    again = Journal(path)
    assert again.inputs() == [{"t": 3.0, "request": "new_match", "payload": {}}]
    assert again.answers() == [("tx1", "call", {"status": "ok", "transaction": "tx1", "data": None})]
    assert again.add_input({"t": 4.0, "tick": 1}) == last + 1


async def test_the_outbox_keeps_order_supersedes_retained_and_counts_what_it_drops(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    outbox = Outbox(journal, limit=100)

    def add(topic: str, n: int, retain: bool = False) -> None:
        outbox.add(journal.new_outgoing(topic, json.dumps({"seq": n}).encode(), retain))

    add("b/state", 1, retain=True)
    for n in range(2, 150):
        add("b/event", n)
    add("b/state", 150, retain=True)
    outbox.release()
    journal.write(journal.take())
    assert len(outbox) == 100 and outbox.dropped == 50  # the old state, then the oldest events
    sent = []
    while len(outbox):
        item = await outbox.next()
        sent.append(json.loads(item.payload)["seq"])
        outbox.done(item)
    assert sent == [*range(51, 150), 150]  # in order; the older state gave way to the newer
    journal.write(journal.take())
    assert journal.outbox() == []


async def test_a_message_is_not_sent_before_it_is_released(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    outbox = Outbox(journal, limit=100)
    outbox.add(journal.new_outgoing("b/event", b"{}", False))
    waiting = asyncio.create_task(outbox.next())
    await asyncio.sleep(0.01)  # the thing under test: nothing is sent meanwhile
    assert not waiting.done()
    outbox.release()
    assert (await asyncio.wait_for(waiting, 1)).topic == "b/event"


async def test_a_burst_of_sensor_edges_is_written_in_a_few_transactions(tmp_path, broker):
    from tests.service.conftest import make_config, running
    from tests.tracekit import TraceBuilder
    from tests.waiting import until
    tb = TraceBuilder(seed=5).new_match("ten-ball", race_to=1)
    tb.shot(drops=["fl", "fr"], cushions=["f", "lf", "rf", "h", "lh", "rh"])  # a break
    trace = tmp_path / "break.jsonl"
    trace.write_text(tb.text())
    config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": 4.0},
                         journal={"commit_interval_ms": 20})
    async with running(config) as service:
        writes: list[int] = []
        real = service.journal.write

        def counting(batch):
            if batch.inputs:
                writes.append(len(batch.inputs))
            real(batch)
        service.journal.write = counting  # type: ignore[method-assign]
        await until(lambda: service.table.referee.state.shot >= 1, 30, "the break ruled")
    edges = sum(1 for line in tb.lines if "ch" in line)
    assert edges > 50 and sum(writes) >= edges
    assert len(writes) < edges / 3, f"{len(writes)} transactions for {edges} edges"


async def test_a_full_outbox_drops_replies_to_junk_before_any_state_or_event(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    outbox = Outbox(journal, limit=50)

    def add(topic: str, n: int, retain: bool = False) -> None:
        outbox.add(journal.new_outgoing(topic, json.dumps({"seq": n}).encode(), retain))

    n = 0
    for _ in range(10):  # a match goes on while junk requests are answered, 20 to 1
        n += 1
        add("b/event", n)
        n += 1
        add("b/state", n, retain=True)
        for _ in range(20):
            n += 1
            add("b/response/call", n)
    n += 1
    add("replies/app-7", n)  # an MQTT 5 reply
    outbox.release()
    kept = []
    while len(outbox):
        item = await outbox.next()
        kept.append((item.topic, json.loads(item.payload)["seq"]))
        outbox.done(item)
    events = [seq for topic, seq in kept if topic == "b/event"]
    assert events == [1 + 22 * k for k in range(10)]  # every event, in order
    assert [seq for topic, seq in kept if topic == "b/state"] == [n - 21]  # the newest state
    replies = [seq for topic, seq in kept if topic.startswith(("b/response", "replies"))]
    assert len(kept) == 50 and replies == sorted(replies) and replies[-1] == n  # the newest
    assert outbox.dropped == n - 50 - 9  # 9 older states superseded, not dropped


async def test_responses_waiting_are_capped_whatever_room_the_outbox_has(tmp_path):
    from controller.service.outbox import REPLIES_WAITING

    journal = Journal(tmp_path / "j.sqlite3")
    outbox = Outbox(journal, limit=10 * REPLIES_WAITING)
    outbox.add(journal.new_outgoing("b/event", b'{"seq": 0}', False))
    for n in range(1, 2 * REPLIES_WAITING + 1):
        outbox.add(journal.new_outgoing("b/response/call", json.dumps({"seq": n}).encode(), False))
    assert len(outbox) == 1 + REPLIES_WAITING and outbox.dropped == REPLIES_WAITING
    outbox.release()
    first = await outbox.next()
    assert first.topic == "b/event"  # the event stays, ahead of the newest replies
    outbox.done(first)
    assert json.loads((await outbox.next()).payload)["seq"] == REPLIES_WAITING + 1


def test_a_journal_keeps_its_epoch_and_a_new_one_has_another_after_the_seq_mark(tmp_path):
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    epoch = journal.epoch
    assert len(epoch) == 16 and journal.epoch_since == 0
    journal.mark.reserve(120)  # seqs up to 120 may have been given out
    journal.sync()
    journal.close()
    assert Journal(path).epoch == epoch  # a restart keeps it
    for name in ("j.sqlite3", "j.sqlite3-wal", "j.sqlite3-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    new = Journal(path)  # the database lost, its seq mark kept: numbering goes on after 120
    assert new.epoch != epoch and new.epoch_since == 120
    assert new.published.history_since(0, 10, new.epoch, base="b")["since"] == 120
    with pytest.raises(LookupError, match="not"):
        new.published.history_since(0, 10, epoch, base="b")


def test_a_journal_made_before_epochs_gets_one_after_its_last_seq(tmp_path):
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.set_meta("seq", 812)
    journal.mark.reserve(1812)  # reserved ahead; numbering goes on after 812
    journal.sync()
    journal.close()
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM meta WHERE key IN ('epoch', 'epoch_since')")
    db.close()
    upgraded = Journal(path)
    assert upgraded.epoch_since == 812 and Journal(path).epoch == upgraded.epoch
