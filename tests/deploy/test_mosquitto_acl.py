"""The shipped venue brokers enforce their ACL (real Mosquitto, real clients).

A denied publish never reaches anyone, so every "cannot" is proved by a subscriber with
the right to read: the denied message is published first (QoS 1, acknowledged), then an
allowed marker on the same topic; the subscriber must see the marker and nothing before it.
Sessions are named after users on the venue broker: no other user can take a table's.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiomqtt
import pytest
from aiomqtt.exceptions import MqttConnectError

from tests.deploy.venue import CONF, WEB_CONF, Venue, password

B1 = "billiards/club/t1"
B2 = "billiards/club/t2"
T1 = "club/t1"  # the tables' users
T2 = "club/t2"
BROWSERS = (9001, 9443)  # the browsers' broker's ports
_ids = itertools.count()


@asynccontextmanager
async def login(venue: Venue, user: str, *, port: int = 1883, identifier: str | None = None,
                **kw: object) -> AsyncIterator[aiomqtt.Client]:
    # on the browsers' broker, ids as the pages make them ("web-" and 8 hex digits)
    default = f"web-{next(_ids):08x}" if port in BROWSERS else f"{user}-{next(_ids)}"
    async with aiomqtt.Client("127.0.0.1", venue.ports[port], username=user,
                              password=password(user), identifier=identifier or default,
                              **kw) as client:  # type: ignore[arg-type]
        yield client


async def first_message(client: aiomqtt.Client, timeout: float = 3.0) -> aiomqtt.Message:
    async with asyncio.timeout(timeout):
        async for message in client.messages:
            return message
    raise AssertionError("no message")


async def nothing_arrives(client: aiomqtt.Client, within: float = 0.5) -> None:
    """Raises AssertionError if ``client`` receives a message ``within`` seconds."""
    with contextlib.suppress(TimeoutError):
        message = await first_message(client, within)
        raise AssertionError(f"unexpected {message.topic}: {message.payload!r}")


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
    seen = await delivered_first(venue, T1, f"{B1}/request/new_match", "dashboard",
                                 "referee")
    assert seen == {"topic": f"{B1}/request/new_match", "from": "referee"}


async def test_a_panel_cannot_publish_a_request(venue: Venue) -> None:
    seen = await delivered_first(venue, T1, f"{B1}/request/undo", "esphome/t1-lcd", "referee")
    assert seen["from"] == "referee"


async def test_table_cannot_write_another_tables_state(venue: Venue) -> None:
    seen = await delivered_first(venue, "dashboard", f"{B2}/state", T1, T2)
    assert seen == {"topic": f"{B2}/state", "from": T2}


async def test_table_cannot_send_another_table_a_request(venue: Venue) -> None:
    seen = await delivered_first(venue, T2, f"{B2}/request/end_match", T1,
                                 "referee")
    assert seen["from"] == "referee"


async def test_table_writes_its_own_subtree(venue: Venue) -> None:
    async with login(venue, "dashboard") as sub:
        await sub.subscribe(f"{B1}/#", qos=1)
        async with login(venue, T1) as table:
            for topic in ("status", "state", "event", "display", "health", "response/get"):
                await table.publish(f"{B1}/{topic}", json.dumps({"v": 1, "topic": topic}), qos=1)
        got = []
        for _ in range(6):
            got.append(str((await first_message(sub)).topic))
    assert got == [f"{B1}/{t}" for t in ("status", "state", "event", "display", "health",
                                           "response/get")]


async def test_table_reads_its_requests_and_not_another_tables(venue: Venue) -> None:
    async with login(venue, T1) as table:
        await table.subscribe("billiards/club/+/request/+", qos=1)
        async with login(venue, "referee") as ref:
            await ref.publish(f"{B2}/request/undo", "{}", qos=1)
            await ref.publish(f"{B1}/request/undo", json.dumps({"shots": 1}), qos=1)
        message = await first_message(table)
    assert (str(message.topic), message.payload) == (f"{B1}/request/undo", b'{"shots": 1}')


async def test_dashboard_reads_every_table(venue: Venue) -> None:
    async with login(venue, "dashboard") as sub:
        await sub.subscribe("billiards/club/+/state", qos=1)
        for table in (T1, T2):
            async with login(venue, table) as t:
                await t.publish(f"billiards/club/{table[-2:]}/state", "{}", qos=1)
        topics = {str((await first_message(sub)).topic) for _ in range(2)}
    assert topics == {f"{B1}/state", f"{B2}/state"}


async def test_home_assistant_may_press_undo_but_not_start_a_match(venue: Venue) -> None:
    seen = await delivered_first(venue, T1, f"{B1}/request/#", "homeassistant",
                                 "homeassistant", marker_topic=f"{B1}/request/undo")
    # the first publication (also to request/undo) was allowed: it arrives first
    assert seen == {"topic": f"{B1}/request/undo", "from": "homeassistant"}
    async with login(venue, T1) as table:
        await table.subscribe(f"{B1}/request/+", qos=1)
        async with login(venue, "homeassistant") as ha:
            await ha.publish(f"{B1}/request/new_match", '{"from": "ha"}', qos=1)
            await ha.publish(f"{B1}/request/undo", '{"from": "ha-undo"}', qos=1)
        message = await first_message(table)
    assert str(message.topic) == f"{B1}/request/undo"


async def test_home_assistant_may_cancel_the_undo_it_sends(venue: Venue) -> None:
    """A client that may send a request may cancel it (``cancel`` by its transaction, the
    answer to a request whose fate it does not know: docs/interfaces.md §3)."""
    async with login(venue, T1) as table:
        await table.subscribe(f"{B1}/request/+", qos=1)
        async with login(venue, "homeassistant") as ha:
            await ha.publish(f"{B1}/request/cancel", '{"cancels": "ha-1", "transaction": "ha-2"}',
                             qos=1)
        message = await first_message(table)
    assert str(message.topic) == f"{B1}/request/cancel"


LANE1 = "club/t1/referee"  # table 1's referee lane's user (controller/service/referee.py)


async def test_only_the_referees_write_a_tables_referee_lane(venue: Venue) -> None:
    for flooder in ("homeassistant", "keypad-t1", "dashboard", T1):
        seen = await delivered_first(venue, LANE1, f"{B1}/referee/request/undo", flooder,
                                     "referee")
        assert seen == {"topic": f"{B1}/referee/request/undo", "from": "referee"}, flooder


async def test_a_lane_reads_its_own_tables_requests_and_writes_only_its_copies(
        venue: Venue) -> None:
    async with login(venue, LANE1) as lane:
        await lane.subscribe(f"{B2}/referee/request/+", qos=1)  # another table's: denied
        async with login(venue, "referee") as ref:
            await ref.publish(f"{B2}/referee/request/undo", "{}", qos=1)
        await nothing_arrives(lane)
    seen = await delivered_first(venue, "dashboard", f"{B1}/referee/response/#", "club/t2/referee",
                                 LANE1, marker_topic=f"{B1}/referee/response/undo")
    assert seen == {"topic": f"{B1}/referee/response/undo", "from": LANE1}
    seen = await delivered_first(venue, "dashboard", f"{B1}/state", LANE1, T1)
    assert seen == {"topic": f"{B1}/state", "from": T1}  # the table's own topics: its own


async def test_a_referee_console_reaches_the_lane_through_the_browsers_broker(
        venue: Venue) -> None:
    async with login(venue, LANE1) as lane:
        await lane.subscribe(f"{B1}/referee/request/+", qos=1)
        async with login(venue, "referee", port=9001, transport="websockets") as ref:
            await ref.publish(f"{B1}/referee/request/undo", '{"from": "console"}', qos=1)
        message = await first_message(lane)
    assert (str(message.topic), message.payload) == (f"{B1}/referee/request/undo",
                                                     b'{"from": "console"}')


@pytest.mark.parametrize("user,secret", [(None, None), ("referee", "wrong")])
async def test_anonymous_and_wrong_password_are_refused(venue: Venue, user: str | None,
                                                        secret: str | None) -> None:
    with pytest.raises(aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username=user,
                                  password=secret, timeout=3):
            pass


async def test_tls_listener_serves_the_same_acl(venue: Venue) -> None:
    context = ssl.create_default_context(cafile=str(venue.ca))
    context.verify_flags |= ssl.VERIFY_X509_STRICT
    async with login(venue, "dashboard", port=8883, tls_context=context) as sub:
        await sub.subscribe(f"{B1}/state", qos=1)
        async with login(venue, T1, port=8883, tls_context=context) as table:
            await table.publish(f"{B1}/state", '{"v": 1}', qos=1)
        message = await first_message(sub)
    assert message.payload == b'{"v": 1}'


@pytest.mark.parametrize("port", [9001, 9443])
async def test_browsers_broker_lets_a_dashboard_read_but_not_write(venue: Venue,
                                                                  port: int) -> None:
    tls = None
    if port == 9443:  # wss, with the venue broker's certificate
        tls = ssl.create_default_context(cafile=str(venue.ca))
        tls.verify_flags |= ssl.VERIFY_X509_STRICT
    async with login(venue, "dashboard", port=port, transport="websockets",
                     tls_context=tls) as dash:
        await dash.subscribe(f"{B1}/request/+", qos=1)
        await dash.publish(f"{B1}/request/end_match", '{"from": "dashboard"}', qos=1)
        async with login(venue, "referee", port=port, transport="websockets",
                         tls_context=tls) as ref:
            await ref.publish(f"{B1}/request/get", '{"from": "referee"}', qos=1)
        message = await first_message(dash)
    assert (str(message.topic), json.loads(message.payload)) == (  # type: ignore[arg-type]
        f"{B1}/request/get", {"from": "referee"})


async def test_a_referee_console_reaches_the_table_through_the_browsers_broker(
        venue: Venue) -> None:
    async with login(venue, T1) as table, \
            login(venue, "dashboard", port=9001, transport="websockets") as dash:
        await table.subscribe(f"{B1}/request/+", qos=1)
        await dash.subscribe(f"{B1}/request/+", qos=1)
        async with login(venue, "referee", port=9001, transport="websockets") as ref:
            await ref.publish(f"{B1}/request/undo", '{"from": "console"}', qos=1)
        message = await first_message(table)
        await nothing_arrives(table)  # once
        assert (await first_message(dash)).payload == b'{"from": "console"}'
        await nothing_arrives(dash)  # the bridge does not bring it back a second time
    assert (str(message.topic), message.payload) == (f"{B1}/request/undo", b'{"from": "console"}')


def test_shipped_configs_keep_persistence_on_anonymous_off_and_sessions_bound_to_users() -> None:
    venue = [line.strip() for line in CONF.read_text().splitlines()]
    assert {"persistence true", "allow_anonymous false"} <= set(venue)
    assert "protocol websockets" not in venue  # browsers use their own broker
    listeners = [i for i, line in enumerate(venue) if line.startswith("listener ")]
    for start, end in zip(listeners, [*listeners[1:], len(venue)], strict=True):
        assert "use_username_as_clientid true" in venue[start:end], venue[start]
    web = {line.strip() for line in WEB_CONF.read_text().splitlines()}
    assert {"persistence true", "allow_anonymous false", "protocol websockets"} <= web


# ---------------------------------------------------------------- session takeover
async def table_session(venue: Venue) -> aiomqtt.Client:
    """Returns the table's client (persistent session, its usual id), not yet connected."""
    return aiomqtt.Client("127.0.0.1", venue.ports[1883], username=T1, password=password(T1),
                          identifier="billiards-club-t1", clean_session=False)


