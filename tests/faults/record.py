"""The fault runs' summary: each fault test notes what it did, for ``benchmarks/faults.py``.

``note(fault, runs, nothing_lost)`` appends one JSON line to the file named by the
``FAULTS_REPORT`` environment variable (nothing happens without it). A test notes its outcome
before asserting it, so a failed run shows in the table as "no".
"""

from __future__ import annotations

import json
import os


def note(fault: str, runs: int, nothing_lost: bool, **detail: object) -> None:
    path = os.environ.get("FAULTS_REPORT")
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"fault": fault, "runs": runs, "nothing_lost": nothing_lost,
                            **detail}) + "\n")
