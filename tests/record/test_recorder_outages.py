"""Nothing lost without a gap when the store is away (issue 39, item 4), the recorder as
``python -m controller record`` runs it, on a real Mosquitto that keeps little for it
(``max_queued_messages 10``: the rest must come from the tables' journals): PostgreSQL
crashed, and the SQLite store's disk full, while tables play on more than
five times what the broker keeps (the issue's 30 s outages are the evening soak's). The
recorder stays up (never exits into systemd's restart loop), says the store is away on its
health topic and comes back by itself; afterwards every message a table published is stored
or covered by a recorded gap. (Before: 230 of 2,283 and 1,098 of 2,571 missing, 0 gaps, and
the recorder exiting in a loop while the disk was full.)"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from controller.record.store import Store
from tests.broker import Broker
from tests.postgres import Postgres, running
from tests.record.venue import epoch, published, recorder, tables
from tests.smallfs import fill, small_filesystem
from tests.waiting import until

#: How many messages the broker keeps for the recorder (the store stays away until the
#: tables have published more than five times that).
QUEUED = 10
NAMES = ["t1", "t2"]


def uncovered(store: Store, root: Path) -> dict[str, list[int]]:
    """Returns, per table, the seqs its journal published that are neither stored nor in a
    recorded gap."""
    out: dict[str, list[int]] = {}
    gaps = store.gaps("club")
    for t in NAMES:
        e = epoch(root, t)
        have = set(store.seqs("club", t, e))
        spans = [(a, b) for _, table, ep, a, b, _ in gaps if (table, ep) == (t, e)]
        out[t] = [s for s in published(root, t) if s not in have
                  and not any(a <= s and (b is None or s <= b) for a, b in spans)]
    return out


async def _outage(tmp_path: Path, store_url: str, down: Callable[[], Any],
                  up: Callable[[], Any]) -> tuple[Store, list[dict[str, Any]]]:
    """Tables play while the store is away (``down``, then ``up`` once they have published
    more than five times QUEUED since the health said so); returns the store and the health
    messages seen once every seq published so far is stored or in a gap (the tables' last
    status, as they stop after, is not waited for)."""
    broker = Broker(tmp_path / "broker", extra=f"max_queued_messages {QUEUED}\n")
    broker.start()
    store = Store(store_url)
    proc = recorder(broker, store_url, tmp_path / "recorder.log")
    health: list[dict[str, Any]] = []
    try:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("billiards/recorder/health", qos=1)

            async def listen() -> None:
                async for message in client.messages:
                    health.append(json.loads(message.payload))

            listening = asyncio.create_task(listen())
            async with tables(tmp_path, broker, len(NAMES), speed=40, shots=400):
                await until(lambda: len(store.progress()) == len(NAMES), 30, "both tables heard")
                down()
                await until(lambda: any(not h["store"]["up"] for h in health if h.get("online")),
                            30, "the health saying the store is away")
                before = sum(len(published(tmp_path, t)) for t in NAMES)
                # the outage itself: until the tables have published more than five times
                # what the broker keeps for the recorder
                await until(lambda: sum(len(published(tmp_path, t)) for t in NAMES) - before
                            > 5 * QUEUED, 60, "the tables to play on through the outage")
                during = sum(len(published(tmp_path, t)) for t in NAMES) - before
                up()
                await until(lambda: health[-1].get("online") and health[-1]["store"]["up"], 60,
                            "the health saying the store is back")
                try:
                    await until(lambda: not any(uncovered(store, tmp_path).values()), 120,
                                "every published seq stored or in a gap")
                except AssertionError:
                    print({t: (len(u), u[:10], u[-10:]) for t, u in uncovered(store, tmp_path).items()},
                          store.progress(), store.gaps(), health[-1])
                    raise
                assert proc.poll() is None  # it never exited
            listening.cancel()
    finally:
        proc.terminate()
        proc.wait()
        broker.stop()
    assert during > 5 * QUEUED  # the tables played on meanwhile, more than the broker kept
    return store, health


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    """A cluster of the test's own: it is crashed (the worker's other tests share theirs)."""
    with running() as pg:
        yield pg


@pytest.mark.timeout(400)
async def test_postgresql_crashed_loses_nothing_without_a_gap(
        tmp_path: Path, postgres: Postgres) -> None:
    store, health = await _outage(tmp_path, postgres.database(), postgres.crash, postgres.resume)
    down = next(h for h in health if h.get("online") and not h["store"]["up"])
    assert down["store"]["error"] and down["store"]["since"]


@pytest.mark.timeout(400)
async def test_the_stores_disk_full_loses_nothing_without_a_gap(tmp_path: Path) -> None:
    with small_filesystem(tmp_path / "disk", 30_000) as disk:
        filler: list[Path] = []
        store, health = await _outage(tmp_path, f"sqlite:///{disk / 'record.sqlite3'}",
                                      lambda: filler.append(fill(disk)),
                                      lambda: filler.pop().unlink())
        store.close()
    down = next(h for h in health if h.get("online") and not h["store"]["up"])
    assert "full" in down["store"]["error"]


@pytest.mark.timeout(200)
async def test_a_recorder_started_while_its_postgresql_is_away_waits_for_it(
        tmp_path: Path, postgres: Postgres) -> None:
    """A recorder (re)started while its database is away (a league's server booting slower
    than the Pi, a restart under it) waits for it, saying so on its log, and records once it
    is back; exiting instead, it went into systemd's restart loop, and a database away for
    longer than the unit's start limit (5 starts in 10 s) left it stopped for good."""
    url = postgres.database()
    postgres.crash()
    away = True
    broker = Broker(tmp_path / "broker")
    broker.start()
    log = tmp_path / "recorder.log"
    proc = recorder(broker, url, log)
    try:
        await until(lambda: log.read_text().count("cannot open the record store") >= 2
                    or proc.poll() is not None, 60, "the recorder to try its store twice")
        assert proc.poll() is None, log.read_text()  # it waits: never exits
        postgres.resume()
        away = False
        await until(lambda: "recording billiards/#" in log.read_text() or proc.poll() is not None,
                    60, "the recorder to record")
        assert proc.poll() is None, log.read_text()
        store = Store(url)
        assert store.progress() == {}  # migrated: the schema is there
        store.close()
    finally:
        proc.terminate()
        proc.wait()
        broker.stop()
        if away:  # the fixture stops a running cluster
            postgres.resume()