@pytest.mark.parametrize("identifier", ["billiards-club-t1", T1])
async def test_another_user_with_the_tables_client_id_neither_kicks_it_nor_gets_its_requests(
        venue: Venue, identifier: str) -> None:
    """The attack of issue 20: the public dashboard login, and a device's, with the table's
    client id (the configured one, and the user name the broker names its session after)."""
    async with await table_session(venue) as table:
        await table.subscribe(f"{B1}/request/+", qos=1)
    # the table is away; a request waits in its session
    async with login(venue, "referee") as ref:
        await ref.publish(f"{B1}/request/undo", '{"n": 1}', qos=1)
    for thief in ("dashboard", "awtrix_a1b2c3"):
        async with login(venue, thief, identifier=identifier, clean_session=False) as c:
            await nothing_arrives(c)  # not the table's session: nothing queued for it
    async with await table_session(venue) as table:
        assert (await first_message(table)).payload == b'{"n": 1}'
        async with login(venue, "dashboard", identifier=identifier) as dashboard, \
                login(venue, "referee") as ref:
            await dashboard.subscribe("billiards/club/+/state", qos=1)
            await ref.publish(f"{B1}/request/undo", '{"n": 2}', qos=1)
            # still connected: the table receives the next request
            assert (await first_message(table)).payload == b'{"n": 2}'


