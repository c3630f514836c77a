"""The broker fixture is a real Mosquitto: a message published is received."""

from __future__ import annotations

import asyncio

import aiomqtt


async def test_a_real_broker_carries_a_retained_message(broker) -> None:
    async with aiomqtt.Client(broker.host, broker.port, identifier="pub") as pub:
        await pub.publish("billiards/club/t1/status", b'{"state": "online"}', qos=1, retain=True)
    async with aiomqtt.Client(broker.host, broker.port, identifier="sub") as sub:
        await sub.subscribe("billiards/#", qos=1)
        message = await asyncio.wait_for(anext(sub.messages), 5)
        assert message.retain and message.payload == b'{"state": "online"}'


async def test_the_broker_can_be_stopped_and_started_on_the_same_port(broker) -> None:
    port = broker.port
    broker.stop()
    broker.start()
    assert broker.port == port
    async with aiomqtt.Client(broker.host, broker.port) as client:
        await client.publish("x", b"1")
