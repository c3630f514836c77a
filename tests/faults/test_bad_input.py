"""Bad input over a real broker: fuzzed requests, odd player names, other tables, a wall clock
that jumps. A clear error each time, the state unchanged by it, the service alive after.

(``tests/pipeline/test_bad_requests.py`` fuzzes the table directly; here the same payloads
travel through Mosquitto and the service's MQTT link, journal and outbox.)
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from controller.pipeline.requests import MAX_PAYLOAD, REQUESTS
from controller.service.shell import Service
from controller.sim.backend import sim_backend
from tests.broker import Broker
from tests.faults.record import note
from tests.pipeline.test_bad_requests import payloads
from tests.service.conftest import B, Collector, make_config, requester, running
from tests.service.plays import MATCH

NAMES = sorted(REQUESTS) + ["teleport", "NEW_MATCH", "ünïcode"]
_runs = itertools.count()
#: what the service may publish under B (anything else would be a name leaking into a topic)
TOPICS = {"status", "state", "event", "display", "health", *(f"response/{n}" for n in NAMES)}


def player_names() -> st.SearchStrategy[list[str]]:
    nasty = st.sampled_from(["a/b", "#", "+", "x/#/+", "../..", "Ёжик 🎱", "\u202eevil", "名前",
                             " ", "\x00", "A" * 200])
    return st.lists(nasty | st.text(min_size=1, max_size=30), min_size=2, max_size=2)


def requests() -> st.SearchStrategy[tuple[str, Any]]:
    named = st.tuples(st.just("new_match"), player_names().map(
        lambda names: {"game": "ten-ball", "players": names}))
    return st.one_of(st.tuples(st.sampled_from(NAMES), payloads()), named)


def state_of(service: Service) -> dict[str, Any]:
    return {**service.table.referee.snapshot(), "match_id": service.table.match_id}


async def session(directory: Path, broker: Broker, batch: list[tuple[str, Any]]) -> int:
    """Sends ``batch`` to a fresh service over the broker; returns the errors answered."""
    directory.mkdir(parents=True)
    config = make_config(directory, broker)
    errors = 0
    async with Collector(broker, topic=f"{B}/#") as col, running(config) as service, \
            requester(broker) as req:
        await req.send(*MATCH[0])
        await col.response("new_match", "nm")
        for name, payload in batch:
            before = state_of(service)
            answered = len(col.of(f"response/{name}"))
            await req.send(name, payload)
            await col.wait(lambda name=name, answered=answered:  # type: ignore[misc]
                           len(col.of(f"response/{name}")) > answered)
            response = col.of(f"response/{name}")[-1]
            assert response["status"] in ("ok", "error") and response["v"] == 1
            if response["status"] == "error":
                errors += 1
                assert isinstance(response["error"], str) and response["error"].strip()
                assert state_of(service) == before, (name, payload, response)
            elif name == "new_match" and isinstance(payload, dict):
                got = [p["name"] for p in service.table.referee.snapshot()["players"]]
                # a name is just a name (trimmed of surrounding whitespace), whatever it holds
                assert [g.strip() for g in got] == [n.strip() for n in payload["players"]]
        await req.send("get", {"transaction": "alive"})
        assert (await col.response("get", "alive"))["status"] == "ok"
        stray = {s.topic for s in col.seen if not s.kind.startswith("request/")} - {
            f"{B}/{t}" for t in TOPICS}
        assert not stray, stray
    return errors


@settings(max_examples=4, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(batch=st.lists(requests(), min_size=15, max_size=25))
def test_fuzzed_requests_over_mqtt_get_a_clear_error_and_change_nothing(
        tmp_path: Path, broker: Broker, batch: list[tuple[str, Any]]) -> None:
    errors = asyncio.run(session(tmp_path / f"run{next(_runs)}", broker, batch))
    note("bad input: fuzzed MQTT requests (random JSON and bytes, wrong types, odd names)",
         len(batch), True, errors=errors)


async def test_huge_payloads_and_unknown_fields_are_refused_with_their_reason(tmp_path: Path,
                                                                           broker: Broker) -> None:
    async with Collector(broker, topic=f"{B}/#") as col, running(make_config(tmp_path, broker)) \
            as service, requester(broker) as req:
        await req.send(*MATCH[0])
        await col.response("new_match", "nm")
        before = state_of(service)
        await req.send("call", b'{"calls": [' + b'{"ball": 1, "pocket": "fl"},' * (MAX_PAYLOAD // 20)
                       + b'{"ball": 1, "pocket": "fl"}]}')
        await req.send("call", {"calls": [{"ball": 1, "pocket": "fl"}], "transaction": "u",
                                "colour": "red"})
        await req.send("undo", {"shots": [1] * 100, "transaction": "w"})
        big, unknown, wrong = await col.wait(
            lambda: (col.of("response/call") + col.of("response/undo"))
            if len(col.of("response/call")) + len(col.of("response/undo")) >= 3 else None)
        assert "too large" in big["error"]
        assert "colour" in unknown["error"] and unknown["transaction"] == "u"
        assert "shots" in wrong["error"] and wrong["transaction"] == "w"
        assert state_of(service) == before
    note("bad input: huge payloads, unknown fields, wrong types", 3, True)


async def test_requests_for_another_table_or_a_deeper_topic_are_not_taken(tmp_path: Path,
                                                                        broker: Broker) -> None:
    async with Collector(broker) as col, running(make_config(tmp_path, broker)) as service:
        before = state_of(service)
        async with aiomqtt.Client(broker.host, broker.port) as c:
            for topic in ("billiards/club/t2/request/new_match", "billiards/other/t1/request/new_match",
                          f"{B}/request/new_match/extra", f"{B}/requests/new_match",
                          "billiards/club/+/request/new_match".replace("+", "t1 "),
                          f"{B.upper()}/request/new_match"):
                await c.publish(topic, json.dumps(MATCH[0][1]).encode(), qos=1)
            await c.publish(f"{B}/request/get", b'{"transaction": "g"}', qos=1)
        # the get went after them and is answered in order: an answer to any of them came first
        await col.response("get", "g")
        assert not col.of("response/new_match") and state_of(service) == before
        assert not [s for s in col.seen if "/request/" not in s.topic
                    and not s.topic.startswith(f"{B}/")], "published for another table"
    note("bad input: requests for another table", 6, True)


async def test_a_wall_clock_jump_changes_no_time_the_table_keeps(tmp_path: Path, broker: Broker,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    real = time.time
    config = make_config(tmp_path, broker)
    async with Collector(broker) as col:
        async with running(config) as service, requester(broker) as req:
            await req.play(col, MATCH[:3])
            monkeypatch.setattr(time, "time", lambda: real() + 10 * 365 * 86400)  # NTP: 10 years on
            await req.send(*MATCH[3])
            await col.response("shot_end", "e1")
            monkeypatch.setattr(time, "time", lambda: real() - 20 * 365 * 86400)  # and 20 back
            await req.send(*MATCH[4])
            await col.response("call", "c2")
            last = service.core.time.last_t
        # the Pi reboots (its monotonic clock starts again) with the wall clock still wrong
        rebooted = Service(config, backend=sim_backend, clock=lambda: 1.0)
        try:
            assert rebooted.clock() > last
            assert rebooted.table.referee.snapshot() == service.table.referee.snapshot()
        finally:
            rebooted.journal.close()
        monkeypatch.setattr(time, "time", real)
        async with running(config), requester(broker) as req:
            await req.send(*MATCH[5])
            await col.response("shot_end", "e2")
    published = [s.payload for s in col.seen if not s.retain and "seq" in s.payload]
    seqs = [p["seq"] for p in published]
    stamps = [p["ts"] for p in col.events()]
    assert seqs == sorted(set(seqs)) and stamps == sorted(stamps)
    assert all(p["status"] == "ok" for s in col.seen if s.kind.startswith("response/")
               for p in [s.payload])
    note("bad input: wall clock jumps 10 years on, 20 back, and a reboot", 3, True)
