"""Replies on a venue broker with the shipped ACL (deploy/mosquitto/billiards.acl), issue 33
items 1 and 2: a request's MQTT 5 Response Topic never holds up the table's other messages and
never reaches the table's own topics.

- A reply to a topic the broker refuses the table (``homeassistant/x`` as user
  ``homeassistant``: 0x87 "Not authorized") is dropped with a log line; every later request
  is answered and the state still published (it used to wait in the ordered outbox for ever,
  across restarts).
- A Response Topic of ``B/status``, ``B/state``, ``B/event``, ``B/display`` (or the broker's
  ``$SYS``/``$share``, or a 65,535-byte topic) is refused with an error on ``B/response/<name>``:
  nothing is published there.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.service.intake import reply_topic_error
from tests.broker import Broker, password_file
from tests.service.conftest import B, Collector, Requester, make_config, running
from tests.service.plays import MATCH

ROOT = Path(__file__).resolve().parents[2]
ACL = ROOT / "deploy" / "mosquitto" / "billiards.acl"
USERS = {"club/t1": "tp", "referee": "rp", "homeassistant": "hp", "dashboard": "dp"}


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Broker]:
    passwords = password_file(tmp_path / "auth", USERS)
    broker = Broker(tmp_path / "broker", anonymous=False,
                    extra=f"password_file {passwords}\nacl_file {ACL}\n")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def watching(broker: Broker) -> Collector:
    return Collector(broker, topic=f"{B}/#", username="dashboard", password=USERS["dashboard"])


def client(broker: Broker, user: str) -> aiomqtt.Client:
    return aiomqtt.Client(broker.host, broker.port, username=user, password=USERS[user],
                          identifier=f"test-{user}", protocol=aiomqtt.ProtocolVersion.V5)


async def send_replying(c: aiomqtt.Client, name: str, payload: bytes, topic: str) -> None:
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.ResponseTopic = topic
    props.CorrelationData = b"c"
    await c.publish(f"{B}/request/{name}", payload, qos=1, properties=props)


async def test_a_reply_the_broker_refuses_is_dropped_and_blocks_nothing_across_a_restart(
        tmp_path: Path, venue: Broker, caplog: pytest.LogCaptureFixture) -> None:
    config = make_config(tmp_path, venue, mqtt={"username": "club/t1", "password": "tp"})
    caplog.set_level(logging.ERROR, logger="controller.service.mqtt")
    async with watching(venue) as col, client(venue, "referee") as ref, \
            client(venue, "homeassistant") as ha:
        req = Requester(ref)
        async with running(config) as service:
            await req.send(*MATCH[0])
            await col.response("new_match", "nm")
            await send_replying(ha, "undo", b'{"transaction": "ha-1"}', "homeassistant/x")
            await col.response("undo", "ha-1")  # on B/response/undo: the broker takes that one
            for n in range(3):
                await req.send("get", {"transaction": f"after-{n}"})
                await col.response("get", f"after-{n}")
            assert service.outbox.refused == 1
        assert any("homeassistant/x" in r.getMessage() and "refused" in r.getMessage()
                   for r in caplog.records), [r.getMessage() for r in caplog.records]
        async with running(config):  # nothing of it was kept for the next run
            await req.settle(col, "restarted")


@pytest.mark.parametrize("own", ["status", "state", "event", "display", "health", "request/get"])
async def test_a_reply_never_goes_to_the_tables_own_topics(tmp_path: Path, venue: Broker,
                                                           own: str) -> None:
    config = make_config(tmp_path, venue, mqtt={"username": "club/t1", "password": "tp"})
    async with watching(venue) as col, running(config), \
            client(venue, "referee") as ref:
        col.seen.clear()
        await send_replying(ref, "get", b'{"transaction": "fake"}', f"{B}/{own}")
        response = await col.response("get", "fake")
        assert response["status"] == "error"
        assert "the table's own topics" in response["error"]
        await Requester(ref).settle(col)
        leaked = [s for s in col.seen if s.kind == own and "seq" in s.payload
                  and s.payload.get("transaction") == "fake"]
        assert not leaked, leaked


def test_reply_topics_the_table_takes() -> None:
    assert reply_topic_error(f"{B}/response/console-7", B) is None
    assert reply_topic_error("replies/club/t1", B) is None  # the broker's PUBACK decides
    for topic in (f"{B}/status", f"{B}/state", f"{B}/event", f"{B}/display", B,
                  "$SYS/broker/x", "$share/g/x", "r/" + "x" * 65533):
        assert reply_topic_error(topic, B) is not None, topic
