"""What the table publishes: ``Message`` (one MQTT publication and how it is to be published)
and ``Stamper``, which numbers the table's messages and collects them in order.

Every payload the table publishes starts with ``v``, ``seq`` and ``ts``: ``seq`` counts up by
one per payload across the table's life (never back: ``resume`` after a rebuild), ``ts`` is
the table's time of the input that caused it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from vocabulary import VERSION


class Role(enum.StrEnum):
    """What a message is to its subscribers, which says how long it may wait to be delivered."""

    RETAINED = "retained"  # status, state, display, health: the latest replaces the older
    EVENT = "event"  # B/event: expires after ``mqtt.event_expiry_s``
    RESPONSE = "response"  # B/response/<name>: also to the request's response topic (MQTT 5)


@dataclass(frozen=True, slots=True)
class Message:
    """One MQTT publication; ``topic`` is relative to the table's base topic.

    ``live``: news of the sensors, not a ruling (``ball_pocketed``): it may be published once
    its input is written, before the sync. ``ends_shot``: the first ruling of a shot (sensor
    health counts a shot of play).
    """

    topic: str
    payload: dict[str, Any]
    retain: bool = False
    qos: int = 1
    role: Role = Role.RETAINED
    live: bool = False
    ends_shot: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "retain": self.retain, "qos": self.qos, "payload": self.payload}


StatusState = Literal["online", "offline", "stopped"]


def status_payload(state: StatusState, health: Mapping[str, object] | None = None) -> dict[str, Any]:
    """Returns the body of ``B/status`` (without ``v``/``seq``/``ts``): the service's state, its
    version and, when known, the health summary."""
    out: dict[str, Any] = {"state": state, "version": VERSION}
    if health is not None:
        out["health"] = dict(health)
    return out


class Stamper:
    """Numbers the table's messages and keeps them until ``take()``: each payload is ``v``,
    the next ``seq`` and ``ts``, then its body."""

    def __init__(self) -> None:
        self._seq = 0
        self._out: list[Message] = []

    @property
    def seq(self) -> int:
        """Returns the seq of the last payload made (0 before the first)."""
        return self._seq

    def resume(self, seq: int) -> None:
        """Numbers the next payload after ``seq`` (never goes back)."""
        self._seq = max(self._seq, seq)

    def stamp(self, t: float) -> dict[str, Any]:
        """Returns the head of a payload made at ``t``, a seq taken."""
        self._seq += 1
        return {"v": 1, "seq": self._seq, "ts": round(t, 6)}

    def retained(self, topic: str, body: Mapping[str, Any], t: float) -> None:
        """Adds a retained message (status, state, display, health)."""
        self._out.append(Message(topic, {**self.stamp(t), **body}, retain=True))

    def event(self, kind: str, data: dict[str, Any], t: float, *, live: bool = False,
              ends_shot: bool = False) -> None:
        """Adds a ``B/event`` of type ``kind``."""
        self._out.append(Message("event", {**self.stamp(t), "type": kind, "data": data},
                                 role=Role.EVENT, live=live, ends_shot=ends_shot))

    def respond(self, name: str, response: Mapping[str, Any], t: float) -> None:
        """Adds the response to a request ``name``."""
        self._out.append(Message(f"response/{name}", {**self.stamp(t), **response},
                                 role=Role.RESPONSE))

    def take(self) -> list[Message]:
        """Returns the messages added since the last take, in order."""
        out, self._out = self._out, []
        return out

    def fork(self) -> Stamper:
        """Returns a copy numbering on from the same seq, holding no message: what it makes
        changes nothing here."""
        other = Stamper()
        other.resume(self._seq)
        return other
