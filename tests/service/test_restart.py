"""Nothing lost: ``kill -9`` of a real service mid-match, a restart, a reboot, an outbox kept."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from controller.service.config import validate
from controller.service.shell import Service
from controller.sim.backend import sim_backend
from tests.broker import Broker
from tests.service.conftest import Collector, idle_trace, make_config, requester, running
from tests.service.corekit import rows
from tests.service.plays import EVENTS, FINAL, MATCH, summary
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]


def write_config(tmp_path: Path, broker: Broker, *, table: str = "t1",
                 web: str = "enabled = false") -> Path:
    """Writes the TOML configuration of a ``run`` process on a sim backend with no events."""
    path = tmp_path / "controller.toml"
    path.write_text(f"""
venue = "club"
table = "{table}"
backend = "sim"
data = "{tmp_path / 'data'}"

[mqtt]
url = "{broker.url}"
reconnect_min_s = 0.1
reconnect_max_s = 0.5

[sim]
trace = "{idle_trace(tmp_path)}"
loop = false

[web]
{web}
""")
    return path


def start(config: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def strip(payload: dict) -> dict:
    return {k: v for k, v in payload.items() if k not in ("seq", "ts")}


async def test_kill_9_mid_match_and_restart_resumes_the_exact_match(tmp_path, broker):
    config = write_config(tmp_path, broker)
    async with Collector(broker, identifier="watcher", persistent=True) as col:
        proc = start(config)
        try:
            await col.wait(lambda: any(p["state"] == "online" for p in col.of("status")), 15)
            async with requester(broker) as req:
                for name, payload in MATCH[:3]:
                    await req.send(name, payload)
                    await col.response(name, payload["transaction"])
                # the deliveries' rows leave the journal's outbox
                await until(lambda: rows(tmp_path / "data", "SELECT id FROM outbox") == [])
                match_id = col.last("state")["match_id"]
                seq_before = max(s.payload["seq"] for s in col.seen if "seq" in s.payload)
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                await col.wait(lambda: col.last("status")["state"] == "offline")  # the Last Will
                # sent while the service is down: the broker keeps it in the service's session
                await req.send(*MATCH[3])
                proc = start(config)
                await col.response("shot_end", "e1")
                await req.send(*MATCH[1])  # a duplicate, after the restart: answered, not applied
                await col.response("call", "c1", count=2)
                for name, payload in MATCH[4:]:
                    await req.send(name, payload)
                    await col.response(name, payload["transaction"])
                await col.wait(lambda: summary(col.last("state")) == FINAL)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(10) == 0, proc.stderr.read().decode() if proc.stderr else ""
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        await col.wait(lambda: col.last("status")["state"] == "stopped")
    assert col.last("state")["match_id"] == match_id
    assert [e["type"] for e in col.events() if e["type"] in EVENTS] == EVENTS  # none twice
    first, again = [p for p in col.of("response/call") if p["transaction"] == "c1"]
    assert strip(first) == strip(again)
    published = [s.payload for s in col.seen if "seq" in s.payload and not s.retain]
    seqs = [p["seq"] for p in published]
    assert seqs == sorted(set(seqs)) and seqs[-1] > seq_before  # seq continues across the kill
    traces = sorted((tmp_path / "data" / "traces").glob("trace-*.jsonl"))
    assert len(traces) == 2  # a session each, the second replayable from the match's start
    lines = [json.loads(x) for x in traces[1].read_text().splitlines()]
    assert lines[0]["trace"] == 1 and [x["request"] for x in lines[1:]] == [n for n, _ in MATCH]


async def test_a_restarted_service_continues_seq_and_still_answers_old_transactions(tmp_path, broker):
    config = make_config(tmp_path, broker)
    async with Collector(broker) as col:
        async with running(config), requester(broker) as req:
            for name, payload in MATCH:
                await req.send(name, payload)
                await col.response(name, payload["transaction"])
            first = col.last("state")
        async with running(config) as again, requester(broker) as req:
            assert again.table.match_id == first["match_id"]
            assert summary(again.table.referee.snapshot()) == FINAL
            await req.send(*MATCH[0])  # new_match again, same transaction: not a second match
            await col.response("new_match", "nm", count=2)
            await req.send("get", {"transaction": "g"})  # after all the duplicate caused
            await col.response("get", "g")
            assert col.last("state")["match_id"] == first["match_id"]
            assert summary(col.last("state")) == FINAL and col.last("state")["seq"] > first["seq"]


async def test_the_journal_keeps_only_the_current_match_and_old_answers(tmp_path, broker):
    config = make_config(tmp_path, broker)
    async with Collector(broker) as col:
        async with running(config) as service, requester(broker) as req:
            for name, payload in MATCH:
                await req.send(name, payload)
                await col.response(name, payload["transaction"])
            second = {**MATCH[0][1], "transaction": "nm2", "players": ["Cy", "Di"]}
            await req.send("new_match", second)
            await col.response("new_match", "nm2")  # its input written before it was published
            assert [x.get("request") for x in service.journal.inputs()] == ["new_match"]
        async with running(config) as again, requester(broker) as req:
            assert again.table.match_id.endswith("-2")
            assert [p["name"] for p in again.table.referee.snapshot()["players"]] == ["Cy", "Di"]
            await req.send(*MATCH[1])  # c1 belonged to the first match: answered, not applied
            await col.response("call", "c1", count=2)
            await req.send("get", {"transaction": "g"})
            await col.response("get", "g")
            assert col.last("state")["status"] == "break"


async def test_messages_made_while_the_broker_is_unreachable_survive_a_restart(tmp_path, broker):
    from tests.tracekit import TraceBuilder
    tb = TraceBuilder().new_match("ten-ball", race_to=1, transaction="nm").shot(cushions=["f"])
    trace = tmp_path / "match.jsonl"
    trace.write_text(tb.text())
    raw = make_config(tmp_path, broker).model_dump(mode="json")
    raw["mqtt"]["url"] = "mqtt://127.0.0.1:9"  # nobody listens
    raw["sim"] = {"trace": str(trace), "loop": False, "speed": 20.0}
    offline = validate(raw, "test")
    service = Service(offline, backend=sim_backend)
    task = asyncio.create_task(service.run())
    await until(lambda: service.table.referee.state.shot == 1)  # played on without the network
    service.stop()
    await asyncio.wait_for(task, 5)
    raw["mqtt"]["url"] = broker.url
    raw["sim"] = {"trace": str(idle_trace(tmp_path)), "loop": False}
    async with Collector(broker) as col, running(validate(raw, "test")):
        await col.wait(lambda: col.events("shot_result") and col.of("response/new_match"))
    kinds = [s.kind for s in col.seen if not s.retain]
    assert kinds[:3] == ["event", "response/new_match", "event"]  # in the order produced
    events = col.events()
    assert [e["type"] for e in events][:2] == ["match_started", "shot_result"]
    seqs = [s.payload["seq"] for s in col.seen if not s.retain]
    assert seqs == sorted(set(seqs))


async def test_a_rebuilt_table_is_the_table_that_stopped_mid_match(tmp_path, broker):
    from tests.service.test_outage import run_out
    trace = tmp_path / "match.jsonl"
    trace.write_text(run_out().text())
    config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": 15.0})
    async with running(config) as live:
        await until(lambda: live.table.referee.state.shot >= 4, 30, "four shots")
    rebuilt = Service(config, backend=sim_backend)
    try:
        assert rebuilt.table.referee.snapshot() == live.table.referee.snapshot()
        assert (rebuilt.table.match_id, rebuilt.table.seq) == (live.table.match_id, live.table.seq)
        assert rebuilt.table.next_deadline == live.table.next_deadline
        assert rebuilt.clock() > live.core.time.last_t
    finally:
        rebuilt.journal.close()
