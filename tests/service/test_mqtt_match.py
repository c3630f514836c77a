"""A match over a real broker: requests in, state, events and responses out, as subscribers see them."""

from __future__ import annotations

import json

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.service.conftest import B, Collector, make_config, requester, running
from tests.service.plays import EVENTS, FINAL, MATCH, summary


async def play(col: Collector, broker, requests=MATCH) -> None:
    async with requester(broker) as req:
        for name, payload in requests:
            await req.send(name, payload)
            await col.response(name, payload["transaction"])


async def test_a_match_played_by_requests_is_published_as_state_events_and_responses(config, broker):
    async with Collector(broker) as col, running(config):
        await col.wait(lambda: col.of("status"))
        await play(col, broker)
        await col.wait(lambda: summary(col.last("state")) == FINAL)
    responses = [p for s in col.seen if s.kind.startswith("response/") for p in [s.payload]]
    assert [r["transaction"] for r in responses] == [p["transaction"] for _, p in MATCH]
    assert all(r["status"] == "ok" and r["v"] == 1 for r in responses)
    assert [e["type"] for e in col.events() if e["type"] in EVENTS] == EVENTS
    (started,) = col.events("match_started")
    assert started["data"]["players"] == ["Ann", "Bob"]
    assert col.last("state")["match_id"] == responses[0]["data"]["match_id"]
    assert col.last("display")["text"] == "ANN 0:0 BOB"
    # every message the table published carries v, seq and ts; seq strictly increases
    published = [s.payload for s in col.seen if not s.retain and "request/" not in s.kind]
    seqs = [p["seq"] for p in published]
    assert seqs == sorted(set(seqs)) and all(p["v"] == 1 and "ts" in p for p in published)
    assert col.of("status")[-1]["state"] == "stopped"  # clean shutdown


async def test_a_late_subscriber_sees_the_retained_status_state_display_and_health(config, broker):
    async with Collector(broker) as col, running(config):
        await play(col, broker, MATCH[:2])
        async with Collector(broker, topic=f"{B}/#") as late:
            await late.wait(lambda: {s.kind for s in late.seen} >= {"status", "state", "display", "health"})
            assert all(s.retain for s in late.seen)
            assert late.last("state")["status"] == "break" and late.last("state")["match_id"]
            assert late.last("status")["state"] == "online" and late.last("status")["version"]
            assert "channels" in late.last("health") and late.last("status")["health"]["ok"] in (True, False)
            assert not late.of("event") and not [s for s in late.seen if "response" in s.kind]


async def test_malformed_requests_are_answered_with_a_reason_and_change_nothing(config, broker):
    def raw(payload: dict) -> bytes:
        return json.dumps(payload).encode()

    bad = [("call", b"{not json", None),
           ("call", raw({"calls": [{"ball": 3, "pocket": "middle"}], "transaction": "x1"}), "x1"),
           ("answer", raw({"answer": "shoot", "transaction": "x2"}), "x2"),
           ("teleport", raw({"transaction": "x3"}), "x3"),
           ("new_match", raw({"game": "snooker", "players": ["A", "B"], "transaction": "x4"}), "x4")]
    async with Collector(broker) as col, running(config):
        await play(col, broker, MATCH[:2])
        before = col.last("state")
        async with requester(broker) as req:
            for name, payload, _ in bad:
                await req.send(name, payload)
            await req.settle(col)  # every bad request answered, and anything else it caused
        errors = [s.payload for s in col.seen if s.kind.startswith("response/")][2:-1]
        assert [e["status"] for e in errors] == ["error"] * len(bad)
        assert [e["transaction"] for e in errors] == [tx for _, _, tx in bad]
        assert "pocket" in errors[1]["error"] and "teleport" in errors[3]["error"]
        assert all(e["error"] for e in errors)
        assert {k: v for k, v in col.last("state").items() if k not in ("seq", "ts")} == {
            k: v for k, v in before.items() if k not in ("seq", "ts")}


async def test_a_duplicate_request_is_applied_once_and_answered_twice_the_same(config, broker):
    async with Collector(broker) as col, running(config):
        await play(col, broker, MATCH[:4])
        async with requester(broker) as req:
            undo = {"shots": 1, "transaction": "u1"}
            await req.send("undo", undo)
            await req.send("undo", undo)
            first, second = await col.wait(
                lambda: [p for p in col.of("response/undo") if p["transaction"] == "u1"][:2]
                if len(col.of("response/undo")) >= 2 else None)
            await req.settle(col)  # a second undo's event and state would have come by now
        strip = lambda p: {k: v for k, v in p.items() if k not in ("seq", "ts")}  # noqa: E731
        assert strip(first) == strip(second) and first["status"] == "ok"
        assert len(col.events("undo")) == 1 and col.last("state")["shot"] == 0


async def test_a_retained_request_is_ignored(config, broker):
    async with requester(broker) as req:  # left retained before the service starts
        await req.send("new_match", MATCH[0][1], retain=True)
    async with Collector(broker) as col, running(config):
        async with requester(broker) as req:
            await req.send("end_match", {"transaction": "e"}, retain=True)  # and sent live
            await req.send("get", {"transaction": "g"})
        await col.response("get", "g")
        assert not col.of("response/new_match") and not col.of("response/end_match")
        assert col.last("state")["status"] == "idle"
    async with aiomqtt.Client(broker.host, broker.port) as c:  # leave no retained request behind
        await c.publish(f"{B}/request/new_match", b"", qos=1, retain=True)


async def test_mqtt5_response_topic_and_correlation_data_are_honoured(config, broker):
    async with Collector(broker, topic="replies/#", v5=True) as replies, running(config) as service:
        assert service.link.v5
        async with requester(broker, v5=True) as req:
            props = Properties(PacketTypes.PUBLISH)
            props.ResponseTopic = "replies/app7"
            props.CorrelationData = b"corr-42"
            await req.send("new_match", MATCH[0][1], properties=props)
            (reply,) = await replies.wait(lambda: replies.seen[:1])
    assert reply.topic == "replies/app7" and reply.payload["status"] == "ok"
    assert reply.properties.CorrelationData == b"corr-42"


async def test_events_carry_an_expiry_under_mqtt5(config, broker):
    async with Collector(broker, topic=f"{B}/event", v5=True) as col, running(config):
        async with requester(broker) as req:
            await req.send("new_match", MATCH[0][1])
        (ev,) = await col.wait(lambda: col.seen[:1])
    assert 3500 < ev.properties.MessageExpiryInterval <= 3600


async def test_mqtt_3_1_1_when_configured(tmp_path, broker):
    config = make_config(tmp_path, broker, mqtt={"protocol": "3.1.1"})
    async with Collector(broker) as col, running(config) as service:
        assert not service.link.v5
        await play(col, broker)
        await col.wait(lambda: summary(col.last("state")) == FINAL)
