"""Devices at a venue on the shipped venue broker: one user each, so none pushes another off
(issue 28, "Displays at a venue"; issue 33, finding 8).

Two ESPHome-like panels connect as ESPHome does (MQTT 3.1.1, a clean session, a last will and
a birth message on ``<topic_prefix>/status``, ``topic_prefix`` = the user) and stay connected
together; each reads the tables, writes under its own prefix only, and gets the texts the
adapters write for it. Two scoreboards likewise."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiomqtt
import paho.mqtt.client as paho
import pytest

from tests.deploy.test_mosquitto_acl import B1, delivered_first, first_message, nothing_arrives
from tests.deploy.venue import Venue, password

PANELS = ("esphome/t1-lcd", "esphome/bar-matrix")
SCOREBOARDS = ("scoreboard-bar", "keypad-t1")


@asynccontextmanager
async def esphome(venue: Venue, node: str) -> AsyncIterator[aiomqtt.Client]:
    """A panel as ESPHome connects it: user and topic prefix ``node``, its own client id."""
    will = aiomqtt.Will(f"{node}/status", b"offline", qos=1, retain=True)
    async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username=node,
                              password=password(node), identifier=node.replace("/", "-"),
                              protocol=paho.MQTTv311, will=will) as panel:
        await panel.publish(f"{node}/status", b"online", qos=1, retain=True)
        yield panel


async def test_two_esphome_panels_stay_connected_and_each_reads_the_table(
        venue: Venue) -> None:
    display = {"v": 1, "panel": "2x16", "lines": ["ANN 3:1 BOB", "SHOT 7"]}
    async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="adapters-t1",
                              password=password("adapters-t1")) as adapters:
        await adapters.publish(f"{B1}/display/2x16", json.dumps(display), qos=1, retain=True)
        async with esphome(venue, PANELS[0]) as one, esphome(venue, PANELS[1]) as two:
            for panel in (one, two):
                await panel.subscribe(f"{B1}/display/2x16", qos=1)
            got = await asyncio.gather(first_message(one), first_message(two))
            assert [json.loads(m.payload) for m in got] == [display] * 2  # type: ignore[arg-type]
            for _ in range(3):  # both still connected: neither pushed the other off
                display["lines"][1] = f"SHOT {8 + _}"
                await adapters.publish(f"{B1}/display/2x16", json.dumps(display), qos=1,
                                       retain=True)
                got = await asyncio.gather(first_message(one), first_message(two))
                assert {json.loads(m.payload)["lines"][1] for m in got} == {  # type: ignore[arg-type]
                    f"SHOT {8 + _}"}
        await adapters.publish(f"{B1}/display/2x16", b"", qos=1, retain=True)  # (cleared)


async def test_the_adapters_write_a_panels_text_under_its_prefix(venue: Venue) -> None:
    """deploy/adapters.example.toml's [[text]] topic = "esphome/t1-lcd/score"."""
    async with esphome(venue, PANELS[0]) as panel:
        await panel.subscribe(f"{PANELS[0]}/score", qos=1)
        async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="adapters-t1",
                                  password=password("adapters-t1"),
                                  protocol=paho.MQTTv5) as adapters:
            await adapters.publish(f"{PANELS[0]}/score", b"ANN 3:1 BOB", qos=1)
        assert (await first_message(panel)).payload == b"ANN 3:1 BOB"


@pytest.mark.parametrize("writer,reader", [(PANELS[0], PANELS[1]), (PANELS[1], PANELS[0])])
async def test_a_panel_cannot_write_under_another_panels_prefix(venue: Venue, writer: str,
                                                                reader: str) -> None:
    seen = await delivered_first(venue, reader, f"{reader}/score", writer, "adapters-t1")
    assert seen == {"topic": f"{reader}/score", "from": "adapters-t1"}


async def test_a_panel_cannot_write_the_tables_topics(venue: Venue) -> None:
    seen = await delivered_first(venue, "dashboard", f"{B1}/display/2x16", PANELS[0],
                                 "adapters-t1")
    assert seen["from"] == "adapters-t1"


async def test_a_second_login_as_one_panel_pushes_the_first_off(venue: Venue) -> None:
    """The control: why each device needs a user of its own on the venue broker."""
    async with esphome(venue, PANELS[0]) as first:
        await first.subscribe(f"{B1}/state", qos=1)
        async with esphome(venue, PANELS[0]):
            with pytest.raises(aiomqtt.MqttError):
                await first_message(first)


async def test_two_scoreboards_with_users_of_their_own_both_stay_connected(
        venue: Venue) -> None:
    async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="club/t1",
                              password=password("club/t1")) as table:
        boards = [aiomqtt.Client("127.0.0.1", venue.ports[1883], username=user,
                                 password=password(user)) for user in SCOREBOARDS]
        async with boards[0] as one, boards[1] as two:
            for board in (one, two):
                await board.subscribe(f"{B1}/event", qos=1)
            for seq in range(3):
                await table.publish(f"{B1}/event", json.dumps({"seq": seq}), qos=1)
                got = await asyncio.gather(first_message(one), first_message(two))
                assert [json.loads(m.payload) for m in got] == [{"seq": seq}] * 2  # type: ignore[arg-type]
            await nothing_arrives(one)
