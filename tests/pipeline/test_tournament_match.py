"""A match started as a tournament's match (issue 42): ``new_match``'s ``tournament`` is
validated like ``player_ids``, carried in ``match_started``, the state and ``match_over``,
replayed from the trace as it was played, and kept across a restart from the journal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.pipeline.fusion import fusion_config
from controller.pipeline.replay import replay
from controller.pipeline.table import Message, Table
from controller.pipeline.trace import RequestLine, TraceWriter, parse_line
from controller.sim.simulator import simulate_lines
from hardware.events import SensorEvent
from tests.service.corekit import FakeClock, Stepper, core_config, payloads

CUP = {"id": "a1b2c3d4", "match": "W1-3"}


def start(**extra: object) -> tuple[dict[str, Any], list[Message]]:
    table = Table()
    table.start(0.0)
    handled = table.request("new_match", {"game": "ten-ball", "players": ["Вера", "Глеб"],
                                          **extra}, 1.0)
    response = next(m.payload for m in handled.messages if m.topic == "response/new_match")
    return response, handled.messages


def events(out: list[Message], kind: str) -> list[dict[str, Any]]:
    return [m.payload["data"] for m in out if m.payload.get("type") == kind]


def test_the_tournament_match_is_in_match_started_and_the_state() -> None:
    response, out = start(tournament=CUP, player_ids=["p-1", "p-2"])
    assert response["status"] == "ok"
    [started] = events(out, "match_started")
    assert started["tournament"] == CUP and started["player_ids"] == ["p-1", "p-2"]
    [state] = [m.payload for m in out if m.topic == "state"]
    assert state["tournament"] == CUP


def test_without_it_nothing_names_a_tournament() -> None:
    response, out = start()
    assert response["status"] == "ok"
    assert all("tournament" not in m.payload and "tournament" not in (m.payload.get("data") or {})
               for m in out)


def test_a_malformed_tournament_is_refused_and_nothing_starts() -> None:
    for cup, why in (({"id": "a1"}, "tournament.match is required"),
                     ({"id": "a 1", "match": "W1-1"}, "pattern"),
                     ({"id": "a1", "match": "W" * 65}, "64 characters"),
                     ({"id": "a1", "match": ""}, "at least 1 character"),
                     ({"id": "a1", "match": "W1-1", "round": 1}, "unknown field"),
                     ("a1/W1-1", "valid dictionary")):
        response, out = start(tournament=cup)
        assert response["status"] == "error" and why in response["error"], (cup, response)
        assert not events(out, "match_started")
        assert not [m for m in out if m.topic == "state"]


def test_match_over_names_it_and_the_trace_replays_it(tmp_path: Path) -> None:
    lines = simulate_lines("ten-ball", 400, 3)
    writer = TraceWriter(tmp_path, {"venue": "club", "table": "t1", "fusion": lines[0]["fusion"]})
    table = Table(fusion=fusion_config(lines[0]["fusion"]))
    live = table.start(0.0)
    for i, line in enumerate(lines[1:], start=2):
        if line.get("request") == "new_match":
            line = {**line, "payload": {**line["payload"], "tournament": CUP}}
        item = parse_line(json.dumps(line), i)
        if isinstance(item, SensorEvent):
            writer.write(item.to_json())
            live += table.sensor(item)
        elif isinstance(item, RequestLine):
            live += table.advance(item.t)
            handled = table.request(item.name, item.payload, item.t)
            if handled.line is not None:
                writer.write(handled.line)
            live += handled.messages
    live += table.settle()
    writer.close()
    [over] = events(live, "match_over")
    assert over["tournament"] == CUP and over["winner"] in (0, 1)
    (recorded,) = sorted(tmp_path.glob("trace-*.jsonl"))
    again: list[Message] = []
    replay(recorded.read_text().splitlines(), again.append,
           lambda bad: (_ for _ in ()).throw(AssertionError(bad)))
    assert events(again, "match_over") == [over]
    assert [m.payload for m in again if m.topic == "state"][-1]["tournament"] == CUP


def test_a_restart_keeps_the_tournament_match(tmp_path: Path) -> None:
    config = core_config(tmp_path / "data")
    live = Stepper(config)
    live.take(live.core.start())
    live.step({"t": 100.0, "request": "new_match", "payload": {
        "game": "ten-ball", "players": ["Вера", "Глеб"], "tournament": CUP,
        "transaction": "tx-1"}})
    live.commit()
    assert payloads(live.sent, "state")[-1]["tournament"] == CUP
    live.close()
    rebuilt = Stepper(config, clock=FakeClock(live.clock.t + 30))
    again = payloads(rebuilt.take(rebuilt.core.start()), "state")[-1]
    assert again["tournament"] == CUP
    rebuilt.close()
