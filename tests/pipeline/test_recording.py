"""A live session recorded as a trace replays to exactly the state the table reached."""

from __future__ import annotations

import json
from pathlib import Path

from controller.pipeline.fusion import fusion_config
from controller.pipeline.replay import replay
from controller.pipeline.table import Message, Table
from controller.pipeline.trace import HealthLine, RequestLine, TraceWriter, parse_line
from controller.sim.simulator import simulate_lines
from hardware.events import SensorEvent
from tests.smallfs import fill, small_filesystem


def test_a_recorded_session_replays_to_the_same_state(tmp_path: Path):
    lines = simulate_lines("siberian-ten", 400, 11, noise=True)
    writer = TraceWriter(tmp_path, {"venue": "club", "table": "t1", "fusion": lines[0]["fusion"]})
    table = Table(fusion=fusion_config(lines[0]["fusion"]))
    live = table.start(0.0)
    for i, line in enumerate(lines[1:], start=2):  # recorded as the service's core records
        item = parse_line(json.dumps(line), i)
        if isinstance(item, SensorEvent | HealthLine):
            writer.write(item.to_json())
            live += table.sensor(item) if isinstance(item, SensorEvent) else table.set_health(
                item.channel, item.state, item.t)
        else:
            assert isinstance(item, RequestLine)
            live += table.advance(item.t)
            handled = table.request(item.name, item.payload, item.t)
            if handled.line is not None:  # the payload as validated, not as sent
                writer.write(handled.line)
            live += handled.messages
    live += table.settle()
    writer.close()
    (recorded,) = sorted(tmp_path.glob("trace-*.jsonl"))
    again: list[Message] = []
    replay(recorded.read_text().splitlines(), again.append, lambda bad: (_ for _ in ()).throw(
        AssertionError(bad)))
    state = [m.payload for m in live if m.topic == "state"][-1]
    replayed = [m.payload for m in again if m.topic == "state"][-1]
    assert {k: v for k, v in state.items() if k not in ("seq", "ts", "match_id")} == {
        k: v for k, v in replayed.items() if k not in ("seq", "ts", "match_id")}
    assert state["status"] == "match_over"


def test_the_writer_rotates_and_keeps_a_bounded_number_of_files(tmp_path: Path):
    writer = TraceWriter(tmp_path, {"table": "t1"}, max_bytes=200, keep=3)
    for i in range(100):
        writer.write({"t": float(i), "ch": "beam.fl", "v": i % 2})
    writer.close()
    files = sorted(tmp_path.glob("trace-*.jsonl"))
    assert len(files) == 3
    for f in files:  # every file is a trace on its own
        assert json.loads(f.read_text().splitlines()[0])["trace"] == 1


def test_the_traces_together_stay_under_their_total(tmp_path: Path) -> None:
    writer = TraceWriter(tmp_path, {"table": "t1"}, max_bytes=200, keep=100, max_total_bytes=1000)
    for i in range(300):
        writer.write({"t": float(i), "ch": "beam.fl", "v": i % 2})
        writer.flush()
        closed = sorted(tmp_path.glob("trace-*.jsonl"))[:-1]
        assert sum(p.stat().st_size for p in closed) <= 1000
    writer.close()
    assert len(list(tmp_path.glob("trace-*.jsonl"))) < 10


def test_a_full_disk_costs_the_recording_lines_never_the_writer(tmp_path: Path) -> None:
    with small_filesystem(tmp_path / "fs", 64) as fs:
        writer = TraceWriter(fs / "traces", {"table": "t1"}, max_bytes=1 << 20)
        writer.RETRY_S = 0.0
        writer.write({"t": 0.0, "ch": "beam.fl", "v": 1})
        writer.flush()
        filler = fill(fs)
        for i in range(1, 2000):  # past the page cache's slack
            writer.write({"t": float(i), "ch": "beam.fl", "v": i % 2})
            writer.flush()
        assert writer.lost > 0
        filler.unlink()  # space again: a new file, recording again
        lost = writer.lost
        writer.write({"t": 5000.0, "ch": "beam.fl", "v": 1})
        writer.close()
        assert writer.lost == lost
        last = sorted((fs / "traces").glob("trace-*.jsonl"))[-1].read_text().splitlines()
        assert json.loads(last[0])["trace"] == 1 and json.loads(last[-1])["t"] == 5000.0
