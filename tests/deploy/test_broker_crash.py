"""What the shipped venue broker acknowledged survives its crash (issue 33, finding 5: with
``autosave_interval 60``, 20 SIGKILLs lost 23/106 events at a connected persistent subscriber,
and every event at one away).

Mosquitto saves its database at the end of the main-loop pass in which something changed
(``autosave_on_changes true``, ``autosave_interval 1``); it writes the PUBACK during that
pass. So each test waits for one more round trip on the publisher's connection (a SUBACK:
answered in a later pass) before the SIGKILL: what it proves is what deploy/README.md says,
that a crash after that pass loses nothing. (``benchmarks.broker_crash`` kills at random
moments instead, and counts.)"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from tests.deploy.test_message_size import connect_packet
from tests.deploy.test_mosquitto_acl import B1, first_message
from tests.deploy.venue import Venue, password, start_venue

EVENT = f"{B1}/event"


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
    v = start_venue(tmp_path)
    try:
        yield v
    finally:
        v.stop()


def client(venue: Venue, user: str) -> aiomqtt.Client:
    """A persistent session (sessions are named after users on the venue broker)."""
    return aiomqtt.Client("127.0.0.1", venue.ports[1883], username=user,
                          password=password(user), identifier=user, clean_session=False)


async def publish_and_crash(venue: Venue, count: int) -> None:
    """The table publishes ``count`` events (QoS 1, each acknowledged) and its retained state,
    waits for the broker's next pass, and the broker is killed and started again."""
    async with client(venue, "club/t1") as table:
        for n in range(count):
            await table.publish(EVENT, f'{{"seq": {n}}}', qos=1)
        await table.publish(f"{B1}/state", b'{"shot": 8}', qos=1, retain=True)
        await table.subscribe(f"{B1}/request/+", qos=1)  # the round trip
    venue.broker.kill()
    venue.broker.start()


async def test_an_away_subscriber_gets_every_acknowledged_event_after_a_crash(
        venue: Venue) -> None:
    """The league bridge's case: a persistent subscriber away while the broker crashes."""
    async with client(venue, "referee") as sub:
        await sub.subscribe(EVENT, qos=1)
    await publish_and_crash(venue, 9)
    async with client(venue, "referee") as sub:
        got = [(await first_message(sub)).payload for _ in range(9)]
    assert got == seqs(9)
    async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="dashboard",
                              password=password("dashboard")) as fresh:
        await fresh.subscribe(f"{B1}/state", qos=1)
        assert (await first_message(fresh)).payload == b'{"shot": 8}'  # retained, kept


async def test_events_in_flight_to_a_connected_subscriber_come_again_after_a_crash(
        venue: Venue) -> None:
    """A connected persistent subscriber that has not acknowledged its events yet (a raw
    MQTT 3.1.1 client that never sends PUBACK) gets them again after the crash."""
    with socket.create_connection(("127.0.0.1", venue.ports[1883]), timeout=5) as s:
        packet = bytearray(connect_packet("dashboard", password("dashboard")))
        packet[9] &= ~0x02  # a persistent session (clean session off)
        s.sendall(packet)
        assert s.recv(4) == b"\x20\x02\x00\x00"
        topic = EVENT.encode()
        body = b"\x00\x01" + len(topic).to_bytes(2, "big") + topic + b"\x01"
        s.sendall(b"\x82" + bytes([len(body)]) + body)
        assert s.recv(5) == b"\x90\x03\x00\x01\x01"  # SUBACK, QoS 1
        await publish_and_crash(venue, 5)
        before = await asyncio.to_thread(publishes, s, 5)
        assert [p for _, p in before] == seqs(5)  # delivered once, never acknowledged
        with socket.create_connection(("127.0.0.1", venue.ports[1883]), timeout=5) as again:
            again.sendall(packet)
            assert again.recv(4) == b"\x20\x02\x01\x00"  # CONNACK: session present
            after = await asyncio.to_thread(publishes, again, 5)
    assert after == [(True, p) for p in seqs(5)]  # sent again (DUP), in order


def seqs(count: int) -> list[bytes]:
    return [f'{{"seq": {n}}}'.encode() for n in range(count)]


def publishes(s: socket.socket, count: int, timeout: float = 5.0) -> list[tuple[bool, bytes]]:
    """Reads QoS 1 PUBLISH packets of EVENT from ``s`` until ``count`` came (or the timeout, or
    the end); returns (DUP flag, payload) of each."""
    s.settimeout(timeout)
    data, got = b"", []
    while len(got) < count:
        try:
            chunk = s.recv(65536)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
        while len(data) >= 2:
            length, shift, i = 0, 0, 1
            while data[i] & 0x80:
                length |= (data[i] & 0x7F) << shift
                shift, i = shift + 7, i + 1
            length |= data[i] << shift
            if len(data) < i + 1 + length:
                break
            kind, body, data = data[0], data[i + 1:i + 1 + length], data[i + 1 + length:]
            if kind & 0xF0 == 0x30:
                topic_end = 2 + int.from_bytes(body[:2], "big")
                assert body[2:topic_end] == EVENT.encode()
                got.append((bool(kind & 0x08), body[topic_end + 2:]))  # (+ packet id)
    return got
