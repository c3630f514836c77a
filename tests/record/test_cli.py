"""``python -m controller record``: the sessions' export, and what it refuses, said."""

from __future__ import annotations

import os
import subprocess
import sys

from controller.record import roster, stats
from controller.record.store import Progress, Store
from tests.postgres import Postgres
from tests.record.test_store import event
from tests.record.venue import ROOT


def record(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "record", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


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


def test_the_stores_password_comes_from_a_file_or_systemds_credential_never_the_command_line(
        tmp_path):
    pg = Postgres(password="s3cret-store")
    pg.start()
    try:
        url = pg.database()  # postgresql://postgres@…: no password in it
        (tmp_path / "creds").mkdir()
        (tmp_path / "creds" / "store-password").write_text("s3cret-store\n")
        (tmp_path / "pw").write_text("s3cret-store\n")
        refused = record("--store", url, "--sessions")
        by_file = record("--store", url, "--store-password-file", str(tmp_path / "pw"),
                         "--sessions")
        by_credential = record("--store", url, "--sessions",
                               env={"CREDENTIALS_DIRECTORY": str(tmp_path / "creds")})
    finally:
        pg.stop()
    assert refused.returncode == 1 and "password" in refused.stderr
    assert by_file.returncode == 0, by_file.stderr
    assert by_credential.returncode == 0, by_credential.stderr
    assert by_file.stdout.startswith("venue,table,start,end,matches")


def test_the_unit_hands_the_store_password_over_as_a_credential_and_no_password_is_on_its_command_line():
    unit = (ROOT / "deploy" / "billiards-recorder.service").read_text()
    assert ("LoadCredential=store-password:/etc/billiards-controller/recorder-store.password"
            in unit.splitlines())
    assert "LoadCredential=mqtt-password:/etc/billiards-controller/recorder.password" in unit
    assert ("LoadCredential=director-password:/etc/billiards-controller/"
            "recorder-director.password" in unit.splitlines())
    (start,) = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    assert "password" not in start.lower()


def test_staff_merge_two_roster_entries_from_the_command_line(tmp_path):
    url = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    store = Store(url)
    for seq, ids in ((1, ["p-boris", None]), (3, ["p-borya", None])):
        store.add([event(seq, "match_started", {"match_id": f"m-{seq}", "game": "pyramid",
                                                "players": ["Борис", "Анна"], "player_ids": ids}),
                   event(seq + 1, "match_over", {"winner": 0})],
                  progress={("club", "t1", ""): Progress(seq + 1, seq + 1)}, received=1000.0 + seq)
    stats.summarize_finished(store)
    roster.assign(store)
    store.close()
    refused = record("--store", url, "--merge-players", "club", "p-borya", "p-nobody")
    assert refused.returncode == 2 and "p-nobody" in refused.stderr
    merged = record("--store", url, "--merge-players", "club", "p-borya", "p-boris")
    assert merged.returncode == 0, merged.stderr
    assert "matches moved: 1" in merged.stdout
    store = Store(url)
    assert sorted((e["id"], e["matches"]) for e in roster.entries(store, "club")) == sorted([
        ("p-boris", 2), (roster.new_id("club", "t1", "", "m-1", 1), 2)])  # Анна typed: one
    store.close()
