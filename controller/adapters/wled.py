"""WLED controllers: a flash on a foul or at the end of a game (WLED MQTT API).

WLED takes its JSON API on ``<topic>/api``. A flash publishes
``{"on": true, "bri": 255, "transition": 0, "seg": [{"id": 0, "fx": 1, "sx": 200, "ix": 128,
"col": [[255, 0, 0]]}]}`` and, ``seconds`` later, the configured ``restore`` state (default
``{"ps": 1}``: back to preset 1). A second flash before the first is restored postpones the
restore (one restore per controller, keyed by its topic). Nothing is retained.
"""

from __future__ import annotations

from typing import Any

from controller.adapters.base import Adapter, Publication
from controller.adapters.config import WledConfig, WledFlash


class WledAdapter(Adapter):
    """One controller."""

    def __init__(self, config: WledConfig) -> None:
        self.config = config
        self.topic = f"{config.topic}/api"

    def flash(self, flash: WledFlash) -> list[Publication]:
        state = {"on": True, "bri": flash.bri, "transition": 0,
                 "seg": [{"id": 0, "fx": flash.fx, "sx": flash.sx, "ix": flash.ix,
                          "col": [list(flash.color)]}]}
        return [Publication(self.topic, state),
                Publication(self.topic, dict(self.config.restore), delay=flash.seconds,
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
