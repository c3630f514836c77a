"""What every adapter shares: the publication it returns, and reading a table's payloads.

An adapter is a pure mapping: a table's ``B/state`` or ``B/event`` payload (a dict) in, a
list of ``Publication`` out. It does no I/O and reads no clock; ``runner.run_adapters``
subscribes and publishes. Adapters keep what they need from earlier payloads (the player
names an event refers to, what they last published), never anything else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from controller.pipeline.scoreboard import language_of as language_of  # the adapters' helpers, here too
from controller.pipeline.scoreboard import say as say
from controller.pipeline.scoreboard import short_name as short_name
from controller.pipeline.scoreboard import to_latin as to_latin
from controller.pipeline.scoreboard import value_key as value_key

JSON = dict[str, Any] | list[Any]


@dataclass(frozen=True, slots=True)
class Publication:
    """One MQTT message for a device.

    ``payload``: a JSON value (sent compact, UTF-8), or a string sent as it is (``""`` is an
    empty payload, which deletes an AWTRIX app or a retained message). ``delay``: seconds to
    wait before publishing. ``key``: a later publication with the same key replaces one
    that is still waiting (a WLED restore after a flash).
    """

    topic: str
    payload: JSON | str
    retain: bool = False
    delay: float = 0.0
    key: str | None = None

    def encoded(self) -> bytes:
        """Returns the payload as bytes on the wire."""
        if isinstance(self.payload, str):
            return self.payload.encode()
        return json.dumps(self.payload, separators=(",", ":"), ensure_ascii=False).encode()


class Adapter:
    """Base of the adapters: every hook returns the publications it causes (none by default)."""

    def start(self) -> list[Publication]:
        """Returns what to publish as soon as the adapter runs."""
        return []

    def subscriptions(self) -> list[str]:
        """Returns topics this adapter needs besides ``B/state`` and ``B/event``."""
        return []

    def on_state(self, state: dict[str, Any]) -> list[Publication]:
        return []

    def on_event(self, event: dict[str, Any]) -> list[Publication]:
        return []

    def on_message(self, topic: str, payload: bytes) -> list[Publication]:
        """Receives a message on one of ``subscriptions()``."""
        return []


def players(state: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Returns the state's players (empty without a state or a match)."""
    if not state:
        return []
    found = state.get("players")
    return [p for p in found if isinstance(p, dict)] if isinstance(found, list) else []


def name_of(state: dict[str, Any] | None, index: Any, chars: int = 8, *,
            language: str = "en", latin: bool = False) -> str:
    """Returns player ``index``'s short name, or ``P<n>`` (in ``language``) when the state
    does not know it."""
    ps = players(state)
    if isinstance(index, int) and 0 <= index < len(ps):
        return short_name(ps[index], chars)
    return say("player", language, latin=latin, n=index + 1) if isinstance(index, int) else "?"


def readable(state: dict[str, Any], cyrillic: bool) -> dict[str, Any]:
    """Returns the state as a display shows it: the players' names in Latin letters unless
    the display's font has Cyrillic (``cyrillic``)."""
    if cyrillic or not players(state):
        return state
    renamed = [{**p, "name": to_latin(str(p.get("name", "?")))} for p in players(state)]
    return {**state, "players": renamed}


def table_id(base_topic: str) -> str:
    return base_topic.rstrip("/").rsplit("/", 1)[-1]
