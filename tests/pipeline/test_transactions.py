"""A transaction names one request for as long as a client could resend it (issue 33, item 6):
its answer is kept with its request's body (a digest), across a restart's rebuild, and a
flood of refused requests does not push the requests that changed the match out of memory."""

from __future__ import annotations

from typing import Any

from controller.pipeline.table import Table
from controller.pipeline.transactions import KEPT_APPLIED, KEPT_OTHERS, Answer, Transactions

NEW = {"game": "ten-ball", "players": ["Ann", "Bob"], "transaction": "nm"}


def ask(table: Table, name: str, payload: dict[str, Any], t: float = 1.0) -> dict[str, Any]:
    return table.request(name, payload, t).response


def test_a_resent_request_after_a_flood_of_refused_ones_is_answered_not_applied_again() -> None:
    table = Table()
    assert ask(table, "new_match", NEW)["status"] == "ok"
    first = ask(table, "shot_end", {"transaction": "e1"})
    assert first["status"] == "ok" and table.referee.state.shot == 1
    for n in range(KEPT_OTHERS + 6):  # one user's refused undos, each under a new transaction
        assert ask(table, "undo", {"shots": 5, "transaction": f"u{n}"})["status"] == "error"
    assert ask(table, "shot_end", {"transaction": "e1"}, 2.0) == first  # the referee resends
    assert table.referee.state.shot == 1


def test_a_transaction_kept_over_a_restart_still_refuses_another_body() -> None:
    table = Table()
    assert ask(table, "new_match", NEW)["status"] == "ok"
    rebuilt = Table()  # a restart after the match was compacted: only the answers are kept
    for tx, name, kept in table.transactions():
        rebuilt.remember(tx, name, kept)
    other = ask(rebuilt, "new_match", {**NEW, "players": ["Cleo", "Dan"]})
    assert other["status"] == "error" and "already used" in other["error"]
    assert rebuilt.referee.state.setup is None  # nothing was done
    again = ask(rebuilt, "new_match", NEW)
    assert again == ask(table, "new_match", NEW)  # the same request: answered as before


def test_an_older_journals_bare_answer_is_still_taken() -> None:
    memory = Transactions()
    memory.restore("t", "undo", {"status": "ok", "transaction": "t", "data": {"shot": 0}})
    answer = memory.get("t")
    assert answer is not None and answer.body is None and answer.same_request("undo", "any")


def test_each_memory_is_bounded_and_forgets_its_oldest() -> None:
    memory = Transactions(kept_applied=2, kept_others=2)
    for n in range(3):
        memory.note(f"a{n}", Answer("undo", "b", {"status": "ok"}))
        memory.note(f"r{n}", Answer("undo", "b", {"status": "error"}))
    memory.note("g", Answer("get", "b", {"status": "ok"}))  # a read: the shorter memory
    assert [tx for tx, _, _ in memory.entries()] == ["r2", "g", "a1", "a2"]
    assert KEPT_APPLIED >= 4 * KEPT_OTHERS
