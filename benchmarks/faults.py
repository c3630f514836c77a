"""``python -m benchmarks.faults [--soak]``: runs ``tests/faults`` and prints the summary table.

Each fault test notes what it did (``tests/faults/record.py``: the fault, how many times it
was injected, whether anything was lost); this runs them with pytest (with ``--soak``, the
long runs too) and prints one Markdown row per fault: the runs summed, and "yes" only if
every test that injected it found nothing lost, and pytest passed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def table(records: list[dict[str, object]]) -> str:
    """Returns the Markdown summary of fault records."""
    rows: dict[str, list[int | bool]] = {}
    for r in records:
        row = rows.setdefault(str(r["fault"]), [0, True, 0])
        row[0] = int(row[0]) + int(str(r["runs"]))
        row[1] = bool(row[1]) and bool(r["nothing_lost"])
        row[2] = int(row[2]) + 1
    lines = ["| fault | runs (injections) | tests | nothing lost |", "|---|---:|---:|---|"]
    for fault, (runs, ok, tests) in sorted(rows.items()):
        lines.append(f"| {fault} | {runs} | {tests} | {'yes' if ok else '**no**'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.faults", description=__doc__)
    parser.add_argument("--soak", action="store_true", help="the long runs too")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as d:
        report = Path(d) / "faults.jsonl"
        start = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/faults",
             *(["--soak"] if args.soak else [])],
            cwd=ROOT, env={**os.environ, "FAULTS_REPORT": str(report)}, capture_output=True,
            text=True)
        elapsed = time.monotonic() - start
        records = [json.loads(x) for x in report.read_text().splitlines()] if report.exists() else []
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr[-500:]
    print(table(records))
    print(f"\npytest tests/faults{' --soak' if args.soak else ''}: {summary} ({elapsed:.0f} s)")
    if run.returncode != 0:
        print(run.stdout[-4000:], file=sys.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
