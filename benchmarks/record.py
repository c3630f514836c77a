"""The venue record's figures (issue 31): ``python -m benchmarks record``.

- ingest: the recorder (in this process, on SQLite and on PostgreSQL) takes the messages
  of ``tables`` publishers as fast as they publish, beside a bare QoS 1 subscriber on the
  same broker in the same run (what the broker can deliver); then a backlog (published
  while both were away, kept in their persistent sessions) drained by each alone;
- queries: the history list (the newest page, the last page, a page filtered by player and
  dates) and a player's page with ``matches`` stored matches, p95;
- size: the store's bytes per match of real table messages (replayed Ten-ball matches).

PostgreSQL is Debian's, a cluster of its own in a temporary directory (``tests.postgres``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import sqlalchemy as sa
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from benchmarks.synth import long_trace
from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from controller.record import queries, stats
from controller.record.queries import HistoryQuery
from controller.record.recorder import Recorder
from controller.record.store import Progress, Store, Stored, match_players, matches
from controller.sim.broker import Mosquitto
from controller.wire.connection import parse_broker
from rules.games import specs
from tests.postgres import Postgres


@contextlib.contextmanager
def stores(directory: Path) -> Iterator[dict[str, str]]:
    """Yields a fresh SQLite and PostgreSQL store URL each call of ``next``: name -> URL."""
    pg = Postgres()
    pg.start()
    try:
        yield {"sqlite": f"sqlite:///{directory / 'record.sqlite3'}", "postgresql": pg.database()}
    finally:
        pg.stop()


def _p95(samples: list[float]) -> float:
    return round(statistics.quantiles(samples, n=20)[18] * 1000, 2)


async def _ingest(url: str, broker: Mosquitto, tables: int, per_table: int) -> dict[str, float]:
    store = Store(url)
    recorder = Recorder(store, parse_broker(broker.url), client_id=f"bench-{time.time_ns()}")
    total = tables * per_table
    arrivals: list[float] = []

    async def bare() -> None:
        async with aiomqtt.Client(broker.host, broker.port) as client:
            await client.subscribe("billiards/+/+/event", qos=1)
            ready.set()
            async for _ in client.messages:
                arrivals.append(time.perf_counter())
                if len(arrivals) == total:
                    return

    ready = asyncio.Event()
    run = asyncio.create_task(recorder.run())
    bare_task = asyncio.create_task(bare())
    await ready.wait()
    while recorder.counters.connections == 0:
        await asyncio.sleep(0.05)
    start = time.perf_counter()
    await _publish(broker, tables, per_table)
    stored_at = await _settled(lambda: recorder.counters.stored, total)
    await _settled(lambda: len(arrivals), total)
    bare_task.cancel()
    run.cancel()
    for task in (bare_task, run):
        with contextlib.suppress(asyncio.CancelledError):
            await task
    store.close()
    return {"bare": round(len(arrivals) / (arrivals[-1] - start)), "bare got": len(arrivals),
            "recorder": round(recorder.counters.stored / (stored_at - start)),
            "recorder got": recorder.counters.stored}


async def _settled(count: Callable[[], int], total: int, quiet_s: float = 3.0) -> float:
    """Waits until ``count()`` reaches ``total`` or stops growing for ``quiet_s``; returns when
    it last grew."""
    last, at = count(), time.perf_counter()
    while last < total and time.perf_counter() - at < quiet_s:
        await asyncio.sleep(0.01)
        if count() != last:
            last, at = count(), time.perf_counter()
    return at


async def _backlog(url: str, broker: Mosquitto, total: int) -> dict[str, float]:
    """The rate at which a backlog is drained: ``total`` messages published while the recorder
    and a bare persistent subscriber were away, then each taken alone."""
    ident = f"bench-{time.time_ns()}"
    store = Store(url)
    recorder = Recorder(store, parse_broker(broker.url), client_id=ident)
    props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    props.SessionExpiryInterval = 3600
    bare = {"identifier": ident + "-bare", "protocol": aiomqtt.ProtocolVersion.V5,
            "clean_start": False, "properties": props}
    async with aiomqtt.Client(broker.host, broker.port, **bare) as client:  # type: ignore[arg-type]
        await client.subscribe("billiards/+/+/event", qos=1)
    run = asyncio.create_task(recorder.run())  # its session, then away
    while recorder.counters.connections == 0:
        await asyncio.sleep(0.05)
    run.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await run
    await _publish(broker, 1, total, venue="backlog")  # not the live run's seqs
    start = time.perf_counter()
    got: list[float] = []

    async def drain() -> None:
        async with aiomqtt.Client(broker.host, broker.port, **bare) as client:  # type: ignore[arg-type]
            async for _ in client.messages:
                got.append(time.perf_counter())

    draining = asyncio.create_task(drain())
    bare_at = await _settled(lambda: len(got), total)
    draining.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await draining
    recorder = Recorder(store, parse_broker(broker.url), client_id=ident)
    start_recorder = time.perf_counter()
    run = asyncio.create_task(recorder.run())
    stored_at = await _settled(lambda: recorder.counters.stored, total)
    run.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await run
    store.close()
    return {"bare": round(len(got) / (bare_at - start)), "bare got": len(got),
            "recorder": round(recorder.counters.stored / (stored_at - start_recorder)),
            "recorder got": recorder.counters.stored}


async def _publish(broker: Mosquitto, tables: int, per_table: int, venue: str = "bench") -> None:
    payload = {"v": 1, "ts": 1.0, "type": "shot_result",
               "data": {"shot": 1, "corrected": False, "decisions": [
                   {"decision": "BallCredited", "player": 0, "ball": 3, "points": 1}],
                   "to_shoot": 0, "ball_in_hand": "none"}}

    async def table(n: int) -> None:
        async with aiomqtt.Client(broker.host, broker.port, max_inflight_messages=100) as client:
            for first in range(1, per_table + 1, 100):  # 100 in flight at a time
                await asyncio.gather(*(
                    client.publish(f"billiards/{venue}/t{n}/event",
                                   json.dumps({**payload, "seq": seq}), qos=1)
                    for seq in range(first, min(first + 100, per_table + 1))))

    await asyncio.gather(*(table(n) for n in range(tables)))


def bench_ingest(repeat: int, tables: int = 4, per_table: int = 5000) -> dict[str, object]:
    out: dict[str, object] = {"benchmark": "record ingest", "messages": tables * per_table}
    with tempfile.TemporaryDirectory(prefix="bench-record-") as tmp:
        # the broker holds what a subscriber has not taken yet, however much (its default
        # drops past 1,000 a client: the bare subscriber could then never count them all)
        broker = Mosquitto(Path(tmp) / "broker", extra="max_queued_messages 0\n")
        broker.start()
        try:
            with stores(Path(tmp)) as urls:
                for name, url in urls.items():
                    got = asyncio.run(_ingest(url, broker, tables, per_table))
                    out[f"{name} recorder msg/s"] = got["recorder"]
                    out[f"{name} bare subscriber msg/s (same run)"] = got["bare"]
                    out[f"{name} ratio"] = round(got["recorder"] / got["bare"], 3)
                    out[f"{name} received: recorder / bare"] = [got["recorder got"], got["bare got"]]
                    drained = asyncio.run(_backlog(url, broker, tables * per_table))
                    out[f"{name} backlog: recorder msg/s"] = drained["recorder"]
                    out[f"{name} backlog: bare persistent subscriber msg/s"] = drained["bare"]
                    out[f"{name} backlog received: recorder / bare"] = [drained["recorder got"],
                                                                      drained["bare got"]]
        finally:
            broker.stop()
    return out


def _fill(store: Store, n: int) -> None:
    """Stores ``n`` finished matches across 12 tables and 40 players (their summaries)."""
    rng = random.Random(31)
    players = [f"player {i}" for i in range(40)]
    games = tuple(spec.id for spec in specs())
    rows, prows = [], []
    for i in range(n):
        table, game = f"t{i % 12 + 1}", games[i % len(games)]
        a, b = rng.sample(players, 2)
        winner = rng.randrange(2)
        rows.append({"venue": "club", "table_id": table, "match_id": f"m-{i}", "game": game,
                     "started": 1.7e9 + i * 900, "ended": 1.7e9 + i * 900 + 800,
                     "first_seq": i * 300, "last_seq": i * 300 + 299,
                     "players": json.dumps([a, b]), "winner": winner, "abandoned": False})
        for idx, name in enumerate((a, b)):
            prows.append({"venue": "club", "table_id": table, "match_id": f"m-{i}", "idx": idx,
                          "name": name, "game": game, "won": idx == winner,
                          "games_won": rng.randrange(4), "games_played": 5,
                          "balls": rng.randrange(40), "points": rng.randrange(80),
                          "best_run": rng.randrange(9), "break_and_runs": rng.randrange(2),
                          "fouls": rng.randrange(6)})
    with store.engine.begin() as conn:
        conn.execute(sa.insert(matches), rows)
        conn.execute(sa.insert(match_players), prows)
    if store.dialect == "postgresql":  # as its autovacuum would have by now (SQLite has none)
        with store.engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM ANALYZE")


def _one_match(store: Store, i: int) -> None:
    """Reads the match ``_fill`` stored as its ``i``th, by its key."""
    with store.engine.connect() as conn:
        conn.execute(sa.select(matches).where(
            matches.c.venue == "club", matches.c.table_id == f"t{i % 12 + 1}",
            matches.c.match_id == f"m-{i}")).one()


def bench_queries(repeat: int, n: int = 10_000, samples: int = 200) -> dict[str, object]:
    out: dict[str, object] = {"benchmark": "record queries", "matches": n, "samples": samples}
    with tempfile.TemporaryDirectory(prefix="bench-record-") as tmp, stores(Path(tmp)) as urls:
        for name, url in urls.items():
            store = Store(url)
            _fill(store, n)
            for what, query in (("history (50 newest)", lambda s: queries.page(s, HistoryQuery())),
                                ("history (last page)", lambda s: queries.page(s, HistoryQuery(page=200))),
                                ("history (by player and date)", lambda s: queries.page(s, HistoryQuery(
                                    player="player 7", since="2023-11-20", until="2024-01-31"))),
                                ("player page", lambda s: stats.player(s, "player 7")),
                                ("sessions", lambda s: stats.sessions(s)),
                                # the host's floor in the same run: one match by its key
                                ("baseline: one match by its key", lambda s: _one_match(s, n // 2))):
                times = []
                for _ in range(samples if what != "sessions" else 20):
                    t0 = time.perf_counter()
                    query(store)
                    times.append(time.perf_counter() - t0)
                out[f"{name} {what} p95 ms"] = _p95(times)
            store.close()
    out["goal"] = "p95 < 100 ms (history and player page)"
    return out


def _messages(matches_wanted: int) -> list[Stored]:
    """Returns the messages a table publishes for about ``matches_wanted`` Ten-ball matches
    (replayed from the synthetic trace of the replay benchmark)."""
    out: list[Stored] = []
    seq = [0]

    def publish(msg: Message) -> None:
        seq[0] += 1
        payload: dict[str, Any] = {**msg.payload, "seq": seq[0]}
        out.append(Stored("club", "t1", seq[0], msg.topic, payload))

    lines = long_trace(400 * matches_wanted)  # about 400 trace lines a match
    replay(lines, publish, lambda bad: None)
    return out


def bench_size(repeat: int, matches_wanted: int = 50) -> dict[str, object]:
    items = _messages(matches_wanted)
    started = sum(1 for m in items if m.kind == "match_started")
    out: dict[str, object] = {"benchmark": "record size", "matches": started,
                              "messages": len(items)}
    with tempfile.TemporaryDirectory(prefix="bench-record-") as tmp, stores(Path(tmp)) as urls:
        for name, url in urls.items():
            store = Store(url)
            empty = _size(store, Path(tmp))
            for i in range(0, len(items), 500):
                store.add(items[i:i + 500], progress={("club", "t1", ""): Progress(
                    items[min(i + 499, len(items) - 1)].seq, items[-1].seq)})
            stats.summarize_finished(store)
            out[f"{name} bytes per match"] = round((_size(store, Path(tmp)) - empty) / started)
            store.close()
    return out


def _size(store: Store, directory: Path) -> int:
    if store.dialect == "postgresql":
        with store.engine.connect() as conn:
            return int(conn.scalar(sa.text("SELECT pg_database_size(current_database())")) or 0)
    with store.engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in directory.glob("record.sqlite3*"))


def bench_record(repeat: int) -> dict[str, object]:
    """All three: ingest, queries, size."""
    return {**bench_ingest(repeat), **bench_queries(repeat), **bench_size(repeat)}
