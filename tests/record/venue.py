"""A venue for the record's tests: simulated tables (real services) on a real Mosquitto, a
recorder process that can be killed, and the tables' journals to compare the store with."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from controller.record.store import Store
from controller.service.config import validate
from controller.service.shell import Service
from controller.sim.backend import sim_backend
from tests.broker import Broker, ShippedBroker

ROOT = Path(__file__).resolve().parents[2]
GAMES = ("siberian-ten", "ten-ball", "pyramid")


def table_config(root: Path, broker: Broker | ShippedBroker, n: int, speed: float, shots: int, loop: bool,
                 url: str | None = None) -> object:
    return validate({
        "venue": "club", "table": f"t{n}", "backend": "sim", "data": str(root / f"t{n}"),
        "log_level": "warning",
        "mqtt": {"url": url or broker.url, "reconnect_min_s": 0.1, "reconnect_max_s": 0.5},
        "journal": {"sync": "normal", "commit_interval_ms": 5},
        "sim": {"game": GAMES[(n - 1) % 3], "seed": n, "speed": speed, "shots": shots,
                "loop": loop},
        "web": {"enabled": False},
    }, "test")


@asynccontextmanager
async def tables(root: Path, broker: Broker | ShippedBroker, count: int, speed: float = 20.0,
                 shots: int = 60, loop: bool = True,
                 url: Callable[[int], str] | None = None) -> AsyncIterator[list[Service]]:
    """Runs ``count`` simulated tables on ``broker`` until the block ends, playing ``shots``
    shots (again and again with ``loop``; else they stay up, idle, once played); ``url``:
    table n's broker URL (its user), when not the broker's own."""
    services = [Service(table_config(root, broker, n, speed, shots, loop,  # type: ignore[arg-type]
                                     url(n) if url else None),
                        backend=sim_backend)
                for n in range(1, count + 1)]
    runs = [asyncio.create_task(s.run(), name=f"table-{s.config.table}") for s in services]
    try:
        yield services
    finally:
        for s in services:
            s.stop()
        await asyncio.gather(*runs)


#: What ``published`` and ``stored`` show for a table's answer that changed nothing (a
#: refused request): the record counts its seq, it does not store it.
COUNTED = "(counted)"


def published(root: Path, table: str) -> dict[int, str]:
    """Returns what a table's journal kept as published: seq -> topic (relative), COUNTED for
    an answer that changed nothing (``"status": "error"``)."""
    db = sqlite3.connect(root / table / "journal.sqlite3")
    try:
        return {seq: COUNTED if "/response/" in topic and json.loads(payload).get("status")
                == "error" else topic.removeprefix(f"billiards/club/{table}/")
                for seq, topic, payload in db.execute("SELECT seq, topic, payload FROM published")}
    finally:
        db.close()


def epoch(root: Path, table: str) -> str:
    """Returns the epoch of a table's journal."""
    db = sqlite3.connect(root / table / "journal.sqlite3")
    try:
        (value,) = db.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()
        return str(value)
    finally:
        db.close()


def recorder(broker: Broker | ShippedBroker, store: str, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    """Starts ``python -m controller record`` (its output in ``log``; ``extra``: more
    arguments)."""
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "record", "--broker", broker.url, "--store", store,
         *extra], cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT)


def stored(store: Store, root: Path, table: str, of: str | None = None) -> dict[int, str]:
    """Returns what the store holds of a table's journal's epoch (``of``, else the journal's
    now): seq -> topic, COUNTED for a seq counted, not stored."""
    e = of if of is not None else epoch(root, table)
    kept = {m.seq: m.topic for m in store.messages("club", table, epoch=e)}
    return {s: kept.get(s, COUNTED) for s in store.seqs("club", table, e)}


@contextmanager
def recording(broker: Broker | ShippedBroker, root: Path) -> Iterator[Store]:
    """Runs ``python -m controller record`` on ``broker`` into an SQLite store under ``root``
    until the block ends; yields the store once the recorder records."""
    url = f"sqlite:///{root / 'record.sqlite3'}"
    store = Store(url)
    log = root / "recorder.log"
    proc = recorder(broker, url, log)
    try:
        deadline = time.monotonic() + 30
        while not (log.exists() and "recording" in log.read_text()):
            assert time.monotonic() < deadline, "timed out after 30 s waiting for the recorder"
            time.sleep(0.05)
        yield store
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
