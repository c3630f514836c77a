"""A damaged journal never rolls the score back silently nor gives a published seq again
(issue 33 items 3 and 4): one test per kind of damage, each on the real journal's files.

A match is played by requests on the service's core, each batch written and synced as the
shell does, the trace flushed after it; the core is then killed (its files copied while it
runs, as ``kill -9`` leaves them) or stopped cleanly, the files are damaged, and the core is
started again on the same boot. Each case must end in the state the table had published
(recovered from the trace, which held every input) or say in ``B/health`` that it came back
with less than it had published; and every seq it gives out is above every seq it gave before.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from controller.service import durability
from controller.service.journal import Journal, JournalError
from controller.service.opening import last_session
from tests.broker import Broker
from tests.faults.test_power_cut import KEYS, recorded_match
from tests.service.conftest import Collector, make_config, requester, running
from tests.service.corekit import FakeClock, Stepper, core_config, payloads
from tests.service.plays import MATCH
from tests.smallfs import fill, small_filesystem

JOURNAL = "journal.sqlite3"
FILES = (JOURNAL, JOURNAL + "-wal", JOURNAL + "-shm", JOURNAL + ".seq")
WAL_HEADER, FRAME_HEADER, PAGE = 32, 24, 4096


class Run:
    """A core playing the recorded match; what it gave seqs to, and the state it showed."""

    def __init__(self, data: Path, *, recording: bool = True) -> None:
        self.data = data
        self.config = core_config(data, recording={"enabled": recording})
        self.stepper = Stepper(self.config)
        self.seqs: list[int] = []
        self.t = 1.0
        self.take(self.stepper.core.start())

    def take(self, items: list[Any]) -> None:
        self.stepper.take(items)
        self.seqs += [json.loads(o.payload)["seq"] for o in items
                      if o.topic.startswith("billiards/club/t1/") and b'"seq"' in o.payload]

    def play(self, reqs: list[tuple[str, dict[str, Any]]]) -> None:
        """Plays requests, one a second, each written and synced, the trace flushed."""
        s = self.stepper
        for name, payload in reqs:
            self.t += 1.0
            before = len(s.sent)
            s.step({"t": self.t, "request": name, "payload": payload})
            self.seqs += [json.loads(o.payload)["seq"] for o in s.sent[before:]
                          if b'"seq"' in o.payload]
            s.commit()
            s.sync()
            s.core.inputs.flush()

    def state(self) -> dict[str, Any]:
        snap = self.stepper.core.table.referee.snapshot()
        return {k: snap[k] for k in KEYS}

    def kill(self, card: Path) -> None:
        """``kill -9``: the files as the machine's cache holds them, copied while the core is
        running, put back after it is gone."""
        card.mkdir()
        for name in FILES:
            if (self.data / name).exists():
                shutil.copy2(self.data / name, card / name)
        self.stepper.core.journal.abandon()
        for name in FILES:
            (self.data / name).unlink(missing_ok=True)
            if (card / name).exists():
                shutil.copy2(card / name, self.data / name)

    def again(self) -> Stepper:
        """Starts the core again on the same boot, a little later."""
        return Stepper(self.config, clock=FakeClock(self.stepper.clock.t + 1.0))


def wal(data: Path) -> Path:
    path = data / (JOURNAL + "-wal")
    assert path.stat().st_size > WAL_HEADER + 4 * (FRAME_HEADER + PAGE), "the match is in the log"
    return path


def torn_tail(data: Path) -> None:
    """The last frame of the log half written."""
    path = wal(data)
    os.truncate(path, path.stat().st_size - PAGE // 2)


def half_wal(data: Path) -> None:
    path = wal(data)
    frames = (path.stat().st_size - WAL_HEADER) // (FRAME_HEADER + PAGE)
    os.truncate(path, WAL_HEADER + frames // 2 * (FRAME_HEADER + PAGE))


def overwritten_frame(data: Path) -> None:
    """A frame in the middle of the log overwritten (its checksum no longer holds)."""
    path = wal(data)
    frames = (path.stat().st_size - WAL_HEADER) // (FRAME_HEADER + PAGE)
    with path.open("r+b") as f:
        f.seek(WAL_HEADER + frames // 3 * (FRAME_HEADER + PAGE) + FRAME_HEADER + 100)
        f.write(os.urandom(512))


def deleted_wal(data: Path) -> None:
    wal(data).unlink()
    (data / (JOURNAL + "-shm")).unlink(missing_ok=True)


def truncated_db(data: Path) -> None:
    path = data / JOURNAL
    os.truncate(path, path.stat().st_size // 2)


def bad_row(data: Path) -> None:
    """One request's row no longer JSON (a clean stop: the rows are in the database)."""
    db = sqlite3.connect(data / JOURNAL)
    (row,) = db.execute("SELECT id FROM inputs WHERE line LIKE '%\"declare\"%' LIMIT 1")
    db.execute("UPDATE inputs SET line = '{\"t\": 3.0, \"request\": \"decl' WHERE id = ?", row)
    db.commit()
    db.close()