@pytest.mark.parametrize("identifier", ["billiards-club-t1", T1])
async def test_a_browser_with_the_tables_client_id_does_not_reach_the_tables_broker(
        venue: Venue, identifier: str) -> None:
    """(The browsers' broker now refuses the id outright: only the pages' "web-…" ids.)"""
    async with await table_session(venue) as table:
        await table.subscribe(f"{B1}/request/+", qos=1)
        with pytest.raises(MqttConnectError, match="Not authorized"):
            async with login(venue, "dashboard", port=9001, transport="websockets",
                             identifier=identifier, clean_session=False):
                pass
        async with login(venue, "referee") as ref:
            await ref.publish(f"{B1}/request/undo", '{"n": 3}', qos=1)
        assert (await first_message(table)).payload == b'{"n": 3}'


async def test_a_second_login_as_the_table_takes_its_session_so_the_id_is_the_user(
        venue: Venue) -> None:
    """The control: the broker names sessions after users (whatever id is sent), so the
    table's own user, with another id, does take over the table's session."""
    async with await table_session(venue) as table:
        await table.subscribe(f"{B1}/request/+", qos=1)
        async with login(venue, T1, identifier="something-else"):
            with pytest.raises(aiomqtt.MqttError):
                await first_message(table)


async def test_adapters_user_drives_every_device_through_the_shipped_acl(venue: Venue) -> None:
    """The adapters, logged in as "adapters-t1", reach the devices (each logged in as its own
    prefix: an AWTRIX clock's default awtrix_<mac>, a WLED's wled/<mac>), Home Assistant and
    the sized displays; Home Assistant's undo button reaches the table."""
    from controller.adapters import AdaptersConfig, run_adapters
    from controller.adapters.config import (
        AwtrixConfig,
        HomeAssistantConfig,
        TextDisplayConfig,
        WledConfig,
        WledFlash,
    )

    clock, light = "awtrix_a1b2c3", "wled/a1b2c3"
    config = AdaptersConfig(
        awtrix=[AwtrixConfig(prefix=clock)], text=[TextDisplayConfig()],
        wled=[WledConfig(topic=light, foul=WledFlash(color=[255, 0, 0], seconds=0.2),
                         restore={"ps": 3})],
        homeassistant=HomeAssistantConfig())
    state = {"v": 1, "seq": 5, "ts": 1.0, "game": "ten-ball", "status": "in_play",
             "to_shoot": 0, "players": [{"name": "Ann", "score": 0, "games": 1},
                                        {"name": "Bob", "score": 0, "games": 0}]}
    foul = {"v": 1, "seq": 6, "ts": 2.0, "type": "foul",
            "data": {"player": 0, "fouls": ["scratch"], "shot": 3}}
    async with login(venue, clock) as awtrix, login(venue, light) as wled, \
            login(venue, "homeassistant") as ha, login(venue, "dashboard") as dash, \
            login(venue, "adapters-t1") as adapters, login(venue, T1) as table:
        await awtrix.subscribe(f"{clock}/#", qos=1)
        await wled.subscribe(f"{light}/#", qos=1)
        await ha.subscribe("homeassistant/+/+/+/config", qos=1)
        await dash.subscribe(f"{B1}/display/+", qos=1)
        await table.subscribe(f"{B1}/request/+", qos=1)
        ready = asyncio.Event()
        task = asyncio.create_task(run_adapters(adapters, B1, config, ready=ready))
        try:
            await asyncio.wait_for(ready.wait(), 5)
            await table.publish(f"{B1}/state", json.dumps(state), qos=1)
            await table.publish(f"{B1}/event", json.dumps(foul), qos=1)
            seen = {str((await first_message(awtrix)).topic) for _ in range(2)}
            assert seen == {f"{clock}/custom/billiards", f"{clock}/notify"}
            assert str((await first_message(wled)).topic) == f"{light}/api"
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


async def test_a_device_reaches_only_its_own_prefix(venue: Venue) -> None:
    seen = await delivered_first(venue, "awtrix_a1b2c3", "awtrix_a1b2c3/notify", "wled/a1b2c3",
                                 "adapters-t1")
    assert seen["from"] == "adapters-t1"
    seen = await delivered_first(venue, "dashboard", f"{B1}/state", "awtrix_a1b2c3", T1)
    assert seen["from"] == T1
