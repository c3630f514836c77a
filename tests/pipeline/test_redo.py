"""Undo can be taken back (issue 29): ``redo`` is a request like ``undo``, journaled, so the
rebuild from the journal gives the same match; it is refused once the match went on."""

from __future__ import annotations

from typing import Any

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from tests.tracekit import TraceBuilder

FOUR = ["f", "h", "lh", "rf"]


def _replayed(trace: TraceBuilder) -> list[Message]:
    out: list[Message] = []
    replay(trace.text().splitlines(), out.append, lambda bad: pytest.fail(str(bad)))
    return out


def _last(out: list[Message], topic: str) -> dict[str, Any]:
    return [m.payload for m in out if m.topic == topic][-1]


def _played() -> TraceBuilder:
    return (TraceBuilder().new_match("ten-ball").shot(cushions=FOUR)
            .call(1, "fr").shot(drops=["fr"]))


def test_redo_gives_back_the_shots_an_undo_took():
    before = _last(_replayed(_played()), "state")
    out = _replayed(_played().request("undo", {"shots": 2}).request("redo"))
    after = _last(out, "state")
    assert {k: after[k] for k in ("shot", "to_shoot", "on_table", "players")} == \
           {k: before[k] for k in ("shot", "to_shoot", "on_table", "players")}
    assert _last(out, "response/redo")["status"] == "ok"
    assert [m.payload["data"] for m in out if m.topic == "event" and m.payload["type"] == "redo"] \
        == [{"shot": before["shot"]}]


def test_two_undos_are_redone_one_by_one():
    out = _replayed(_played().request("undo").request("undo").request("redo"))
    assert _last(out, "state")["shot"] == _last(_replayed(_played().request("undo")), "state")["shot"]
    out = _replayed(_played().request("undo").request("undo").request("redo").request("redo"))
    assert _last(out, "state")["shot"] == _last(_replayed(_played()), "state")["shot"]


@pytest.mark.parametrize("between", [
    pytest.param([], id="no-undo"),
    pytest.param([("undo", {}), ("new_match", {"game": "ten-ball", "players": ["A", "B"]})],
                 id="new-match-after-undo"),
    pytest.param([("undo", {}), ("redo", {})], id="redone-already"),
])
def test_redo_is_refused_with_a_reason_when_there_is_nothing_to_redo(between):
    trace = _played()
    for name, payload in between:
        trace = trace.request(name, payload)
    before = _last(_replayed(trace), "state")
    out = _replayed(trace.request("redo"))
    response = _last(out, "response/redo")
    assert response["status"] == "error" and response["error"].startswith("nothing to redo")
    assert {k: v for k, v in _last(out, "state").items() if k not in ("seq", "ts")} == \
           {k: v for k, v in before.items() if k not in ("seq", "ts")}


def test_a_shot_played_after_an_undo_ends_the_redo():
    trace = _played().request("undo").shot(cushions=["f", "h"]).request("redo")
    assert _last(_replayed(trace), "response/redo")["status"] == "error"
