"""``python -m controller record``: the sessions' export, and what it refuses, said."""

from __future__ import annotations

import subprocess
import sys

from controller.record import stats
from controller.record.store import Progress, Store
from tests.record.test_store import event
from tests.record.venue import ROOT


def record(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "record", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_sessions_print_as_csv_and_recording_needs_a_broker(tmp_path):
    url = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    store = Store(url)
    store.add([event(1, "match_started", {"match_id": "m-1", "game": "pyramid", "players": ["A", "B"]},
                     ts=5.0), event(2, "match_over", {"winner": 0}, ts=65.0)],
              progress={("club", "t1", ""): Progress(2, 2)}, received=1000.0)
    stats.summarize_finished(store)
    store.close()
    shown = record("--store", url, "--sessions")
    assert shown.returncode == 0, shown.stderr
    # both came at 1000 s: the least delay is the match_over's, so the table's clock is the
    # wall's less 935 s
    assert shown.stdout.splitlines() == ["venue,table,start,end,matches", "club,t1,940.0,1000.0,1"]
    refused = record("--store", url)
    assert refused.returncode == 2 and "--broker is needed" in refused.stderr
    bad = record("--store", f"sqlite:///{tmp_path}/no/such/dir/x.sqlite3", "--sessions")
    assert bad.returncode == 1 and "cannot open the record store" in bad.stderr
