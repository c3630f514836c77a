"""Home Assistant MQTT discovery: one device per table, its entities reading the table's topics.

Configs go to ``<discovery_prefix>/<component>/<node>/<object>/config`` with ``<node>`` the
base topic with ``_`` for ``/`` (``billiards_club_t1``). Home Assistant then reads ``B/state``,
``B/event`` and ``B/status`` itself; the adapter publishes no state of its own.

- ``sensor``: ``player_<n>_score`` (one per player, at least ``players``; attributes name,
  games, consecutive_fouls), ``to_shoot``, ``game`` (attributes match_id, race_to, game_no,
  options), ``status`` (enum), ``connection`` (``B/status``: online / offline / stopped);
- ``event``: ``pocket`` (event types: the pockets; attributes ball, shot), ``foul`` (event types:
  the foul codes; attributes fouls, player, shot), ``match`` (match_started, game_over,
  match_over, undo);
- ``button``: ``undo``, which publishes ``{"v": 1, "shots": 1}`` to ``B/request/undo``.

Every entity but ``connection`` is available while ``B/status`` says ``online``. The configs are
published at start, when the number of players grows (an empty config removes a slot no
longer needed), again whenever Home Assistant announces ``online`` on
``<discovery_prefix>/status`` (its birth message), and when the names' language changes. The
device's and entities' names are in the table's language (its state's ``language``; English
until a state says) unless ``language`` is set; states and event types stay codes, for
automations.
"""

from __future__ import annotations

from typing import Any

from controller.adapters.base import Adapter, Publication, language_of, players, table_id
from controller.adapters.config import HomeAssistantConfig
from controller.words import catalogue
from rules import Foul
from vocabulary import DISTRIBUTION, POCKETS, VERSION

STATUSES = ["idle", "break", "in_play", "awaiting", "shootout", "game_over", "match_over"]
#: The pocket event's type for a ball whose pocket is not known (Home Assistant refuses an
#: event whose type is not among the entity's event_types, null included).
UNKNOWN_POCKET = "unknown"
MATCH_EVENTS = ["match_started", "game_over", "match_over", "undo"]


def _event_template(kind: str, event_type: str, attributes: dict[str, str]) -> str:
    attrs = ", ".join(f"'{k}': {v}" for k, v in attributes.items())
    return (f"{{% if value_json.type == '{kind}' %}}"
            f"{{{{ {{'event_type': {event_type}, {attrs}}} | tojson }}}}{{% endif %}}")


