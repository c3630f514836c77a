"""Is the memory growth of ``controller run`` a leak? Snapshots while thousands of shots play.

``python -m benchmarks.leaks MODE [--shots N] [--every N] ...``; three modes:

- ``table``: the pipeline alone, no clock and no I/O. Simulated matches (Ten-ball, Siberian
  Ten and pyramid in turn, a new seed each) are fed into one long-lived ``Table`` as the
  service feeds it: every sensor edge and request in time order, the fusion's deadlines run
  as the service's ticks, a pause between matches. Fast: tens of thousands of shots a minute.
- ``service``: a ``controller.service.shell.Service`` in this process (sim backend at ``--speed``,
  journal, recording, MQTT to a real Mosquitto from ``tests/broker.py``), as ``controller
  run`` runs it, the sim playing the games in turn (``--games``). The wall clock is the limit
  (~40 shots/s at 400x).
- ``rss``: ``python -m controller run`` as a child process, as ``benchmarks.live memory``
  runs it (the default game, 60 shots a match, loop), for longer; prints its RSS every ``--every``
  shots and where that memory is (``/proc/PID/smaps_rollup``: anonymous or file pages).
  ``--env MALLOC_ARENA_MAX=1`` etc. runs it under another allocator setting.

``table`` and ``service`` take a ``tracemalloc`` snapshot every ``--every`` shots (after a
warm-up of one interval) and print, at each: RSS, the Python heap ``tracemalloc`` sees,
glibc's own count (``mallinfo2``: in use / free in the arenas, which includes SQLite's and
OpenSSL's allocations ``tracemalloc`` does not see), the sizes of every structure that could
grow per shot or per match, and the gc object counts that changed. At the end: the top
allocation sites that grew from the first snapshot to the last, and from the middle one to
the last (a leak keeps growing in the second half; a cache or an allocator step does not).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import ctypes
import gc
import itertools
import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rules.games import spec_of, specs

ROOT = Path(__file__).resolve().parents[1]
GAMES = tuple(spec.id for spec in specs())
HEALTH_EVENTS = ("sensor_fault", "sensor_recovered", "warning")


# ---------------------------------------------------------------------- measuring
def rss_mb(pid: int | None = None) -> float:
    for line in Path(f"/proc/{pid or 'self'}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def smaps(pid: int | None = None) -> dict[str, float]:
    """Returns the process's resident memory by kind (MB), from smaps_rollup."""
    out: dict[str, float] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid or 'self'}/smaps_rollup").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("Rss", "Anonymous", "Shared_Clean", "Private_Clean", "Private_Dirty",
                       "Shared_Dirty"):
                out[key] = int(rest.split()[0]) / 1024
    return out


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _mallinfo() -> Callable[[], dict[str, float]] | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        fn = libc.mallinfo2
    except (OSError, AttributeError):
        return None
    fn.restype = _Mallinfo2

    def get() -> dict[str, float]:
        m = fn()
        return {"arenas MB": m.arena / 2**20, "in use MB": m.uordblks / 2**20,
                "free MB": m.fordblks / 2**20, "mmapped MB": m.hblkhd / 2**20}
    return get


mallinfo = _mallinfo()


def type_counts() -> collections.Counter[str]:
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects())


