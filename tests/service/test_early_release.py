"""What waits for the disk: a live ``ball_pocketed`` is published once its input is written
(it survives a crash of the service), a ruling only once it is synced (it survives a power
cut); seqs are reserved on disk so that one published early is never given out again.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any

from controller.service import walsync as walsync_module
from controller.service.core import SEQ_RESERVE
from controller.service.journal import Journal
from controller.service.opening import boot_id
from controller.service.outbox import Outbox
from controller.service.shell import Service
from controller.sim.backend import sim_backend
from tests.broker import Broker
from tests.service.conftest import Collector, gpio_table, make_config, running, shot_pocketing
from tests.waiting import until

PINS: dict[str, int | str] = {"beam.fl": 5, "beam.fr": 6, "cushion.f": 17, "cushion.h": 18}


# ---------------------------------------------------------------------------- the outbox
async def test_an_early_message_never_overtakes_one_still_waiting_for_the_disk(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    outbox = Outbox(journal, limit=100)
    ruling = journal.new_outgoing("b/event", b'{"seq":1}', False)
    live = journal.new_outgoing("b/event", b'{"seq":2}', False, early=True)
    outbox.add(ruling)
    outbox.add(live)
    outbox.release_early(live.id)
    waiting = asyncio.create_task(outbox.next())
    await asyncio.sleep(0)  # the task runs until it returns or waits for a release
    assert not waiting.done()  # the ruling holds the line: nothing leaves out of order
    outbox.release(ruling.id)
    assert await asyncio.wait_for(waiting, 1) is ruling
    outbox.done(ruling)
    later = asyncio.create_task(outbox.next())
    await asyncio.sleep(0)  # the task runs until it returns or waits for a release
    assert not later.done()  # the live one was not released by the ruling's sync
    outbox.release_early(live.id)
    assert await asyncio.wait_for(later, 1) is live


async def test_release_early_stops_at_what_is_not_yet_written(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    outbox = Outbox(journal, limit=100)
    first = journal.new_outgoing("b/event", b"1", False, early=True)
    second = journal.new_outgoing("b/event", b"2", False, early=True)
    outbox.add(first)
    outbox.add(second)
    outbox.release_early(first.id)
    assert await asyncio.wait_for(outbox.next(), 1) is first
    outbox.done(first)
    nothing = asyncio.create_task(outbox.next())
    await asyncio.sleep(0)  # the task runs until it returns or waits for a release
    assert not nothing.done()
    nothing.cancel()


# ---------------------------------------------------------------------------- the journal
def inputs_in_the_file_alone(tmp_path: Path) -> int:
    """Returns how many inputs the database file holds without its write-ahead log."""
    alone = tmp_path / "alone.sqlite3"
    shutil.copy(tmp_path / "j.sqlite3", alone)
    db = sqlite3.connect(alone)
    try:
        (count,) = db.execute("SELECT COUNT(*) FROM inputs").fetchone()
    except sqlite3.OperationalError:  # not even the schema has been checkpointed
        count = 0
    finally:
        db.close()
    return int(count)


def test_sync_checkpoints_a_grown_log_into_the_database_file(tmp_path, monkeypatch):
    monkeypatch.setattr(walsync_module, "CHECKPOINT_BYTES", 16 << 10)
    journal = Journal(tmp_path / "j.sqlite3")
    for i in range(40):
        journal.add_input({"t": i, "ch": "beam.fl", "v": i % 2, "pad": "x" * 500})
        journal.write(journal.take())
    assert inputs_in_the_file_alone(tmp_path) == 0
    journal.sync()
    assert inputs_in_the_file_alone(tmp_path) == 40
    journal.add_input({"t": 40, "ch": "beam.fl", "v": 0})
    journal.write(journal.take())
    wal = Path(f"{tmp_path / 'j.sqlite3'}-wal").stat().st_size
    assert wal < 16 << 10, "the log starts again small after a checkpoint, not at its old size"
    journal.sync()
    assert inputs_in_the_file_alone(tmp_path) == 40  # so the next sync does not checkpoint
    assert len(journal.inputs()) == 41
    journal.close()


def test_a_small_log_is_synced_not_checkpointed(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    for i in range(40):
        journal.add_input({"t": i, "ch": "beam.fl", "v": i % 2, "pad": "x" * 500})
        journal.write(journal.take())
    journal.sync()  # below the checkpoint size: the log is synced, not copied
    assert inputs_in_the_file_alone(tmp_path) == 0
    assert len(Journal(tmp_path / "j.sqlite3").inputs()) == 40  # ... which a reader sees
    journal.close()


# ---------------------------------------------------------------------------- the service
class HeldSync:
    """Wraps a journal's real ``sync`` so that a test can hold it (a slow SD card)."""

    def __init__(self, journal: Journal) -> None:
        self.real = journal.sync
        self.open = threading.Event()
        self.open.set()
        self.calls = 0
        journal.sync = self  # type: ignore[method-assign]

    def __call__(self) -> None:
        self.calls += 1
        assert self.open.wait(30), "the sync was held too long"
        self.real()


