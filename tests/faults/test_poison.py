"""Poison requests over a real broker (issue 22, items 1-3): single messages that used to stop
a table, for one run or for good. Each is answered with an error naming what is wrong (or,
with no valid place to answer, ignored with a log line); nothing of it reaches the journal,
the trace or a topic; the state is unchanged, and stays so over three restarts. If the
service dies anyway, the broker publishes its Last Will.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.service.config import Config
from controller.service.shell import Service
from controller.sim.backend import sim_backend
from hardware.backend import BackendStats
from hardware.events import LinkChanged, SensorEvent
from tests.broker import Broker
from tests.faults.record import note
from tests.service.conftest import B, Collector, make_config, requester, running
from tests.service.plays import MATCH

NUMBER_4301 = b"9" * 4301

#: name, raw payload, MQTT 5 response topic, what the error must name
POISON: list[tuple[str, bytes, str | None, str]] = [
    ("get", b'{"transaction": "p1"}', "replies/+/t1", "response topic holds a wildcard"),
    ("undo", b'{"transaction": "p2"}', "#", "response topic holds a wildcard"),
    ("answer", rb'{"answer": ["\ud800"], "transaction": "p3"}', None, "answer.0"),
    ("new_match", rb'{"game": "ten-ball", "players": ["A", "B"], "options": {"x": "\udfff"},'
                  rb' "transaction": "p4"}', None, "options.x"),
    ("get", rb'{"transaction": "\ud800"}', None, "transaction"),
    ("undo", b'{"transaction": "p6", "shots": ' + NUMBER_4301 + b"}", None, "too large"),
    ("new_match", b'{"game": "ten-ball", "players": [1, 2], "race_to": ' + NUMBER_4301 + b"}",
     None, "too large"),
    ("call", b'{"calls": [], "manner": "x", "transaction": "p8", "x": 1e999}', None, "1e999"),
    ("new_match", rb'{"game": "ten-ball", "players": ["\u001b[2J\u001b[5mWIN", "B"],'
                  rb' "transaction": "p9"}', None, "players.0"),
    ("new_match", rb'{"game": "ten-ball", "players": ["A\u0000", "B"], "transaction": "p10"}',
     None, "players.0"),
    ("new_match", rb'{"game": "ten-ball", "players": ["A", "\u202eevil"], "transaction": "p11"}',
     None, "players.1"),
    ("call", rb'{"calls": [], "manner": "\u2067bank\u2069", "transaction": "p12"}', None, "manner"),
]


def state_of(service: Service) -> dict[str, Any]:
    return {**service.table.referee.snapshot(), "match_id": service.table.match_id}


def request_lines(service: Service) -> list[dict[str, Any]]:
    return [line for line in service.journal.inputs() if "request" in line]


def traced(config: Config) -> str:
    """Returns every trace file's text; raises if any is not strict UTF-8."""
    return "".join(p.read_bytes().decode("utf-8")
                   for p in sorted((config.data / "traces").glob("*.jsonl")))


async def send(req: Any, name: str, payload: bytes, response_topic: str | None) -> None:
    props = None
    if response_topic is not None:
        props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
        props.ResponseTopic = response_topic
        props.CorrelationData = b"c"
    await req.client.publish(f"{B}/request/{name}", payload, qos=1, properties=props)


async def answered_alive(col: Collector, req: Any, tx: str) -> None:
    await req.send("get", {"transaction": tx})
    assert (await col.response("get", tx))["status"] == "ok"


