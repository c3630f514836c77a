"""A tournament played on real tables over a real Mosquitto loses nothing when its recorder
is killed (SIGKILL) while matches are on (issue 42): each table starts the match the bracket
gave it with a ``new_match`` over MQTT naming the tournament match, the broker keeps only a
few messages for the absent recorder, and the recorder started again fills the gap from the
tables' journals (``history_since``) and takes every result by its id: the tournament ends
with a winner, every match the director put on a table has the result of that table's match
that named it, and the store holds every seq each table's journal published."""

from __future__ import annotations

import asyncio
import io
import json
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import sqlalchemy as sa

from controller.record import tournaments
from controller.record.store import Store, matches
from controller.service.shell import Service
from controller.sim import bracket_tables, demo
from tests.broker import Broker
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("t1", "t2")


def journal_seqs(root: Path, table: str) -> set[int]:
    """Returns the seqs a table's journal published."""
    db = sqlite3.connect(root / table / "journal.sqlite3")
    try:
        return {seq for (seq,) in db.execute("SELECT seq FROM published")}
    finally:
        db.close()


def ended_in_journal(root: Path, table: str) -> int:
    """Returns how many ``match_over`` events a table's journal published."""
    db = sqlite3.connect(root / table / "journal.sqlite3")
    try:
        return sum(json.loads(payload).get("type") == "match_over"
                   for (payload,) in db.execute("SELECT payload FROM published"))
    finally:
        db.close()


def kept(store: Store, table: str) -> set[int]:
    """Returns the seqs the store holds (or counted) of a demo table, of every epoch."""
    return {s for (venue, t, epoch) in store.progress() if (venue, t) == ("demo", table)
            for s in store.seqs("demo", table, epoch)}


def recorder(broker: Broker, url: str, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "record", "--broker", broker.url, "--store", url],
        cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT)


@pytest.mark.timeout(600)
async def test_a_recorder_killed_mid_tournament_loses_no_result_and_no_assignment(
        tmp_path: Path) -> None:
    # the broker keeps at most 10 messages for the absent recorder: the rest of what the
    # tables said meanwhile comes from their journals
    broker = Broker(tmp_path / "broker", extra="max_queued_messages 10\n")
    url = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    store = Store(url)
    # a single elimination of four, races to 1, Siberian Ten (the shortest simulated matches):
    # two matches on at once, then the final; the demo's double elimination (six or seven
    # matches) is played to its end in tests/web/test_demo_tournament.py
    players = bracket_tables.entrants(4, "ru")
    tid = tournaments.create(store, "demo", "Кубок", tournaments.Setup(
        tournaments.core.Format.SINGLE, tuple(players), race=1, names=players))
    args = SimpleNamespace(hand=[], language="ru", speed=30.0)
    offers = bracket_tables.Offers()  # the tables' next matches, as the recorder offers them
    services = [Service(demo.table_config(args, n, "siberian-ten", broker.url, broker.port, tmp_path),
                        backend=demo.bracket_backend(store, tid, n, "siberian-ten", offers))
                for n in range(1, len(TABLES) + 1)]
    said, done = io.StringIO(), asyncio.Event()
    log = tmp_path / "recorder.log"
    broker.start()  # after what may raise in setting up: a failed set-up leaves no broker running
    proc = recorder(broker, url, log)
    runs = [asyncio.create_task(s.run(), name=s.config.table) for s in services]
    director = asyncio.create_task(bracket_tables.direct(store, tid, list(TABLES), said, done))
    watching = asyncio.create_task(offers.watch(broker.url))

    def made() -> tournaments.core.Tournament:
        return tournaments.load(store, "demo", tid)
    try:
        # a result taken, and matches on the tables: kill the recorder there
        await until(lambda: made().results and made().tables, 300, "a result and a match on")
        on = dict(made().tables)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        ended = sum(ended_in_journal(tmp_path, t) for t in TABLES)
        before = sum(len(journal_seqs(tmp_path, t)) for t in TABLES)
        # a match on a table ends while it is away, the tables saying more meanwhile than the
        # broker keeps for it
        await until(lambda: sum(ended_in_journal(tmp_path, t) for t in TABLES) > ended
                    and sum(len(journal_seqs(tmp_path, t)) for t in TABLES) - before > 10, 300,
                    "a match to end with the recorder away, more than 10 messages meanwhile")
        assert not set(on) & set(made().results)  # nobody took its result meanwhile
        # more was said meanwhile than the broker keeps: the gap is the journals' to fill
        assert sum(len(journal_seqs(tmp_path, t)) for t in TABLES) - before > 10
        proc = recorder(broker, url, log)
        await asyncio.wait_for(done.wait(), 400)
        # the recorder back asked each table what it said meanwhile: a table that went quiet
        # (its match over) is filled now, not at its next word, a minute or more away
        await until(lambda: all(journal_seqs(tmp_path, t) <= kept(store, t) for t in TABLES), 15,
                    "the store to hold every seq the journals published")
    finally:
        director.cancel()
        watching.cancel()
        for s in services:
            s.stop()
        await asyncio.gather(*runs, return_exceptions=True)
        proc.send_signal(signal.SIGTERM)
        proc.wait()
        broker.stop()
    final = made()
    given = re.findall(r"^tournament: (\S+) on (t\d): ", said.getvalue(), re.M)
    assert set(on) <= {m for m, _ in given}
    assert final.progress().champion is not None and dict(final.tables) == {}
    assert sorted(final.results) == sorted(m for m, _ in given)  # every assignment played
    assert store.gaps() == []
    with store.engine.connect() as conn:
        named = {json.dumps([t, e, m]): json.loads(cup) for t, e, m, cup in conn.execute(
            sa.select(matches.c.table_id, matches.c.epoch, matches.c.match_id,
                      matches.c.tournament).where(matches.c.tournament.is_not(None)))}
        sources = dict(conn.execute(sa.select(tournaments.results.c.match_id,
                                              tournaments.results.c.source)).all())
    for match, table in given:  # each result the one of the match its table started by id
        assert named[sources[match]] == {"id": tid, "match": match}
        assert json.loads(sources[match])[0] == table
    assert "Traceback" not in log.read_text()
    store.close()