async def test_ball_pocketed_goes_out_before_the_sync_and_the_shots_ruling_after_it(tmp_path, broker):
    with gpio_table(tmp_path, broker, PINS,
                    journal={"sync": "full", "commit_interval_ms": 0}) as (service, driver):
        held = HeldSync(service.journal)
        async with Collector(broker) as col, running(service):
            service.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
            await col.wait(lambda: col.events("match_started"))
            await col.wait(lambda: service.table.referee.state.setup is not None)
            held.open.clear()  # the card stalls from here on
            await shot_pocketing(driver, "fl")
            pocketed = await col.wait(lambda: col.events("ball_pocketed"), timeout=5)
            assert pocketed[0]["data"]["pocket"] == "fl"
            # the table is quiet long enough: the shot is ruled, which ball fell is asked
            await until(lambda: service.table.referee.state.shot == 1
                        and service.table.referee.questions)
            after = [s.payload for s in col.seen if s.payload.get("seq", 0) > pocketed[0]["seq"]]
            assert not after, f"went out before it was on disk: {after}"
            held.open.set()
            question = await col.wait(lambda: col.events("question"), timeout=5)
            assert question[0]["data"]["kind"] == "identify"
            seqs = [s.payload["seq"] for s in col.seen if not s.retain and "seq" in s.payload]
            assert seqs == sorted(set(seqs)), "out of order"
            assert question[0]["seq"] > pocketed[0]["seq"]


def _meta(path: Path) -> dict[str, str]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT key, value FROM meta"))
    finally:
        db.close()


def _set_meta(path: Path, **values: Any) -> None:
    db = sqlite3.connect(path)
    try:
        db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                       [(k, str(v)) for k, v in values.items()])
        db.commit()
    finally:
        db.close()


async def test_seq_resumes_after_the_reservation_only_after_a_power_cut(tmp_path, broker: Broker):
    config = make_config(tmp_path, broker, journal={"sync": "full", "commit_interval_ms": 0})
    async with Collector(broker) as col, running(config) as service:
        service.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await col.wait(lambda: col.events("match_started"))
    path = config.data / "journal.sqlite3"
    meta = _meta(path)
    seq, limit = int(meta["seq"]), int(meta["seq_limit"])
    assert meta["clean"] == "1" and seq < limit <= seq + SEQ_RESERVE

    again = Service(config, backend=sim_backend)  # a clean stop: seq goes on exactly
    assert again.table.seq == seq
    again.journal.close()

    _set_meta(path, clean=0, boot=boot_id())  # kill -9: the machine's cache kept every write
    again = Service(config, backend=sim_backend)
    assert again.table.seq == seq
    again.journal.close()

    _set_meta(path, clean=0, boot="an-earlier-boot")  # a power cut: what was early may be lost
    again = Service(config, backend=sim_backend)
    assert again.table.seq == limit
    again.journal.close()
    async with Collector(broker) as col, running(config):
        await col.wait(lambda: [s for s in col.seen if s.kind == "state" and not s.retain])
        new = [s.payload["seq"] for s in col.seen if not s.retain]  # published by this run
        assert limit < min(new) <= limit + 10, "seq goes on after the reservation, not within it"
