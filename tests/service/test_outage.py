"""The broker goes away mid-match: the table plays on, and nothing is lost or sent twice."""

from __future__ import annotations

from pathlib import Path

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from tests.broker import Broker
from tests.service.conftest import Collector, make_config, running
from tests.tracekit import TraceBuilder
from tests.waiting import until


def run_out() -> TraceBuilder:
    tb = TraceBuilder(seed=3).new_match("ten-ball", race_to=1, transaction="nm")
    tb.shot(drops=["fl"], cushions=["f", "lf", "rf"])
    tb.request("answer", {"answer": 2, "transaction": "a1"})
    for ball, pocket in [(1, "fr"), (3, "sl"), (4, "hl"), (5, "hr"), (6, "fl"), (7, "sr"),
                         (8, "fr"), (9, "fl"), (10, "sl")]:
        tb.call(ball, pocket, transaction=f"c{ball}").shot(drops=[pocket], cushions=["h"])
    return tb


def significant(events: list[dict]) -> list[tuple[str, dict]]:
    return [(e["type"], e["data"]) for e in events
            if e["type"] not in ("sensor_fault", "sensor_recovered", "warning")]


async def test_broker_stopped_mid_match_no_event_is_lost_or_duplicated(tmp_path: Path):
    # the broker keeps the watcher's session across its restart, as a venue's broker does
    broker = Broker(tmp_path / "broker", extra=f"persistence true\npersistence_location {tmp_path}/")
    broker.start()
    try:
        tb = run_out()
        trace = tmp_path / "match.jsonl"
        trace.write_text(tb.text())
        config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": 30.0})
        watcher = Collector(broker, identifier="watcher", persistent=True)
        async with watcher as col, running(config) as service:
            await col.wait(lambda: len(col.events("ball_pocketed")) >= 2, 15)
            broker.stop()
            shot = service.table.referee.state.shot
            # two shots are played meanwhile, their messages kept
            await until(lambda: service.table.referee.state.shot >= shot + 2, 15, "two shots")
            during = len(service.outbox)
            broker.start()
            await col.wait(lambda: col.events("match_over"), 20)
            service.request("get", {"transaction": "settled"})  # answered after all the rest
            await col.response("get", "settled")
            assert service.link.connections >= 2 and during > 0
    finally:
        broker.stop()
    events = col.events()
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(set(seqs)), "events out of order or twice"
    expected: list[Message] = []
    recorded = sorted((tmp_path / "data" / "traces").glob("trace-*.jsonl"))
    replay(recorded[-1].read_text().splitlines(), expected.append, lambda bad: None)
    assert significant(events) == significant([m.payload for m in expected if m.topic == "event"])
    assert len(col.events("ball_pocketed")) == 10
    responses = [s.payload["transaction"] for s in col.seen if s.kind.startswith("response/")]
    assert sorted(responses) == sorted(["nm", "a1", *(f"c{b}" for b in (1, 3, 4, 5, 6, 7, 8, 9, 10)),
                                       "settled"])
    assert col.last("state")["status"] == "match_over"
