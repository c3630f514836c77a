"""Home Assistant MQTT discovery: one device per table, its entities, the undo button, and
re-announcement on Home Assistant's birth message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.adapters import AdaptersConfig
from controller.adapters.config import HomeAssistantConfig
from controller.pipeline.requests import parse_request
from rules.facts import Foul
from tests.adapters.harness import B, Device, device_client, rig
from tests.broker import Broker
from vocabulary import VERSION

CONFIG = AdaptersConfig(homeassistant=HomeAssistantConfig())
NODE = "billiards_club_t1"
HA = "homeassistant"
OBJECTS = [("sensor", "player_1_score"), ("sensor", "player_2_score"), ("sensor", "to_shoot"),
           ("sensor", "game"), ("sensor", "status"), ("sensor", "connection"),
           ("event", "pocket"), ("event", "foul"), ("event", "match"), ("button", "undo")]
TOPICS = [f"{HA}/{c}/{NODE}/{o}/config" for c, o in OBJECTS]
DEVICE = {"identifiers": [NODE], "name": "Billiards table t1",
          "manufacturer": "billiards-table-controller", "model": "Table controller (club)",
          "sw_version": VERSION}
AVAILABILITY = [{"topic": f"{B}/status",
                 "value_template": "{{ 'online' if value_json.state == 'online' else 'offline' }}",
                 "payload_available": "online", "payload_not_available": "offline"}]


async def announcement(device: Device, n: int = len(TOPICS)) -> dict[str, Any]:
    got = {}
    for _ in range(n):
        topic, payload, _ = await device.next()
        got[topic] = payload
    return got


async def test_one_device_per_table_with_its_entities(broker: Broker) -> None:
    async with rig(broker, CONFIG, f"{HA}/+/{NODE}/+/config") as (_, device):
        configs = await announcement(device)
    assert list(configs) == TOPICS
    for (_, obj), config in zip(OBJECTS, configs.values(), strict=True):
        assert config["device"] == DEVICE
        assert config["unique_id"] == f"{NODE}_{obj}"
        assert config["origin"] == {"name": "billiards-table-controller", "sw_version": VERSION}
        if obj != "connection":  # the connection sensor shows offline rather than vanishing
            assert config["availability"] == AVAILABILITY, obj
    sensor = {o: configs[f"{HA}/sensor/{NODE}/{o}/config"] for c, o in OBJECTS if c == "sensor"}
    assert sensor["player_2_score"]["state_topic"] == f"{B}/state"
    assert sensor["player_2_score"]["value_template"] == (
        "{{ value_json.players[1].score if value_json.players | length > 1 else None }}")
    assert sensor["to_shoot"]["name"] == "Player to shoot"
    assert sensor["game"]["value_template"] == "{{ value_json.game if value_json.game else None }}"
    assert (sensor["status"]["device_class"], sensor["status"]["options"]) == ("enum", [
        "idle", "break", "in_play", "awaiting", "shootout", "game_over", "match_over"])
    assert sensor["connection"]["state_topic"] == f"{B}/status"
    assert "availability" not in sensor["connection"]
    pocket = configs[f"{HA}/event/{NODE}/pocket/config"]
    assert (pocket["state_topic"], pocket["event_types"]) == (
        f"{B}/event", ["hl", "hr", "sl", "sr", "fl", "fr", "unknown"])
    assert pocket["value_template"].startswith("{% if value_json.type == 'ball_pocketed' %}")
    assert "'event_type': value_json.data.pocket or 'unknown'" in pocket["value_template"]
    foul = configs[f"{HA}/event/{NODE}/foul/config"]
    assert foul["event_types"] == [str(f) for f in Foul]
    assert foul["value_template"].startswith("{% if value_json.type == 'foul' %}")
    button = configs[f"{HA}/button/{NODE}/undo/config"]
    assert button == {"name": "Undo last shot", "unique_id": f"{NODE}_undo", "device": DEVICE,
                      "origin": {"name": "billiards-table-controller", "sw_version": VERSION},
                      "availability": AVAILABILITY, "command_topic": f"{B}/request/undo",
                      "payload_press": '{"v": 1, "shots": 1}', "icon": "mdi:undo"}


async def test_the_undo_button_takes_back_the_last_shot(broker: Broker) -> None:
    async with rig(broker, CONFIG, f"{HA}/button/{NODE}/undo/config") as (table, device):
        _, button, _ = await device.next()
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.foul(["touched_ball"])
        async with device_client(broker, "controller") as listener, device_client(broker, "hass") as hass:
            await listener.subscribe(f"{B}/request/+", qos=1)
            await hass.publish(button["command_topic"], button["payload_press"], qos=1)
            topic, payload, _ = await Device(listener).next()
        assert topic == f"{B}/request/undo"
        assert parse_request("undo", json.dumps(payload)).shots == 1  # type: ignore[union-attr]
        assert table.table.referee.state.shot == 1
        await table.request("undo", payload)
        assert table.table.referee.state.shot == 0


async def test_re_announced_when_home_assistant_comes_online(broker: Broker) -> None:
    async with rig(broker, CONFIG, f"{HA}/+/{NODE}/+/config") as (_, device):
        await announcement(device)
        async with device_client(broker, "hass") as hass:
            await hass.publish(f"{HA}/status", "offline", qos=1)
            await device.nothing(0.3)
            await hass.publish(f"{HA}/status", "online", qos=1)
            again = await announcement(device)
    assert list(again) == TOPICS


async def test_player_slots_follow_the_match(broker: Broker) -> None:
    topic3 = f"{HA}/sensor/{NODE}/player_3_score/config"
    async with rig(broker, CONFIG, f"{HA}/+/{NODE}/+/config") as (table, device):
        await announcement(device)
        await table.request("new_match", {"game": "pyramid", "players": ["Ann", "Bob", "Cat"]})
        topic, config, _ = await device.next()
        assert (topic, config["name"], config["unique_id"]) == (
            topic3, "Player 3 score", f"{NODE}_player_3_score")
        assert config["value_template"] == (
            "{{ value_json.players[2].score if value_json.players | length > 2 else None }}")
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        assert await device.next() == (topic3, "", False)  # removes the entity
        await device.nothing()


async def test_retained_configs_when_asked(broker: Broker) -> None:
    config = AdaptersConfig(homeassistant=HomeAssistantConfig(
        retain=True, name="Table 1", area="Club room", undo_button=False))
    async with rig(broker, config, f"{HA}/button/#") as (_, device):
        async with device_client(broker, "hass") as hass:
            await hass.subscribe(f"{HA}/sensor/{NODE}/status/config", qos=1)
            topic, payload, retained = await Device(hass).next()
        assert retained and payload["device"]["name"] == "Table 1"
        assert payload["device"]["suggested_area"] == "Club room"
        await device.nothing()  # no undo button


def test_templates_render_what_home_assistant_expects() -> None:
    """Renders the templates with Jinja2 (Home Assistant's template engine) when it is installed."""
    jinja2 = pytest.importorskip("jinja2")
    from controller.adapters.homeassistant import HomeAssistantAdapter

    def render(template: str, payload: dict[str, Any]) -> str:
        return str(jinja2.Environment().from_string(template).render(value_json=payload))

    configs = {t.split("/")[-2]: c for t, c in
               HomeAssistantAdapter(HomeAssistantConfig(), B).configs()}
    state = {"game": "ten-ball", "match_id": "m-1", "race_to": 3, "game_no": 1, "options": {},
             "status": "in_play", "to_shoot": 1,
             "players": [{"name": "Ann", "score": 4, "games": 1, "consecutive_fouls": 0},
                         {"name": "Bob", "score": 5, "games": 0, "consecutive_fouls": 1}]}
    idle = {**state, "game": None, "status": "idle", "to_shoot": None, "players": []}
    assert [render(configs[o]["value_template"], state) for o in
            ("player_1_score", "player_2_score", "to_shoot", "game", "status")] == [
        "4", "5", "Bob", "ten-ball", "in_play"]
    assert [render(configs[o]["value_template"], idle) for o in
            ("player_1_score", "to_shoot", "game")] == ["None", "None", "None"]
    assert json.loads(render(configs["player_2_score"]["json_attributes_template"], state)) == \
        state["players"][1]
    pocket = {"type": "ball_pocketed", "data": {"pocket": "fl", "ball": 7, "shot": 3}}
    foul = {"type": "foul", "data": {"player": 0, "fouls": ["scratch"], "shot": 3}}
    assert json.loads(render(configs["pocket"]["value_template"], pocket)) == {
        "event_type": "fl", "ball": 7, "shot": 3}
    assert json.loads(render(configs["foul"]["value_template"], foul)) == {
        "event_type": "scratch", "fouls": ["scratch"], "player": 0, "shot": 3}
    assert render(configs["pocket"]["value_template"], foul) == ""  # ignored by Home Assistant
    # a ball seen only by the ball return: a type among the entity's event_types, never null
    returned = {"type": "ball_pocketed", "data": {"pocket": None, "ball": 7, "shot": 3}}
    seen = json.loads(render(configs["pocket"]["value_template"], returned))
    assert seen == {"event_type": "unknown", "ball": 7, "shot": 3}
    assert seen["event_type"] in configs["pocket"]["event_types"]
    assert render(AVAILABILITY[0]["value_template"], {"state": "stopped"}) == "offline"


async def test_names_follow_the_tables_language_and_codes_stay_codes(broker: Broker) -> None:
    async with rig(broker, CONFIG, f"{HA}/+/{NODE}/+/config", language="ru") as (_, device):
        first = await announcement(device)  # before the table's state says its language
        again = await announcement(device)  # its state: Russian
    assert first[TOPICS[0]]["name"] == "Player 1 score"
    names = {topic.split("/")[3]: config["name"] for topic, config in again.items()}
    assert names == {"player_1_score": "Счёт игрока 1", "player_2_score": "Счёт игрока 2",
                     "to_shoot": "Бьёт", "game": "Игра", "status": "Состояние",
                     "connection": "Связь", "pocket": "Луза", "foul": "Фол", "match": "Матч",
                     "undo": "Отменить последний удар"}
    device_ru = again[TOPICS[0]]["device"]
    assert (device_ru["name"], device_ru["model"]) == ("Бильярдный стол t1",
                                                       "Контроллер стола (club)")
    status = again[f"{HA}/sensor/{NODE}/status/config"]
    assert status["options"] == first[f"{HA}/sensor/{NODE}/status/config"]["options"]


async def test_names_in_the_language_set_for_home_assistant(broker: Broker) -> None:
    config = AdaptersConfig(homeassistant=HomeAssistantConfig(language="ru"))
    async with rig(broker, config, f"{HA}/+/{NODE}/+/config") as (_, device):
        configs = await announcement(device)
        await device.nothing()  # an English table does not change them
    assert configs[f"{HA}/button/{NODE}/undo/config"]["name"] == "Отменить последний удар"
