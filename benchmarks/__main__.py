"""``python -m benchmarks [NAME ...]`` (or ``./dev bench``): the speed figures, with baselines.

Each benchmark reports medians over several repetitions and the ratio against a baseline
measured in the same run on the same machine. Nothing here is a pass/fail test.

- ``replay``: trace lines per second through parsing, fusion, the referee and the
  publisher (``python -m controller replay`` without the printing), beside the baseline of
  only decoding the same JSON lines.
- ``latency``, ``requests``, ``memory``, ``startup``, ``venue``: the live service (``benchmarks.live``).
- ``record``: the venue recorder's ingest rate beside a bare subscriber's, its queries with
  10,000 matches and its size per match, on SQLite and PostgreSQL (``benchmarks.record``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable

from benchmarks import live, record
from benchmarks.synth import long_trace


def _median_rate(n: int, run: Callable[[], object], repeat: int) -> float:
    rates = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def bench_replay(repeat: int) -> dict[str, object]:
    from controller.pipeline.replay import replay
    from controller.pipeline.table import Message

    lines = long_trace(200_000)
    published: list[int] = [0]

    def publish(_m: Message) -> None:
        published[0] += 1

    def errors(bad: object) -> None:
        raise RuntimeError(f"benchmark trace has a bad line: {bad}")

    baseline = _median_rate(len(lines), lambda: [json.loads(x) for x in lines], repeat)
    rate = _median_rate(len(lines), lambda: replay(lines, publish, errors), repeat)
    return {
        "benchmark": "replay throughput",
        "lines": len(lines),
        "median lines/s": round(rate),
        "baseline (json.loads only) lines/s": round(baseline),
        "ratio to baseline": round(rate / baseline, 3),
        "goal": ">= 100,000 lines/s on one core",
    }


BENCHMARKS: dict[str, Callable[[int], dict[str, object]]] = {
    "replay": bench_replay,
    "latency": live.bench_latency,
    "requests": live.bench_requests,
    "memory": live.bench_memory,
    "startup": live.bench_startup,
    "venue": live.bench_venue,
    "record": record.bench_record,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", choices=[*BENCHMARKS, []], default=[],
                        help="benchmarks to run (default: all)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"# {platform.node()} · {platform.machine()} · Python {platform.python_version()} · "
          f"{os.cpu_count()} cores")
    for name in args.names or list(BENCHMARKS):
        result = BENCHMARKS[name](args.repeat)
        print(json.dumps(result, ensure_ascii=False))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