class Probe:
    """Snapshots every ``every`` shots; ``sizes`` returns the structures worth watching."""

    def __init__(self, every: int, sizes: Callable[[], dict[str, object]], frames: int = 6,
                 trace: bool = True) -> None:
        self.every = every
        self.sizes = sizes
        self.trace = trace
        self.snaps: list[tuple[int, tracemalloc.Snapshot | None]] = []
        self.rows: list[dict[str, object]] = []
        self.first_types: collections.Counter[str] | None = None
        self.next_at = every  # the first interval is the warm-up
        self.started = time.monotonic()
        if trace:
            tracemalloc.start(frames)

    def due(self, shots: int) -> bool:
        return shots >= self.next_at

    def take(self, shots: int) -> None:
        self.next_at = shots - shots % self.every + self.every
        gc.collect()
        snap = None
        if self.trace:
            snap = tracemalloc.take_snapshot().filter_traces((
                tracemalloc.Filter(False, tracemalloc.__file__),
                tracemalloc.Filter(False, "<frozen importlib._bootstrap>"),
                tracemalloc.Filter(False, "<frozen importlib._bootstrap_external>"),
                tracemalloc.Filter(False, __file__),
            ))
        self.snaps.append((shots, snap))
        counts = type_counts()
        row: dict[str, object] = {
            "shots": shots, "s": round(time.monotonic() - self.started, 1),
            "rss MB": round(rss_mb(), 2),
        }
        if self.trace:
            row["traced MB"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 2)
            row["tracemalloc's own MB"] = round(tracemalloc.get_tracemalloc_memory() / 2**20, 2)
        if mallinfo is not None:
            row.update({k: round(v, 2) for k, v in mallinfo().items()})
        row["gc objects"] = sum(counts.values())
        row.update(self.sizes())
        if self.first_types is None:
            self.first_types = counts
        else:
            grown = {k: counts[k] - self.first_types[k] for k in counts
                     if counts[k] - self.first_types[k] > 50}
            row["types grown since first"] = dict(sorted(grown.items(), key=lambda kv: -kv[1])[:8])
        self.rows.append(row)
        print(json.dumps(row), flush=True)

    def report(self, top: int = 15) -> None:
        if len(self.snaps) < 2:
            print("fewer than two snapshots: run more shots")
            return
        first_n, first = self.snaps[0]
        mid_n, mid = self.snaps[len(self.snaps) // 2]
        last_n, last = self.snaps[-1]
        span = max(1, last_n - first_n)
        r0, r1 = self.rows[0], self.rows[-1]
        print(f"\n== {first_n} → {last_n} shots: RSS {r0['rss MB']} → {r1['rss MB']} MB "
              f"({(_num(r1['rss MB']) - _num(r0['rss MB'])) * 1000 / span:+.3f} MB per 1,000 shots)")
        for key in ("traced MB", "in use MB", "free MB", "arenas MB", "gc objects"):
            if key in r0 and key in r1:
                delta = _num(r1[key]) - _num(r0[key])
                print(f"   {key}: {r0[key]} → {r1[key]} ({delta * 1000 / span:+.3f} per 1,000 shots)")
        if first is None or mid is None or last is None:
            return
        for (a_n, a), label in (((first_n, first), "first"), ((mid_n, mid), "middle")):
            stats = last.compare_to(a, "lineno")
            grew = [s for s in stats if s.size_diff > 0]
            total = sum(s.size_diff for s in stats)
            print(f"\n== top allocation sites grown, {label} snapshot ({a_n} shots) → last "
                  f"({last_n}); net {total / 1024:+.1f} KiB = "
                  f"{total / 1024 * 1000 / max(1, last_n - a_n):+.2f} KiB per 1,000 shots")
            for s in grew[:top]:
                frame = s.traceback[0]
                print(f"  {s.size_diff / 1024:+9.1f} KiB {s.count_diff:+7d} blocks  "
                      f"{_short(frame.filename)}:{frame.lineno}")
        stats = last.compare_to(first, "traceback")
        print("\n== the three biggest growing tracebacks (first → last)")
        for s in [s for s in stats if s.size_diff > 0][:3]:
            print(f"  {s.size_diff / 1024:+.1f} KiB, {s.count_diff:+d} blocks:")
            for line in s.traceback.format(limit=6):
                print("     " + line)


def _num(value: object) -> float:
    assert isinstance(value, int | float)
    return float(value)


def _short(filename: str) -> str:
    for root in (str(ROOT) + "/", sys.prefix + "/lib/"):
        if filename.startswith(root):
            return filename[len(root):]
    return filename


# ---------------------------------------------------------------------- 1. the table alone
def simulated(games: list[str], shots: int, seed: int) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    from controller.sim.simulator import simulate_lines
    for n in itertools.count():
        game = games[n % len(games)]
        players = 3 if spec_of(game).max_players > 2 and n % 2 else 2
        yield game, simulate_lines(game, shots, seed + n, False, players)


def run_table(args: argparse.Namespace) -> None:
    from controller.pipeline.table import Message, Table, feed
    from controller.pipeline.trace import HealthLine, RequestLine, parse_line
    from hardware.events import SensorEvent

    counted = [0]

    def publish(messages: list[Message]) -> None:
        counted[0] += sum(1 for msg in messages if msg.ends_shot)

    table = Table(match_id=lambda n: f"m-leaks-{n}")
    publish(table.start(0.0))
    probe = Probe(args.every, lambda: table_sizes(table), trace=not args.no_tracemalloc)
    clock = 0.0
    matches = 0
    for _game, lines in simulated(args.games, args.match_shots, args.seed):
        matches += 1
        t0: float | None = None
        base = clock
        for n, raw in enumerate(lines, start=1):
            item = parse_line(json.dumps(raw), n)
            if not isinstance(item, SensorEvent | RequestLine | HealthLine):
                continue
            if t0 is None:
                t0 = item.t
            t = round(base + item.t - t0, 6)
            while table.next_deadline <= t:  # the service's ticks
                publish(table.advance(table.next_deadline))
            clock = t
            if isinstance(item, SensorEvent):
                publish(table.sensor(SensorEvent(t, item.ch, item.v, item.level, item.ball,
                                                 item.pocket)))
            elif isinstance(item, HealthLine):
                publish(feed(table, HealthLine(t, item.channel, item.state)))
            else:
                publish(table.request(item.name, dict(item.payload), t).messages)
            if probe.due(counted[0]):
                probe.take(counted[0])
        clock += 5.0
        publish(table.advance(clock))
        if counted[0] >= args.shots:
            break
    probe.take(counted[0])
    print(f"\n{matches} matches, {counted[0]} shots")
    probe.report()


def table_sizes(table: Any) -> dict[str, object]:
    ref = table.referee
    return {
        "matches": table.matches,
        "table answers": len(table.transactions()),
        "deferred": table.play.held_back,
        "referee frames": len(getattr(ref, "_frames", ())),
        "fusion bursts waiting": len(table.fusion.cushions._closed),
    }


# ---------------------------------------------------------------------- 2. the service
def run_service(args: argparse.Namespace) -> None:
    from benchmarks.live import broker
    with tempfile.TemporaryDirectory() as d, broker(Path(d)) as b:
        asyncio.run(_service(args, Path(d), b))


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count: collections.Counter[str] = collections.Counter()

    def emit(self, record: logging.LogRecord) -> None:
        self.count[record.getMessage()[:60]] += 1


async def _service(args: argparse.Namespace, d: Path, b: Any) -> None:
    from controller.service.config import validate
    from controller.service.delivery import Delivery
    from controller.service.shell import Service
    from controller.sim.backend import SimBackend

    config = validate({
        "venue": "bench", "table": "t1", "backend": "sim", "data": str(d / "data"),
        "log_level": "warning", "mqtt": {"url": b.url}, "web": {"enabled": False},
        "sim": {"game": args.games[0], "shots": args.match_shots, "speed": args.speed,
                "loop": True},
    }, "leaks")
    warnings = _Warnings()
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger().addHandler(warnings)
    counted = [0]
    topics: collections.Counter[str] = collections.Counter()

    class Counting(Service):
        def _publish(self, items: list[Delivery]) -> None:
            for item in items:
                topic = item.topic.removeprefix(self.base + "/")
                topics[topic.partition("/")[0]] += 1
                if topic != "event":
                    continue
                payload = json.loads(item.payload)
                if payload.get("type") in HEALTH_EVENTS:
                    data = payload["data"]
                    topics[f"{payload['type']} {data.get('reason', data.get('kind'))}"] += 1
                if payload.get("type") == "shot_result" and not payload["data"].get("corrected"):
                    counted[0] += 1
            super()._publish(items)

    matches = (lines for _game, lines in simulated(args.games, args.match_shots, args.seed))
    backend = SimBackend(matches, speed=args.speed)
    service = Counting(config, backend=backend)
    backend.on_request = service.request
    backend._clock = service.host_clock
    journal_db = d / "data" / "journal.sqlite3"

    backlog = [0]

    def sizes() -> dict[str, object]:
        out = table_sizes(service.table)
        box = service.outbox
        out.update({
            "outbox max since last": backlog[0],
            "queue": service._queue.qsize(),
            "outbox items": len(box._items), "outbox dead": len(box._dead),
            "outbox retained": len(box._retained), "delivered": box.delivered,
            "journal pending": len(service.journal._pending.inputs)
            + len(service.journal._pending.outgoing) + len(service.journal._pending.dropped),
            "journal meta": len(service.journal.meta),
            "health channels": len(service.health._channels),
            "health recent": sum(len(c.recent) for c in service.health._channels.values()),
            "told fusion": len(service.core.sensors.told),
            "tasks": len(asyncio.all_tasks()),
            "threads": len(os.listdir("/proc/self/task")),
            "warnings logged": sum(warnings.count.values()),
            "connections": service.link.connections, "published": dict(topics),
        })
        with contextlib.closing(sqlite3.connect(f"file:{journal_db}?mode=ro", uri=True)) as db:
            for name in ("inputs", "outbox", "answers"):
                (out[f"db {name}"],) = db.execute(f"SELECT COUNT(*) FROM {name}").fetchone()
        wal = journal_db.with_name(journal_db.name + "-wal")
        out["wal KB"] = wal.stat().st_size // 1024 if wal.exists() else 0
        out.update({f"smaps {k}": round(v, 1) for k, v in smaps().items() if k != "Rss"})
        return out

    probe = Probe(args.every, sizes, trace=not args.no_tracemalloc)
    task = asyncio.create_task(service.run())
    try:
        while counted[0] < args.shots:
            await asyncio.sleep(0.25)
            if task.done():
                task.result()
                break
            # the outbox's high-water mark since the last snapshot: a backlog (the broker
            # or the CPU too slow for a while) is memory the allocator may keep afterwards
            backlog[0] = max(backlog[0], len(service.outbox._items))
            if probe.due(counted[0]):
                probe.take(counted[0])
                backlog[0] = 0
        probe.take(counted[0])
    finally:
        service.stop()
        await asyncio.wait_for(task, 30)
    print(f"\n{backend.played} matches played, {counted[0]} shots; warnings: "
          f"{dict(warnings.count.most_common(5))}")
    probe.report()


# ---------------------------------------------------------------------- 3. the process's RSS
def run_rss(args: argparse.Namespace) -> None:
    from benchmarks.live import _run_config, broker

    env = dict(os.environ)
    for pair in args.env:
        key, _, value = pair.partition("=")
        env[key] = value
    with tempfile.TemporaryDirectory() as d, broker(Path(d)) as b:
        config = _run_config(Path(d), b.url, f'game = "{args.games[0]}"\nshots = '
                             f'{args.match_shots}\nspeed = {args.speed}\nloop = true')
        samples = asyncio.run(_watch(args, b, [sys.executable, "-m", "controller", "run",
                                               "--config", str(config)], env))
    by_k: dict[int, float] = {}  # the highest RSS seen in each thousand shots
    for n, x in samples:
        by_k[n // 1000] = max(by_k.get(n // 1000, 0.0), x)
    print("\nmax RSS per 1,000 shots: " + ", ".join(f"{k}k {v:.1f}" for k, v in sorted(by_k.items())))


async def _watch(args: argparse.Namespace, b: Any, argv: list[str],
                 env: dict[str, str]) -> list[tuple[int, float]]:
    """Runs ``argv``, counting its shots on the broker; returns (shots, RSS) every 0.5 s."""
    import aiomqtt

    from benchmarks.live import stop_process

    counted = [0]

    async def listen(sub: aiomqtt.Client) -> None:
        async for m in sub.messages:
            if isinstance(m.payload, bytes) and b'"shot_result"' in m.payload \
                    and b'"corrected":true' not in m.payload:
                counted[0] += 1

    samples: list[tuple[int, float]] = []
    async with aiomqtt.Client(b.host, b.port) as sub:
        await sub.subscribe("billiards/bench/t1/event", qos=0)
        task = asyncio.create_task(listen(sub))
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        start = time.monotonic()
        next_at = 0
        try:
            while counted[0] < args.shots and time.monotonic() - start < args.limit_s:
                await asyncio.sleep(0.5)
                if proc.poll() is not None:
                    raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "")
                samples.append((counted[0], rss_mb(proc.pid)))
                if counted[0] >= next_at:
                    next_at = counted[0] - counted[0] % args.every + args.every
                    print(json.dumps({
                        "shots": counted[0], "s": round(time.monotonic() - start, 1),
                        "rss MB": round(samples[-1][1], 2),
                        "threads": len(os.listdir(f"/proc/{proc.pid}/task")),
                        **{k: round(v, 2) for k, v in smaps(proc.pid).items()}}), flush=True)
        finally:
            stop_process(proc)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.leaks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("table", "service", "rss"))
    parser.add_argument("--shots", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1_000, help="snapshot interval, shots")
    parser.add_argument("--games", default=",".join(GAMES),
                        help="comma-separated, played in turn (rss: the first only)")
    parser.add_argument("--match-shots", type=int, default=60, help="shots a match at most")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--speed", type=float, default=400.0)
    parser.add_argument("--limit-s", type=float, default=1800.0, help="rss: wall-clock limit")
    parser.add_argument("--env", action="append", default=[], help="rss: KEY=VALUE for the child")
    parser.add_argument("--no-tracemalloc", action="store_true")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # clean up (the broker) on kill
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    {"table": run_table, "service": run_service, "rss": run_rss}[args.mode](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