async def test_poison_requests_are_answered_with_their_field_and_change_nothing_over_restarts(
        tmp_path: Path, broker: Broker, caplog: pytest.LogCaptureFixture) -> None:
    config = make_config(tmp_path, broker)
    caplog.set_level(logging.WARNING)
    async with Collector(broker, topic=f"{B}/#") as col:
        async with running(config) as service, requester(broker, v5=True) as req:
            await req.send(*MATCH[0])
            await col.response("new_match", "nm")
            before, lines = state_of(service), request_lines(service)
            for name, payload, response_topic, field in POISON:
                answered = len(col.of(f"response/{name}"))
                await send(req, name, payload, response_topic)
                await col.wait(lambda name=name, answered=answered:  # type: ignore[misc]
                               len(col.of(f"response/{name}")) > answered)
                response = col.of(f"response/{name}")[-1]
                assert response["status"] == "error", (payload, response)
                assert field in response["error"], (field, response["error"])
                assert state_of(service) == before, payload
            # a name that would make the reply topic longer than MQTT allows: ignored, logged
            long_name = "x" * (65535 - len(f"{B}/request/"))
            await req.client.publish(f"{B}/request/{long_name}", b"{}", qos=1)
            await col.wait(lambda: any("ignored a request" in r.getMessage() for r in caplog.records))
            await answered_alive(col, req, "alive-0")
            assert state_of(service) == before
            assert request_lines(service) == lines + [request_lines(service)[-1]]  # the get
            assert "\\ud800" not in traced(config) and "WIN" not in traced(config)
        answered_poison = len([s for s in col.seen if s.kind.startswith("response/")])
        for restart in range(1, 4):
            async with running(config) as service, requester(broker) as req:
                await answered_alive(col, req, f"alive-{restart}")
                assert state_of(service) == before
                traced(config)
    topics = {s.topic for s in col.seen if not s.kind.startswith("request/")}
    assert not [t for t in topics if not t.startswith(f"{B}/")], "published outside the table"
    assert not [t for t in topics if "+" in t or "#" in t or len(t) > 200]
    assert len([s for s in col.seen if s.kind.startswith("response/")]) == answered_poison + 3
    note("poison requests: wildcard reply topics, lone surrogates, 4,301-digit numbers,"
         " control and bidi characters in names, a 65,535-byte topic; 3 restarts",
         len(POISON) + 1, True)


async def test_a_poison_reply_topic_from_an_older_journal_is_given_up_not_fatal(
        tmp_path: Path, broker: Broker) -> None:
    """A reply topic paho refuses, already in the outbox (a journal of a version without the
    checks): the link gives it up with a log line and delivers the rest."""
    config = make_config(tmp_path, broker)
    service = Service(config, backend=sim_backend)
    service.outbox.add(service.journal.new_outgoing("replies/+/bad", b"{}", False))
    async with Collector(broker, topic=f"{B}/#") as col, running(service), \
            requester(broker) as req:
        await answered_alive(col, req, "after")
        assert service.outbox.refused == 1


class _FailingBackend:
    """A sensor backend whose board fails for good after a moment (as a broken serial link
    raises): the service's task group ends, the service with it."""

    name = "failing"

    def __init__(self) -> None:
        self.fail = asyncio.Event()

    async def __aenter__(self) -> _FailingBackend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        await self.fail.wait()
        raise RuntimeError("the board is gone")
        yield  # an async generator  # pragma: no cover

    def stats(self) -> BackendStats:
        return BackendStats()


@pytest.mark.parametrize("protocol", ["5", "3.1.1"])
async def test_a_service_that_dies_leaves_its_last_will_offline(tmp_path: Path, broker: Broker,
                                                                protocol: str) -> None:
    config = make_config(tmp_path, broker, mqtt={"protocol": protocol})
    backend = _FailingBackend()
    service = Service(config, backend=backend)
    async with Collector(broker, topic=f"{B}/status") as col:
        task = asyncio.create_task(service.run())
        await col.wait(lambda: service.link.connected and any(
            p.get("state") == "online" for p in col.of("status")))
        seen = len(col.seen)  # a retained status of an earlier test came before
        backend.fail.set()
        with pytest.raises(BaseExceptionGroup):
            await asyncio.wait_for(task, 10)
        after = await col.wait(lambda: col.seen[seen:])
        assert [s.payload["state"] for s in after] == ["offline"], after
    note(f"the service dies (MQTT {protocol}): the broker publishes the Last Will", 1, True)


def test_a_request_topic_name_cannot_make_a_reply_topic_too_long() -> None:
    from controller.service.intake import MAX_TOPIC_BYTES, topic_error
    assert topic_error("a" * MAX_TOPIC_BYTES) is None
    assert "65536 bytes" in str(topic_error("é" * 32768))
    assert topic_error("") == "is empty"
    assert topic_error("a/\0") == "holds a NUL character"
    assert topic_error("a/#") == topic_error("+") == "holds a wildcard (+ or #)"
