"""The shipped venue broker configuration enforces its ACL (real Mosquitto, real clients).

Mosquitto drops a denied publish silently, so every "cannot" is proved by a subscriber with
the right to read: the denied message is published first (QoS 1, acknowledged), then an
allowed marker on the same topic; the subscriber must see the marker and nothing before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import ssl
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import aiomqtt
import pytest

from tests.deploy.venue import OPENSSL, Venue, password, start_venue

B1 = "billiards/club/t1"
B2 = "billiards/club/t2"
_ids = itertools.count()


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venue]:
    v = start_venue(tmp_path_factory.mktemp("venue"))
    try:
        yield v
    finally:
        v.broker.stop()


@asynccontextmanager
async def login(venue: Venue, user: str, *, port: int = 1883, **kw: object) -> AsyncIterator[aiomqtt.Client]:
    async with aiomqtt.Client("127.0.0.1", venue.ports[port], username=user,
                              password=password(user), identifier=f"{user}-{next(_ids)}",
                              **kw) as client:  # type: ignore[arg-type]
        yield client


async def first_message(client: aiomqtt.Client, timeout: float = 3.0) -> aiomqtt.Message:
    async with asyncio.timeout(timeout):
        async for message in client.messages:
            return message
    raise AssertionError("no message")


async def delivered_first(venue: Venue, reader: str, topic: str, denied_by: str,
                          marker_by: str, marker_topic: str | None = None) -> dict[str, str]:
    """Publishes as ``denied_by`` then a marker as ``marker_by``; returns what ``reader`` saw first."""
    async with login(venue, reader) as sub:
        await sub.subscribe(topic, qos=1)
        async with login(venue, denied_by) as bad:
            await bad.publish(marker_topic or topic.rstrip("#").rstrip("/"),
                              json.dumps({"from": denied_by}), qos=1)
        async with login(venue, marker_by) as good:
            await good.publish(marker_topic or topic.rstrip("#").rstrip("/"),
                               json.dumps({"from": marker_by}), qos=1)
        message = await first_message(sub)
        return {"topic": str(message.topic), **json.loads(message.payload)}  # type: ignore[arg-type]


async def test_dashboard_cannot_publish_a_request_but_a_referee_can(venue: Venue) -> None:
    seen = await delivered_first(venue, "table-t1", f"{B1}/request/new_match", "dashboard",
                                 "referee")
    assert seen == {"topic": f"{B1}/request/new_match", "from": "referee"}


async def test_display_cannot_publish_a_request(venue: Venue) -> None:
    seen = await delivered_first(venue, "table-t1", f"{B1}/request/undo", "display", "referee")
    assert seen["from"] == "referee"


async def test_table_cannot_write_another_tables_state(venue: Venue) -> None:
    seen = await delivered_first(venue, "dashboard", f"{B2}/state", "table-t1", "table-t2")
    assert seen == {"topic": f"{B2}/state", "from": "table-t2"}


async def test_table_cannot_send_another_table_a_request(venue: Venue) -> None:
    seen = await delivered_first(venue, "table-t2", f"{B2}/request/end_match", "table-t1",
                                 "referee")
    assert seen["from"] == "referee"


async def test_table_writes_its_own_subtree(venue: Venue) -> None:
    async with login(venue, "dashboard") as sub:
        await sub.subscribe(f"{B1}/#", qos=1)
        async with login(venue, "table-t1") as table:
            for topic in ("status", "state", "event", "display", "health", "response/get"):
                await table.publish(f"{B1}/{topic}", json.dumps({"v": 1, "topic": topic}), qos=1)
        got = []
        for _ in range(6):
            got.append(str((await first_message(sub)).topic))
    assert got == [f"{B1}/{t}" for t in ("status", "state", "event", "display", "health",
                                           "response/get")]


async def test_table_reads_its_requests_and_not_another_tables(venue: Venue) -> None:
    async with login(venue, "table-t1") as table:
        await table.subscribe("billiards/club/+/request/+", qos=1)
        async with login(venue, "referee") as ref:
            await ref.publish(f"{B2}/request/undo", "{}", qos=1)
            await ref.publish(f"{B1}/request/undo", json.dumps({"shots": 1}), qos=1)
        message = await first_message(table)
    assert (str(message.topic), message.payload) == (f"{B1}/request/undo", b'{"shots": 1}')


async def test_dashboard_reads_every_table(venue: Venue) -> None:
    async with login(venue, "dashboard") as sub:
        await sub.subscribe("billiards/club/+/state", qos=1)
        for table in ("table-t1", "table-t2"):
            async with login(venue, table) as t:
                await t.publish(f"billiards/club/{table[-2:]}/state", "{}", qos=1)
        topics = {str((await first_message(sub)).topic) for _ in range(2)}
    assert topics == {f"{B1}/state", f"{B2}/state"}


async def test_home_assistant_may_press_undo_but_not_start_a_match(venue: Venue) -> None:
    seen = await delivered_first(venue, "table-t1", f"{B1}/request/#", "homeassistant",
                                 "homeassistant", marker_topic=f"{B1}/request/undo")
    # the first publication (also to request/undo) was allowed: it arrives first
    assert seen == {"topic": f"{B1}/request/undo", "from": "homeassistant"}
    async with login(venue, "table-t1") as table:
        await table.subscribe(f"{B1}/request/+", qos=1)
        async with login(venue, "homeassistant") as ha:
            await ha.publish(f"{B1}/request/new_match", '{"from": "ha"}', qos=1)
            await ha.publish(f"{B1}/request/undo", '{"from": "ha-undo"}', qos=1)
        message = await first_message(table)
    assert str(message.topic) == f"{B1}/request/undo"


@pytest.mark.parametrize("user,secret", [(None, None), ("referee", "wrong")])
async def test_anonymous_and_wrong_password_are_refused(venue: Venue, user: str | None,
                                                        secret: str | None) -> None:
    with pytest.raises(aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username=user,
                                  password=secret, timeout=3):
            pass


@pytest.mark.skipif(OPENSSL is None, reason="openssl is needed to make a test certificate")
async def test_tls_listener_serves_the_same_acl(venue: Venue) -> None:
    assert venue.ca is not None
    context = ssl.create_default_context(cafile=str(venue.ca))
    async with login(venue, "dashboard", port=8883, tls_context=context) as sub:
        await sub.subscribe(f"{B1}/state", qos=1)
        async with login(venue, "table-t1", port=8883, tls_context=context) as table:
            await table.publish(f"{B1}/state", '{"v": 1}', qos=1)
        message = await first_message(sub)
    assert message.payload == b'{"v": 1}'


async def test_websockets_listener_lets_a_dashboard_read_but_not_write(venue: Venue) -> None:
    async with login(venue, "dashboard", port=9001, transport="websockets") as dash:
        await dash.subscribe(f"{B1}/request/+", qos=1)
        await dash.publish(f"{B1}/request/end_match", '{"from": "dashboard"}', qos=1)
        async with login(venue, "referee") as ref:
            await ref.publish(f"{B1}/request/get", '{"from": "referee"}', qos=1)
        message = await first_message(dash)
    assert (str(message.topic), json.loads(message.payload)) == (  # type: ignore[arg-type]
        f"{B1}/request/get", {"from": "referee"})


def test_shipped_config_keeps_persistence_on_and_anonymous_off() -> None:
    from tests.deploy.venue import CONF

    lines = {line.strip() for line in CONF.read_text().splitlines()}
    assert {"persistence true", "allow_anonymous false", "protocol websockets"} <= lines


async def test_adapters_user_drives_every_device_through_the_shipped_acl(venue: Venue) -> None:
    """The adapters, logged in as "adapters", reach the devices, Home Assistant and the
    sized displays; Home Assistant's undo button reaches the table."""
    from controller.adapters import AdaptersConfig, run_adapters
    from controller.adapters.config import (
        AwtrixConfig,
        HomeAssistantConfig,
        TextDisplayConfig,
        WledConfig,
        WledFlash,
    )

    config = AdaptersConfig(
        awtrix=[AwtrixConfig(prefix="awtrix/t1")], text=[TextDisplayConfig()],
        wled=[WledConfig(topic="wled/t1", foul=WledFlash(color=[255, 0, 0], seconds=0.2))],
        homeassistant=HomeAssistantConfig())
    state = {"v": 1, "seq": 5, "ts": 1.0, "game": "ten-ball", "status": "in_play",
             "to_shoot": 0, "players": [{"name": "Ann", "score": 0, "games": 1},
                                        {"name": "Bob", "score": 0, "games": 0}]}
    foul = {"v": 1, "seq": 6, "ts": 2.0, "type": "foul",
            "data": {"player": 0, "fouls": ["scratch"], "shot": 3}}
    async with login(venue, "devices") as devices, login(venue, "homeassistant") as ha, \
            login(venue, "dashboard") as dash, login(venue, "adapters") as adapters, \
            login(venue, "table-t1") as table:
        await devices.subscribe("awtrix/#", qos=1)
        await devices.subscribe("wled/#", qos=1)
        await ha.subscribe("homeassistant/+/+/+/config", qos=1)
        await dash.subscribe(f"{B1}/display/+", qos=1)
        await table.subscribe(f"{B1}/request/+", qos=1)
        ready = asyncio.Event()
        task = asyncio.create_task(run_adapters(adapters, B1, config, ready=ready))
        try:
            await asyncio.wait_for(ready.wait(), 5)
            await table.publish(f"{B1}/state", json.dumps(state), qos=1)
            await table.publish(f"{B1}/event", json.dumps(foul), qos=1)
            seen = {str((await first_message(devices)).topic) for _ in range(4)}
            assert seen == {"awtrix/t1/custom/billiards", "awtrix/t1/notify", "wled/t1/api"}
            assert str((await first_message(dash)).topic) == f"{B1}/display/2x16"
            configs = {}
            for _ in range(10):
                message = await first_message(ha)
                configs[str(message.topic)] = json.loads(message.payload)  # type: ignore[arg-type]
            button = configs["homeassistant/button/billiards_club_t1/undo/config"]
            await ha.publish(button["command_topic"], button["payload_press"], qos=1)
            request = await first_message(table)
            assert (str(request.topic), request.payload) == (
                f"{B1}/request/undo", b'{"v": 1, "shots": 1}')
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
