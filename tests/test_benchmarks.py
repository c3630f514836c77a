"""The benchmarks still run end to end, in miniature (a few drops, tables, shots).

Smoke tests only: what they check is that each benchmark measures what it says and reports
every figure; no timing is asserted (benchmarks are never pass/fail on speed).

The live benchmarks mostly wait (on their brokers, their services' processes, the simulated
tables' clocks), so the module starts those its selected tests need at once, side by side
(``started``), and each test checks its own benchmark's report. The requests benchmark runs
in a process of its own: it switches the service's socket options for its whole process
while it times Nagle's algorithm (the latency benchmark's services would take them).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from benchmarks import live
from benchmarks.__main__ import bench_replay

ROOT = Path(__file__).resolve().parents[1]


def _leak_hunt() -> subprocess.CompletedProcess[str]:
    # three matches of at most 10 shots, a snapshot every 10 shots: the warm-up's and two
    # more, what the report compares (every allocation traced: each shot costs). Its own
    # process, as the benchmark is run: in pytest's it traced and counted pytest's heap too
    # (twice the time), and it traces every allocation of the process it runs in
    return subprocess.run([sys.executable, "-m", "benchmarks.leaks", "table", "--shots", "30",
                           "--every", "10", "--match-shots", "10"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)


def _own_process(call: str) -> Any:
    """Returns what ``call`` (of ``benchmarks.live``) returns, run in a process of its own."""
    done = subprocess.run([sys.executable, "-c", "import json; from benchmarks import live; "
                           f"print(json.dumps({call}))"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


#: Each benchmark run in miniature, by the word naming it in its test's name.
RUNS: dict[str, Callable[[], Any]] = {
    # at the benchmark's 400 times real time a table starved of CPU by the other test worker
    # (the suite runs two) fell behind its own simulator and its broker link: 100 times is
    # enough for 20 shots, and the smoke test checks what the benchmark counts, not its speed
    "memory": lambda: live.bench_memory(1, shots=20, limit_s=60, speed=100),
    "startup": lambda: live.bench_startup(1, least=1),  # the benchmark's median takes three
    "venue": lambda: live.bench_venue(1, tables=2, processes=1, seconds=3, round_trips=20),
    "leak": _leak_hunt,
    "latency": lambda: live.bench_latency(1, drops=4),
    "request": lambda: _own_process("live.bench_requests(1, n=3)"),
}


Started = dict[str, Future[Any]]


@pytest.fixture(scope="module")
def started(request: pytest.FixtureRequest) -> Iterator[Started]:
    """The benchmarks of this module's selected tests, started side by side, by name."""
    words = {word for item in request.session.items if item.path == request.path
             for word in item.name.split("_")}
    with ThreadPoolExecutor(len(RUNS), thread_name_prefix="benchmark") as pool:
        yield {name: pool.submit(run) for name, run in RUNS.items() if name in words}


def test_the_replay_benchmark_reports_its_rate_beside_the_baseline(monkeypatch) -> None:
    from benchmarks import synth
    small = synth.long_trace(2_000)
    monkeypatch.setattr("benchmarks.__main__.long_trace", lambda n: small)
    got = bench_replay(1)
    assert got["lines"] == len(small) and got["median lines/s"] > 0
    assert got["ratio to baseline"] > 0


def test_the_latency_benchmark_times_drops_on_both_backends(started: Started) -> None:
    got = started["latency"].result()
    figures = {k: v for k, v in got.items() if k.endswith("p50/p99 ms")}
    assert len(figures) == 6  # bare, warm, and four variants
    for name, (p50, p99) in figures.items():
        assert 0 < p50 <= p99 < 1000, name  # a drop arrived, in under a second


def test_the_memory_benchmark_counts_shots_and_memory(started: Started) -> None:
    got = started["memory"].result()
    assert got["shots"] >= 20
    assert 0 < got["rss at start MB"] <= got["peak MB"]
    assert got["sensor_fault events seen"] >= 0


def test_the_startup_benchmark_times_the_retained_state(started: Started) -> None:
    got = started["startup"].result()
    assert got["runs"] == 1 and 0 < got["median s"] <= got["max s"] < 30


def test_the_venue_benchmark_sees_every_table_deliver_everything(started: Started) -> None:
    got = started["venue"].result()
    assert got["tables"] == 2
    assert got["seq out of order or repeated"] == 0
    assert set(got["not delivered while connected"].values()) == {0}
    assert got["messages delivered"] > 0
    p50, p99 = got["ball_pocketed p50/p99 ms (from the beam clearing)"]
    assert got["ball_pocketed count"] == 0 or (p50 > 0 and not math.isnan(p99))


def test_the_leak_hunt_snapshots_a_long_lived_table(started: Started) -> None:
    done = started["leak"].result()
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '"shots"' in out and "rss MB" in out
    assert "top allocation sites grown, middle snapshot" in out  # snapshots compared


def test_the_request_benchmark_times_round_trips_through_the_service_and_a_bare_echo(
        started: Started) -> None:
    got = started["request"].result()
    figures = {k: v for k, v in got.items() if k.endswith("p50/p99 ms")}
    assert len(figures) == 8  # two brokers: the bare echo and three service variants each
    for name, (p50, p99) in figures.items():
        assert 0 < p50 <= p99 < 5000, name  # every request was answered