def rebuild_link(stepper: Stepper) -> dict[str, Any] | None:
    (health,) = payloads(stepper.take(stepper.core.start()), "health")
    link: dict[str, Any] | None = health["links"].get("rebuild")
    return link


KILLED: list[tuple[str, Callable[[Path], None]]] = [
    ("torn tail", torn_tail), ("half the log", half_wal), ("an overwritten frame", overwritten_frame),
    ("a deleted log", deleted_wal)]
STOPPED: list[tuple[str, Callable[[Path], None]]] = [
    ("a truncated database", truncated_db), ("an input row not JSON", bad_row)]


def played(tmp_path: Path, recording: bool = True) -> Run:
    run = Run(tmp_path / "data", recording=recording)
    run.play(recorded_match())
    return run


def check_recovered(run: Run, again: Stepper, shown: dict[str, Any]) -> None:
    """The state published, the journal whole again, health saying what happened, no seq
    given twice."""
    table = again.core.table
    snap = table.referee.snapshot()
    assert {k: snap[k] for k in KEYS} == shown, "the score rolled back"
    link = rebuild_link(again)
    assert link is not None and link["up"] and "recovered" in link["reason"], link
    assert table.seq >= max(run.seqs), "a seq given out before would be given again"
    new = [json.loads(o.payload)["seq"] for o in again.sent if b'"seq"' in o.payload]
    assert min(new) > max(run.seqs)


@pytest.mark.parametrize("damage", [d for _, d in KILLED], ids=[n for n, _ in KILLED])
def test_a_log_damaged_after_kill_9_is_recovered_from_the_trace_and_no_seq_is_reused(
        tmp_path: Path, damage: Callable[[Path], None]) -> None:
    run = played(tmp_path)
    shown = run.state()
    run.kill(tmp_path / "card")
    damage(run.data)
    again = run.again()
    check_recovered(run, again, shown)
    again.close()
    third = run.again()  # the journal was written whole again: nothing more to recover
    assert rebuild_link(third) is None
    assert {k: third.core.table.referee.snapshot()[k] for k in KEYS} == shown
    third.close()


@pytest.mark.parametrize("damage", [d for _, d in STOPPED], ids=[n for n, _ in STOPPED])
def test_a_damaged_database_after_a_clean_stop_is_recovered_from_the_trace(
        tmp_path: Path, damage: Callable[[Path], None]) -> None:
    run = played(tmp_path)
    shown = run.state()
    run.stepper.close()
    damage(run.data)
    again = run.again()
    check_recovered(run, again, shown)
    again.close()


