"""The shipped brokers refuse an oversize message (issue 33, finding 9: a 250 MB request
took 723 MB of the broker's memory and 780 MB of the table's on a 1 GB Pi)."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import aiomqtt
import paho.mqtt.client as paho
import pytest

from tests.deploy.test_mosquitto_acl import B1, first_message, login, nothing_arrives
from tests.deploy.venue import Venue, password

LIMIT = 256 * 1024  # the shipped max_packet_size and message_size_limit


def connect_packet(user: str, secret: str) -> bytes:
    """An MQTT 3.1.1 CONNECT with a user name and password."""
    def text(s: str) -> bytes:
        return len(s.encode()).to_bytes(2, "big") + s.encode()
    body = text("MQTT") + b"\x04\xc2\x00\x3c" + text(f"{user}-raw") + text(user) + text(secret)
    return b"\x10" + bytes([len(body)]) + body


def remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (128 if n else 0))
        if not n:
            return bytes(out)


def test_the_venue_broker_hangs_up_on_a_250_mb_publish_before_reading_it(venue: Venue) -> None:
    """Only the header of a 250 MB PUBLISH is sent: the broker closes the connection at once
    (without the limit it allocates the packet and waits for the rest)."""
    with socket.create_connection(("127.0.0.1", venue.ports[1883]), timeout=5) as s:
        s.sendall(connect_packet("referee", password("referee")))
        assert s.recv(4) == b"\x20\x02\x00\x00"  # CONNACK, accepted
        topic = f"{B1}/request/undo".encode()
        s.sendall(b"\x32" + remaining_length(250_000_000)
                  + len(topic).to_bytes(2, "big") + topic + b"\x00\x01" + b"{" * 1000)
        with contextlib.suppress(ConnectionResetError):  # (a reset: it left data unread)
            assert s.recv(1) == b""  # the broker hung up


async def test_a_message_over_the_limit_is_not_delivered_and_one_under_it_is(
        venue: Venue) -> None:
    async with login(venue, "club/t1") as table:
        await table.subscribe(f"{B1}/request/+", qos=1)
        # MQTT 3.1.1: the client is not told the limit, so it sends; the broker hangs up
        with pytest.raises(aiomqtt.MqttError):
            async with login(venue, "referee", protocol=paho.MQTTv311) as ref:
                await ref.publish(f"{B1}/request/oversize", b"x" * (LIMIT + 1), qos=1,
                                  timeout=3)
        async with login(venue, "referee", protocol=paho.MQTTv311) as ref:
            await ref.publish(f"{B1}/request/marker", b"x" * (LIMIT - 1024), qos=1)
        message = await first_message(table, 10)
        assert (str(message.topic), len(message.payload)) == (  # type: ignore[arg-type]
            f"{B1}/request/marker", LIMIT - 1024)


async def test_the_browsers_broker_drops_an_oversize_websockets_message(venue: Venue) -> None:
    """On websockets Mosquitto 2.0 reads the packet and then drops it (message_size_limit):
    neither the browsers nor the table see it; the next message arrives."""
    async with login(venue, "club/t1") as table, \
            login(venue, "dashboard", port=9001, transport="websockets") as dash:
        await table.subscribe(f"{B1}/request/+", qos=1)
        await dash.subscribe(f"{B1}/request/+", qos=1)
        async with login(venue, "referee", port=9001, transport="websockets") as ref:
            await ref.publish(f"{B1}/request/oversize", b"x" * (LIMIT + 1), qos=1)
            await ref.publish(f"{B1}/request/marker", b"{}", qos=1)
        got = await asyncio.gather(first_message(table, 10), first_message(dash, 10))
        assert [str(m.topic) for m in got] == [f"{B1}/request/marker"] * 2
        await nothing_arrives(table)
