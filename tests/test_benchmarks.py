"""The benchmarks still run end to end, in miniature (a few drops, tables, shots).

Smoke tests only: what they check is that each benchmark measures what it says and reports
every figure; no timing is asserted (benchmarks are never pass/fail on speed).
"""

from __future__ import annotations

import math
import tracemalloc

from benchmarks import leaks, live
from benchmarks.__main__ import bench_replay


def test_the_replay_benchmark_reports_its_rate_beside_the_baseline(monkeypatch) -> None:
    from benchmarks import synth
    small = synth.long_trace(2_000)
    monkeypatch.setattr("benchmarks.__main__.long_trace", lambda n: small)
    got = bench_replay(1)
    assert got["lines"] == len(small) and got["median lines/s"] > 0
    assert got["ratio to baseline"] > 0


def test_the_latency_benchmark_times_drops_on_both_backends() -> None:
    got = live.bench_latency(1, drops=4)
    figures = {k: v for k, v in got.items() if k.endswith("p50/p99 ms")}
    assert len(figures) == 6  # bare, warm, and four variants
    for name, (p50, p99) in figures.items():
        assert 0 < p50 <= p99 < 1000, name  # a drop arrived, in under a second


def test_the_memory_benchmark_counts_shots_and_memory() -> None:
    # at the benchmark's 400 times real time a table starved of CPU by the other test worker
    # (the suite runs two) fell behind its own simulator and its broker link: 100 times is
    # enough for 20 shots, and the smoke test checks what the benchmark counts, not its speed
    got = live.bench_memory(1, shots=20, limit_s=60, speed=100)
    assert got["shots"] >= 20
    assert 0 < got["rss at start MB"] <= got["peak MB"]
    assert got["sensor_fault events seen"] >= 0


def test_the_startup_benchmark_times_the_retained_state() -> None:
    got = live.bench_startup(1, least=1)  # the benchmark's median takes three
    assert got["runs"] == 1 and 0 < got["median s"] <= got["max s"] < 30


def test_the_venue_benchmark_sees_every_table_deliver_everything() -> None:
    got = live.bench_venue(1, tables=2, processes=1, seconds=3, round_trips=20)
    assert got["tables"] == 2
    assert got["seq out of order or repeated"] == 0
    assert set(got["not delivered while connected"].values()) == {0}
    assert got["messages delivered"] > 0
    p50, p99 = got["ball_pocketed p50/p99 ms (from the beam clearing)"]
    assert got["ball_pocketed count"] == 0 or (p50 > 0 and not math.isnan(p99))


def test_the_leak_hunt_snapshots_a_long_lived_table(capsys) -> None:
    try:
        # three matches of at most 10 shots, a snapshot every 10 shots: the warm-up's and
        # two more, what the report compares (every allocation traced: each shot costs)
        assert leaks.main(["table", "--shots", "30", "--every", "10",
                           "--match-shots", "10"]) in (0, None)
    finally:  # it traces every allocation of the process, and would go on for the tests after
        tracemalloc.stop()
    out = capsys.readouterr().out
    assert '"shots"' in out and "rss MB" in out
    assert "top allocation sites grown, middle snapshot" in out  # snapshots compared


def test_the_request_benchmark_times_round_trips_through_the_service_and_a_bare_echo() -> None:
    got = live.bench_requests(1, n=3)
    figures = {k: v for k, v in got.items() if k.endswith("p50/p99 ms")}
    assert len(figures) == 8  # two brokers: the bare echo and three service variants each
    for name, (p50, p99) in figures.items():
        assert 0 < p50 <= p99 < 5000, name  # every request was answered