class HomeAssistantAdapter(Adapter):
    """The discovery of one table's device."""

    def __init__(self, config: HomeAssistantConfig, base_topic: str) -> None:
        self.config = config
        self.base = base_topic
        self.node = base_topic.strip("/").replace("/", "_")
        self.birth_topic = f"{config.discovery_prefix}/status"
        self.slots = config.players
        self.language = language_of(None, config.language)
        self.device = self._device()

    def _device(self) -> dict[str, Any]:
        parts = self.base.strip("/").split("/")
        venue = parts[-2] if len(parts) >= 2 else ""
        model = self.name("model")
        device = {
            "identifiers": [self.node],
            "name": self.config.name or self.name("device", table=table_id(self.base)),
            "manufacturer": DISTRIBUTION,
            "model": f"{model} ({venue})" if venue else model,
            "sw_version": VERSION,
        }
        if self.config.area:
            device["suggested_area"] = self.config.area
        return device

    def name(self, key: str, **fields: Any) -> str:
        """Returns a name in the adapter's language (the catalogue's ``ha.<key>``)."""
        return catalogue.say(f"ha.{key}", self.language, **fields)

    # ---------------------------------------------------------------- configs
    def topic(self, component: str, obj: str) -> str:
        return f"{self.config.discovery_prefix}/{component}/{self.node}/{obj}/config"

    def _entity(self, obj: str, name: str, **keys: Any) -> dict[str, Any]:
        entity: dict[str, Any] = {
            "name": name,
            "unique_id": f"{self.node}_{obj}",
            "device": self.device,
            "origin": {"name": DISTRIBUTION, "sw_version": VERSION},
        }
        if keys.pop("available", True):
            entity["availability"] = [{
                "topic": f"{self.base}/status",
                "value_template": "{{ 'online' if value_json.state == 'online' else 'offline' }}",
                "payload_available": "online",
                "payload_not_available": "offline",
            }]
        entity.update(keys)
        return entity

    def player_sensor(self, n: int) -> dict[str, Any]:
        i = n - 1
        return self._entity(
            f"player_{n}_score", self.name("player_score", n=n), state_topic=f"{self.base}/state",
            value_template=(f"{{{{ value_json.players[{i}].score "
                            f"if value_json.players | length > {i} else None }}}}"),
            json_attributes_topic=f"{self.base}/state",
            json_attributes_template=(f"{{{{ (value_json.players[{i}] "
                                      f"if value_json.players | length > {i} else {{}}) | tojson }}}}"),
            icon="mdi:billiards")

    def configs(self) -> list[tuple[str, dict[str, Any]]]:
        """Returns (topic, config) of every entity, for the current number of player slots."""
        b = self.base
        out = [(self.topic("sensor", f"player_{n}_score"), self.player_sensor(n))
               for n in range(1, self.slots + 1)]
        out += [
            (self.topic("sensor", "to_shoot"), self._entity(
                "to_shoot", self.name("to_shoot"), state_topic=f"{b}/state",
                value_template=("{{ value_json.players[value_json.to_shoot].name "
                                "if value_json.to_shoot is not none "
                                "and value_json.players | length > value_json.to_shoot else None }}"),
                icon="mdi:account-arrow-right")),
            (self.topic("sensor", "game"), self._entity(
                "game", self.name("game"), state_topic=f"{b}/state",
                value_template="{{ value_json.game if value_json.game else None }}",
                json_attributes_topic=f"{b}/state",
                json_attributes_template=("{{ {'match_id': value_json.match_id, "
                                          "'race_to': value_json.race_to, "
                                          "'game_no': value_json.game_no, "
                                          "'options': value_json.options} | tojson }}"),
                icon="mdi:billiards-rack")),
            (self.topic("sensor", "status"), self._entity(
                "status", self.name("status"), state_topic=f"{b}/state", device_class="enum",
                options=STATUSES, value_template="{{ value_json.status }}")),
            (self.topic("sensor", "connection"), self._entity(
                "connection", self.name("connection"), available=False, state_topic=f"{b}/status",
                device_class="enum", options=["online", "offline", "stopped"],
                value_template="{{ value_json.state }}", entity_category="diagnostic",
                json_attributes_topic=f"{b}/status",
                json_attributes_template=("{{ {'version': value_json.get('version'), "
                                          "'health': value_json.get('health')} | tojson }}"))),
            (self.topic("event", "pocket"), self._entity(
                "pocket", self.name("pocket"), state_topic=f"{b}/event",
                event_types=[*POCKETS, UNKNOWN_POCKET],
                value_template=_event_template(  # a ball seen only by the ball return: no pocket
                    "ball_pocketed", f"value_json.data.pocket or '{UNKNOWN_POCKET}'",
                    {"ball": "value_json.data.ball", "shot": "value_json.data.shot"}),
                icon="mdi:billiards")),
            (self.topic("event", "foul"), self._entity(
                "foul", self.name("foul"), state_topic=f"{b}/event", event_types=[str(f) for f in Foul],
                value_template=_event_template(
                    "foul", "value_json.data.fouls[0]",
                    {"fouls": "value_json.data.fouls", "player": "value_json.data.player",
                     "shot": "value_json.data.shot"}),
                icon="mdi:alert-octagon")),
            (self.topic("event", "match"), self._entity(
                "match", self.name("match"), state_topic=f"{b}/event", event_types=MATCH_EVENTS,
                value_template=(
                    "{% if value_json.type in " + repr(MATCH_EVENTS) + " %}"
                    "{{ dict(value_json.data, event_type=value_json.type) | tojson }}{% endif %}"),
                icon="mdi:trophy")),
        ]
        if self.config.undo_button:
            out.append((self.topic("button", "undo"), self._entity(
                "undo", self.name("undo"), command_topic=f"{b}/request/undo",
                payload_press='{"v": 1, "shots": 1}', icon="mdi:undo")))
        return out

    def announce(self) -> list[Publication]:
        return [Publication(topic, config, retain=self.config.retain)
                for topic, config in self.configs()]

    # ---------------------------------------------------------------- hooks
    def start(self) -> list[Publication]:
        return self.announce()

    def subscriptions(self) -> list[str]:
        return [self.birth_topic]

    def on_state(self, state: dict[str, Any]) -> list[Publication]:
        language = language_of(state, self.config.language)
        wanted = max(self.config.players, len(players(state)))
        if language != self.language:  # the names again, in the table's language
            old, self.slots = self.slots, wanted
            self.language = language
            self.device = self._device()
            return self.announce() + [
                Publication(self.topic("sensor", f"player_{n}_score"), "",
                            retain=self.config.retain) for n in range(wanted + 1, old + 1)]
        if wanted == self.slots:
            return []
        old, self.slots = self.slots, wanted
        if wanted > old:
            return [Publication(self.topic("sensor", f"player_{n}_score"), self.player_sensor(n),
                                retain=self.config.retain) for n in range(old + 1, wanted + 1)]
        return [Publication(self.topic("sensor", f"player_{n}_score"), "",
                            retain=self.config.retain) for n in range(wanted + 1, old + 1)]

    def on_message(self, topic: str, payload: bytes) -> list[Publication]:
        if topic == self.birth_topic and payload.strip() == b"online":
            return self.announce()
        return []
