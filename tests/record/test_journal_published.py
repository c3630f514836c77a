"""The journal's published log, which ``history_since`` answers from: every message with a
seq, once, in order; a history_since response without the messages it carried; the oldest
forgotten past PUBLISHED_KEPT; nothing counted as kept before its transaction commits."""

from __future__ import annotations

import json

from controller.service import published as published_module
from controller.service.journal import Journal, JournalError

B = "billiards/club/t1"


def note(j: Journal, topic: str, body: dict) -> None:
    j.new_outgoing(f"{B}/{topic}", json.dumps(body).encode(), retain=False)


def test_messages_with_a_seq_are_kept_once_in_order(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3")
    note(j, "event", {"v": 1, "seq": 1, "type": "foul"})
    note(j, "status", {"v": 1, "state": "offline"})  # a Will's shape: no seq, not kept
    note(j, "response/get", {"v": 1, "seq": 2, "status": "ok"})
    j.new_outgoing("reply/to/me", json.dumps({"v": 1, "seq": 2, "status": "ok"}).encode(), False)
    j.write(j.take())
    rows, first, last = j.published.read(0, 10)
    assert [(s, t) for s, t, _ in rows] == [(1, f"{B}/event"), (2, f"{B}/response/get")]
    assert (first, last) == (1, 2)
    assert j.published.read(1, 10)[0][0][0] == 2
    j.close()
    assert Journal(tmp_path / "journal.sqlite3").published.read(0, 10)[1:] == (1, 2)  # reopened


def test_a_history_since_response_is_kept_without_the_messages_it_carried(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3")
    note(j, "response/history_since", {"v": 1, "seq": 7, "status": "ok", "data": {
        "first": 1, "upto": 6, "messages": [{"seq": 1, "topic": "event", "payload": {}}] * 6}})
    j.write(j.take())
    [(seq, _, payload)] = j.published.read(0, 10)[0]
    assert seq == 7 and json.loads(payload)["data"] == {"first": 1, "upto": 6, "messages": 6}


def test_the_oldest_are_forgotten_past_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(published_module, "PUBLISHED_KEPT", 10)
    j = Journal(tmp_path / "journal.sqlite3")
    for seq in range(1, 31):
        note(j, "event", {"v": 1, "seq": seq})
        j.write(j.take())
    rows, first, last = j.published.read(0, 100)
    assert last == 30 and first >= 20 - 1 and rows[0][0] == first
    assert [s for s, _, _ in rows] == list(range(first, 31))


def test_a_batch_that_cannot_be_written_is_not_counted_as_kept(tmp_path):
    j = Journal(tmp_path / "journal.sqlite3")
    note(j, "event", {"v": 1, "seq": 1})
    j.write(j.take())
    note(j, "event", {"v": 1, "seq": 2})
    batch = j.take()
    batch.inputs.append((1, "x"))
    batch.inputs.append((1, "x"))  # the same id twice: the transaction fails
    try:
        j.write(batch)
    except JournalError:
        pass
    else:
        raise AssertionError("the broken batch was written")
    assert j.published.read(0, 10)[1:] == (1, 1)