def test_a_bad_row_without_a_trace_is_skipped_and_said_in_health_never_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    run = played(tmp_path, recording=False)
    run.stepper.close()
    bad_row(run.data)
    again = run.again()
    link = rebuild_link(again)
    assert link is not None and not link["up"]
    assert "less than it had published" in link["reason"] and "cannot be read" in link["reason"]
    assert any("less than it had published" in r.getMessage() for r in caplog.records
               if r.levelname == "ERROR")
    assert again.core.table.seq >= max(run.seqs)
    again.close()
    third = run.again()  # said again after a restart, until a new match
    link = rebuild_link(third)
    assert link is not None and not link["up"]
    third.step({"t": third.core.time.last_t + 1, "request": "new_match",
                "payload": {"game": "ten-ball", "players": ["Ann", "Bob"], "transaction": "n2"}})
    (health,) = payloads(third.sent, "health")[-1:]
    assert health["links"]["rebuild"]["up"], "a new match: the loss is behind it"
    third.close()


def test_a_lost_log_without_a_trace_says_so_and_numbers_on_after_the_mark(tmp_path: Path) -> None:
    run = played(tmp_path, recording=False)
    run.kill(tmp_path / "card")
    deleted_wal(run.data)
    again = run.again()
    link = rebuild_link(again)
    assert link is not None and not link["up"] and "less than it had published" in link["reason"]
    new = [json.loads(o.payload)["seq"] for o in again.sent if b'"seq"' in o.payload]
    assert min(new) > max(run.seqs)
    again.close()


def test_an_undamaged_journal_says_nothing_and_loses_no_seqs(tmp_path: Path) -> None:
    run = played(tmp_path)
    shown = run.state()
    seq = run.stepper.core.table.seq
    run.kill(tmp_path / "card")
    again = run.again()
    assert rebuild_link(again) is None
    assert {k: again.core.table.referee.snapshot()[k] for k in KEYS} == shown
    assert again.core.table.seq == seq + 4, "kill -9 of a whole journal: seq goes on exactly"
    again.close()


def test_the_seq_mark_is_written_in_place_and_read_back(tmp_path: Path) -> None:
    journal = Journal(tmp_path / JOURNAL)
    journal.mark.reserve(1500)
    journal.sync()
    size = (tmp_path / (JOURNAL + ".seq")).stat().st_size
    journal.mark.fell_behind(True)
    journal.mark.write()
    assert (tmp_path / (JOURNAL + ".seq")).stat().st_size == size
    journal.close()
    again = Journal(tmp_path / JOURNAL)
    assert (again.mark.found.reserved, again.mark.found.behind) == (1500, True)
    again.close()


