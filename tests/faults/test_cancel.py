"""A client learns for certain what became of a request it gave up on (issue 39, item 1): a
``cancel`` by transaction, which the table journals and answers. Cancelled first, the request
is refused whenever it comes (after a restart and a new match too); done first, the cancel's
answer says so and carries the request's own answer. No clock is compared with another."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.pipeline.table import Table
from controller.service.core import Request
from tests.service.corekit import Stepper, core_config, payloads

NEW = {"game": "ten-ball", "players": ["Ann", "Bob"]}


def answer(table: Table, name: str, payload: dict[str, Any], t: float) -> dict[str, Any]:
    return table.request(name, json.dumps(payload), t).response


def played(table: Table) -> Table:
    answer(table, "new_match", {**NEW, "transaction": "nm"}, 1.0)
    answer(table, "shot_end", {"transaction": "e1"}, 2.0)
    assert table.referee.shots == 1
    return table


def test_a_request_cancelled_before_it_came_is_refused_when_it_comes() -> None:
    table = played(Table())
    cancel = answer(table, "cancel", {"cancels": "u1", "transaction": "c1"}, 3.0)
    assert cancel["status"] == "ok"
    assert cancel["data"] == {"cancels": "u1", "cancelled": True}
    late = answer(table, "undo", {"transaction": "u1"}, 4.0)
    assert late["status"] == "error" and "cancelled before it reached the table" in late["error"]
    assert table.referee.shots == 1  # the shot stays
    again = answer(table, "cancel", {"cancels": "u1", "transaction": "c2"}, 5.0)
    assert again["data"] == {"cancels": "u1", "cancelled": True}


def test_a_cancel_that_comes_after_its_request_says_what_the_table_did() -> None:
    table = played(Table())
    undone = answer(table, "undo", {"transaction": "u1"}, 3.0)
    assert table.referee.shots == 0
    cancel = answer(table, "cancel", {"cancels": "u1", "transaction": "c1"}, 4.0)
    assert cancel["data"] == {"cancels": "u1", "cancelled": False, "request": "undo",
                              "answer": undone}
    refused = answer(table, "undo", {"transaction": "u2"}, 5.0)  # nothing left to undo
    assert refused["status"] == "error"
    told = answer(table, "cancel", {"cancels": "u2", "transaction": "c2"}, 6.0)
    assert told["data"]["cancelled"] is False and told["data"]["answer"] == refused


def test_a_cancel_naming_its_own_transaction_is_refused() -> None:
    table = Table()
    got = answer(table, "cancel", {"cancels": "c1", "transaction": "c1"}, 1.0)
    assert got["status"] == "error" and "own transaction" in got["error"]


def test_a_cancel_holds_over_a_restart_and_a_new_match(tmp_path: Path) -> None:
    config = core_config(tmp_path / "data")
    stepper = Stepper(config)
    stepper.take(stepper.core.start())
    for name, payload in (("new_match", {**NEW, "transaction": "nm"}),
                          ("shot_end", {"transaction": "e1"}),
                          ("cancel", {"cancels": "u1", "transaction": "c1"}),
                          ("new_match", {**NEW, "transaction": "nm2"})):  # compacts the journal
        stepper.take(stepper.core.handle(Request(name, json.dumps(payload).encode())))
    stepper.commit()
    stepper.sync()
    stepper.close()
    again = Stepper(config, clock=stepper.clock, wall=stepper.wall, boot="boot-2")
    again.take(again.core.start())
    again.take(again.core.handle(Request("shot_end", b'{"transaction": "e2"}')))
    out = again.take(again.core.handle(Request("undo", b'{"transaction": "u1"}')))
    (late,) = payloads(out, "response/undo")
    assert late["status"] == "error" and "cancelled" in late["error"], late
    assert again.core.table.referee.shots == 1
    again.close()
