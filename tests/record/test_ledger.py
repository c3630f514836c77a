"""The recorder's ledger on its own: what it asks the tables after a (re)connection."""

from __future__ import annotations

from controller.record.ledger import Ledger
from controller.record.store import Progress, Stored

KEY = ("club", "t1", "e1")


def quiet_table() -> Ledger:
    """A ledger that recorded t1 whole up to seq 40 (loaded from the store), nothing heard
    since: no gap it knows of."""
    ledger = Ledger()
    ledger.load({KEY: Progress(40, 40, heard=1.0), ("club", "t1", "e0"):
                 Progress(9, 9, heard=0.5, closed=True)})
    return ledger


def answer(ledger: Ledger, body: dict[str, object], messages: list[int], upto: int) -> None:
    reply = {"status": "ok", "transaction": body["transaction"], "data": {
        "epoch": "e1", "since": 0, "first": 1, "upto": upto, "messages": [
            {"seq": s, "topic": "event", "payload": {"seq": s}} for s in messages]}}
    key = ledger.answer("club", "t1", reply, "rec")
    assert key == KEY
    ledger.advance([], [(KEY, reply)], {}, lambda *_: [], lambda *_: None, now=10.0)


def test_a_table_complete_as_far_as_heard_is_asked_after_a_reconnection_until_it_has_no_more(
        ) -> None:
    ledger = quiet_table()
    assert ledger.askings(1.0, "rec") == []  # nothing heard says it is behind
    first = ledger.askings(2.0, "rec", reconnected=True)
    assert [(a.key, a.body["seq"]) for a in first] == [(KEY, 40)]  # its own epoch, not e0
    answer(ledger, first[0].body, [41, 42, 43], 43)  # it said 3 more while we were away
    again = ledger.askings(11.0, "rec")
    assert [(a.key, a.body["seq"]) for a in again] == [(KEY, 43)]  # more may lie past a page
    answer(ledger, again[0].body, [], 43)
    assert ledger.askings(12.0, "rec") == []  # it has no more: asked no further
    assert ledger.tables[KEY].progress.complete_upto == 43


def test_a_table_that_does_not_answer_after_a_reconnection_is_not_asked_again_and_again(
        ) -> None:
    ledger = quiet_table()
    assert len(ledger.askings(2.0, "rec", reconnected=True)) == 1
    assert ledger.askings(2.0 + ledger.timeout_s + 1, "rec") == []  # switched off: it will
    assert ledger.askings(100.0, "rec") == []  # say what it said when it is back


def test_a_gap_filled_while_connected_is_not_asked_past() -> None:
    """The asking after a reconnection is its own: a gap heard and filled is asked no more
    than the gap (a table playing was asked again and again, each answer bringing its new
    messages)."""
    ledger = quiet_table()
    live = [Stored("club", "t1", 45, "event", {"seq": 45}, "e1")]
    ledger.advance(live, [], {KEY: 2.0}, lambda *_: [], lambda *_: None, now=3.0)
    asked = ledger.askings(4.0, "rec")
    assert [(a.key, a.body["seq"]) for a in asked] == [(KEY, 40)]  # the gap 41-44
    answer(ledger, asked[0].body, [41, 42, 43, 44, 45, 46], 46)
    assert ledger.askings(11.0, "rec") == []


def test_a_table_off_at_many_reconnections_still_has_its_gap_asked_for_when_it_is_back(
        ) -> None:
    """Its unanswered askings after reconnections are not fruitless fills: counted so, six of
    them had its next gap recorded lost without asking it."""
    ledger = quiet_table()
    now = 2.0
    for _ in range(ledger.tries + 1):
        assert len(ledger.askings(now, "rec", reconnected=True)) == 1
        now += ledger.timeout_s + 1
        assert ledger.askings(now, "rec") == []
    live = [Stored("club", "t1", 45, "event", {"seq": 45}, "e1")]  # back, past a gap
    _, lost, _ = ledger.advance(live, [], {KEY: 9.0}, lambda *_: [], lambda *_: None, now=now)
    assert lost == []
    assert [(a.key, a.body["seq"]) for a in ledger.askings(now, "rec")] == [(KEY, 40)]