def test_a_restart_on_a_full_disk_says_it_has_less_than_it_published_and_reuses_no_seq(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(durability, "JOURNAL_RETRY_S", 0.0)
    reqs = recorded_match()
    with small_filesystem(tmp_path / "fs", 2048) as fs:
        # no trace (whether a full disk leaves it room is chance): nothing to recover from
        run = Run(fs / "data", recording=False)
        run.play(reqs[:6])
        filler = fill(fs)
        run.play(reqs[6:])  # refereed from memory: released at once, the journal behind
        assert run.stepper.core.durability.error is not None
        shown = run.state()
        run.stepper.close()  # the last try to write what was kept fails too
        again = run.again()  # on the full disk
        link = rebuild_link(again)
        assert link is not None and not link["up"], "a silent roll-back"
        assert "less than it had published" in link["reason"]
        assert "could not hold" in link["reason"]
        assert {k: again.core.table.referee.snapshot()[k] for k in KEYS} != shown
        new = [json.loads(o.payload)["seq"] for o in again.sent if b'"seq"' in o.payload]
        assert min(new) > max(run.seqs), "a seq published from memory given again"
        again.commit()  # as the shell does: the full disk takes nothing, the table goes on
        again.close()
        filler.unlink()
        third = run.again()  # room again: still said, until a new match
        link = rebuild_link(third)
        assert link is not None and not link["up"] and "could not hold" in link["reason"]
        third.commit()
        third.sync()
        third.close()
        fourth = run.again()  # a new match: the loss is behind it, for good
        assert rebuild_link(fourth) is not None
        fourth.step({"t": fourth.core.time.last_t + 1, "request": "new_match", "payload": {
            "game": "ten-ball", "players": ["Ann", "Bob"], "transaction": "n2"}})
        fourth.commit()
        fourth.sync()
        fourth.close()
        fifth = run.again()
        assert rebuild_link(fifth) is None
        fifth.close()


def test_an_unreadable_tick_of_the_clock_is_found_not_needed_by_the_trace(tmp_path: Path) -> None:
    run = Run(tmp_path / "data")
    run.play(recorded_match()[:1])
    s = run.stepper
    for t in (20.0, 30.0):  # a ball drops; quiet long enough, the shot is ruled by the clock
        for dt, ch, v in ((0.0, "cushion.f", 1), (0.01, "cushion.f", 0), (0.2, "beam.fl", 1),
                          (0.23, "beam.fl", 0)):
            s.step({"t": t + dt, "ch": ch, "v": v})
        s.settle(t + 5.0)
    s.commit()
    s.sync()
    shown = s.core.table.referee.snapshot()
    s.close()
    db = sqlite3.connect(run.data / JOURNAL)
    (row,) = db.execute("SELECT id FROM inputs WHERE line LIKE '%\"tick\"%' LIMIT 1")
    db.execute("UPDATE inputs SET line = '{\"t\": 2' WHERE id = ?", row)
    db.commit()
    db.close()
    again = run.again()
    link = rebuild_link(again)
    assert link is not None and link["up"] and "tick" in link["reason"], link
    assert again.core.table.referee.snapshot() == shown
    again.close()


async def test_the_running_service_says_it_came_back_with_less_on_b_health_and_b_status(
        tmp_path: Path, broker: Broker) -> None:
    config = make_config(tmp_path, broker, recording={"enabled": False})
    async with Collector(broker) as col:
        async with running(config), requester(broker) as req:
            await req.play(col, MATCH)
        published = max(s.payload["seq"] for s in col.seen if "seq" in s.payload)
        bad_row(config.data)
        before = len(col.seen)
        async with running(config), requester(broker) as req:
            await req.play(col, [("get", {"transaction": "g"})])
            link = (await col.wait(lambda: col.last("health")["links"].get("rebuild")))
            assert not link["up"] and "less than it had published" in link["reason"]
            assert col.last("status")["health"]["ok"] is False
        fresh = [s.payload["seq"] for s in col.seen[before:] if "seq" in s.payload]
        assert min(fresh) > published, "a seq published before given again"


def test_the_last_trace_session_is_its_newest_files_with_one_header_newest_bytes_first(
        tmp_path: Path) -> None:
    (tmp_path / "trace-000001.jsonl").write_text('{"trace":1,"session":"a"}\nA1\nA2\n')
    (tmp_path / "trace-000002.jsonl").write_text('{"trace":1,"session":"b"}\nB1\nB2\n')
    (tmp_path / "trace-000003.jsonl").write_text('{"trace":1,"session":"b"}\nB3\nB4\n')
    assert last_session(tmp_path) == ["B1", "B2", "B3", "B4"]
    assert last_session(tmp_path, limit=7) == ["B3", "B4"]  # a line cut by the limit: left out
    assert last_session(tmp_path / "none") == []


def test_a_seq_mark_that_cannot_be_read_is_logged_and_seq_goes_on_after_the_reservation(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    run = played(tmp_path)
    shown = run.state()
    run.kill(tmp_path / "card")
    (run.data / (JOURNAL + ".seq")).write_bytes(os.urandom(64))
    again = run.again()
    assert {k: again.core.table.referee.snapshot()[k] for k in KEYS} == shown
    assert any("seq mark" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    limit = int(again.core.journal.meta["seq_limit"])
    assert again.core.table.seq == limit, "not known how far seqs went: after the reservation"
    again.close()


def test_a_loss_once_said_is_kept_in_the_journal_not_said_again_from_the_mark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = played(tmp_path, recording=False)
    run.kill(tmp_path / "card")
    deleted_wal(run.data)
    again = run.again()
    assert "reserved to" in (rebuild_link(again) or {})["reason"]
    again.commit()
    again.sync()
    again.close()
    third = run.again()
    link = rebuild_link(third)
    assert link is not None and not link["up"] and link["reason"].count("reserved to") == 1
    limit = int(third.core.journal.meta["seq_limit"])
    assert third.core.table.seq < limit, "not damaged again: seq goes on where it was"
    third.close()


def test_a_kept_answer_not_json_is_logged_and_left_out_never_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    run = played(tmp_path)
    run.play([("new_match", {"game": "ten-ball", "players": ["Cy", "Di"], "transaction": "n2"})])
    run.stepper.close()  # the first match's answers kept without their inputs
    db = sqlite3.connect(run.data / JOURNAL)
    assert db.execute("SELECT COUNT(*) FROM answers").fetchone()[0] > 1
    db.execute("UPDATE answers SET response = '{\"status\": \"o' WHERE n = 1")
    db.commit()
    db.close()
    again = run.again()
    assert [p["name"] for p in again.core.table.referee.snapshot()["players"]] == ["Cy", "Di"]
    assert any("answer 1" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")
    again.close()


def test_a_damaged_database_that_cannot_be_moved_aside_is_a_specific_refusal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = played(tmp_path)
    run.stepper.close()
    truncated_db(run.data)

    def refuse(self: Path, target: Path) -> Path:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "rename", refuse)
    with pytest.raises(JournalError, match="malformed.*cannot be moved aside"):
        run.again()


def test_a_sessions_trace_header_counts_the_lines_that_replay_the_match_ticks_left_out(
        tmp_path: Path) -> None:
    run = Run(tmp_path / "data")
    run.play(recorded_match()[:1])
    s = run.stepper
    for dt, ch, v in ((0.0, "cushion.f", 1), (0.01, "cushion.f", 0), (0.2, "beam.fl", 1),
                      (0.23, "beam.fl", 0)):
        s.step({"t": 20.0 + dt, "ch": ch, "v": v})
    s.settle(25.0)
    s.commit()
    s.close()
    journal = Journal(run.data / JOURNAL)
    assert any("tick" in line for line in journal.inputs()), "the clock ruled the shot"
    journal.close()
    again = run.again()
    again.close()
    newest = sorted((run.data / "traces").glob("trace-*.jsonl"))[-1].read_text().splitlines()
    header = json.loads(newest[0])
    assert header["resumed"] == len(newest) - 1 == 5  # new_match and the shot's four edges


def test_traces_left_from_when_recording_was_on_are_not_taken_for_the_journals(
        tmp_path: Path) -> None:
    run = played(tmp_path)  # recorded
    run.stepper.close()
    old = Run(tmp_path / "data", recording=False)  # recording off since: a new match
    old.play([("new_match", {"game": "ten-ball", "players": ["Cy", "Di"], "transaction": "n2"})])
    old.kill(tmp_path / "card")
    for name in FILES[:3]:  # the database and its log gone; the seq mark left
        (old.data / name).unlink(missing_ok=True)
    again = old.again()
    assert again.core.table.referee.snapshot()["players"] == [], "the old trace's match came back"
    link = rebuild_link(again)
    assert link is not None and not link["up"]
    again.close()


def test_a_kill_between_inputs_and_their_commit_is_no_damage_the_trace_waits_for_the_journal(
        tmp_path: Path) -> None:
    run = played(tmp_path)
    s = run.stepper
    for n in range(400):  # more than the trace file's buffer holds, none of it committed
        s.step({"t": 100.0 + n * 0.05, "ch": "cushion.f", "v": (n + 1) % 2})
    run.kill(tmp_path / "card")
    again = run.again()
    assert rebuild_link(again) is None, "a trace ahead of its journal taken for damage"
    again.close()
