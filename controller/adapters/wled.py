"""WLED controllers: a flash on a foul or at the end of a game (WLED MQTT API).

WLED takes its JSON API on ``<topic>/api``. A flash publishes
``{"on": true, "bri": 255, "transition": 0, "seg": [{"id": 0, "fx": 1, "sx": 200, "ix": 128,
"col": [[255, 0, 0]]}]}`` and, ``seconds`` later, restores the light. By default
(``restore = "saved"``) it restores the state WLED last published on ``<topic>/v`` (retained,
an XML status: brightness ``ac``, primary colour ``cl``, effect ``fx``, speed ``sx``,
intensity ``ix``), so no preset has to exist; until such a state has been seen, no flash
(a flash that could not be undone), with a warning. ``restore`` may instead be a JSON state
(``{"ps": 3}``: a preset the venue made). A second flash before the first is restored
postpones the restore (one restore per controller, keyed by its topic). Nothing is retained.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from controller.adapters.base import Adapter, Publication
from controller.adapters.config import WledConfig, WledFlash

log = logging.getLogger(__name__)
_NUMBER = re.compile(rb"<(ac|cl|fx|sx|ix)>(\d{1,3})</\1>")


def saved_state(status: bytes) -> dict[str, Any] | None:
    """Returns the JSON state that puts the light back as WLED's XML status (``<topic>/v``)
    describes it, or None when the status lacks brightness, colour or effect."""
    found: dict[bytes, list[int]] = {}
    for tag, value in _NUMBER.findall(status[:4096]):
        found.setdefault(tag, []).append(min(int(value), 255))
    if not {b"ac", b"fx"} <= found.keys() or len(found.get(b"cl", [])) < 3:
        return None
    bri = found[b"ac"][0]
    segment = {"id": 0, "fx": found[b"fx"][0], "col": [found[b"cl"][:3]]}
    for key in (b"sx", b"ix"):
        if key in found:
            segment[key.decode()] = found[key][0]
    return {"on": bri > 0, "bri": max(bri, 1), "transition": 0, "seg": [segment]}


class WledAdapter(Adapter):
    """One controller."""

    def __init__(self, config: WledConfig) -> None:
        self.config = config
        self.topic = f"{config.topic}/api"
        self.status_topic = f"{config.topic}/v"
        self.saved: dict[str, Any] | None = None

    def subscriptions(self) -> list[str]:
        return [self.status_topic] if self.config.restore == "saved" else []

    def on_message(self, topic: str, payload: bytes) -> list[Publication]:
        if topic == self.status_topic:
            state = saved_state(payload)
            if state is not None:
                self.saved = state
        return []

    def flash(self, flash: WledFlash) -> list[Publication]:
        restore = self.config.restore
        if restore == "saved":
            if self.saved is None:
                log.warning("no flash on %s: its state (%s) is not known yet, it could not be "
                            "restored", self.config.topic, self.status_topic)
                return []
            restore = self.saved
        state = {"on": True, "bri": flash.bri, "transition": 0,
                 "seg": [{"id": 0, "fx": flash.fx, "sx": flash.sx, "ix": flash.ix,
                          "col": [list(flash.color)]}]}
        return [Publication(self.topic, state),
                Publication(self.topic, dict(restore), delay=flash.seconds,
                            key=f"{self.topic}#restore")]

    def on_event(self, event: dict[str, Any]) -> list[Publication]:
        kind = event.get("type")
        data = event.get("data") or {}
        if kind == "foul" and self.config.foul.enabled:
            return self.flash(self.config.foul)
        if kind in ("game_over", "match_over") and self.config.game_over.enabled:
            if kind == "match_over" and data.get("abandoned"):
                return []
            return self.flash(self.config.game_over)
        return []
