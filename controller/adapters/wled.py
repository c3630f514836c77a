"""WLED controllers: a flash on a foul or at the end of a game (WLED MQTT API).

WLED takes its JSON API on ``<topic>/api``. A flash publishes
``{"on": true, "bri": 255, "transition": 0, "seg": [{"id": 0, "fx": 1, "sx": 200, "ix": 128,
"col": [[255, 0, 0]]}]}`` and, ``seconds`` later, restores the light. By default
(``restore = "saved"``) it restores the state WLED last published on ``<topic>/v`` (retained,
an XML status: brightness ``ac``, primary colour ``cl``, effect ``fx``, speed ``sx``,
intensity ``ix``), so no preset has to exist. WLED publishes that status when it connects
and after a change of its light, and retains it only with its MQTT retain option on (off by
default; ``wled00/mqtt.cpp``, ``publishMqtt``); no command asks for it without changing the
light (``stateUpdated`` in ``wled00/led.cpp`` publishes only on a change). So the adapter keeps
the last state it saw in a small file of ``state_dir`` (``wled-<topic>.json``, written
atomically) and reads it at start: restarted, it flashes and restores at once. A status that
is one of its own flashes is not kept (WLED publishes it while it flashes). With no state
seen nor kept, no flash (a flash that could not be undone), with a warning. ``restore`` may
instead be a JSON state (``{"ps": 3}``: a preset the venue made). A second flash before the
first is restored postpones the restore (one restore per controller, keyed by its topic).
Nothing is retained.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
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


def flash_state(flash: WledFlash) -> dict[str, Any]:
    """Returns the JSON state of a flash."""
    return {"on": True, "bri": flash.bri, "transition": 0,
            "seg": [{"id": 0, "fx": flash.fx, "sx": flash.sx, "ix": flash.ix,
                     "col": [list(flash.color)]}]}


def _same_light(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Returns whether two JSON states show the same light (brightness, segment 0)."""
    return a.get("bri") == b.get("bri") and a["seg"][0] == b["seg"][0]


class WledAdapter(Adapter):
    """One controller; ``state_dir``: where its last state is kept (None: nowhere)."""

    def __init__(self, config: WledConfig, state_dir: Path | None = None) -> None:
        self.config = config
        self.topic = f"{config.topic}/api"
        self.status_topic = f"{config.topic}/v"
        self.kept = (state_dir / f"wled-{re.sub(r'[^A-Za-z0-9_-]', '_', config.topic)}.json"
                     if state_dir is not None else None)
        self.saved: dict[str, Any] | None = self._load()

    def _load(self) -> dict[str, Any] | None:
        """Returns the state kept by the adapter's last run (None: none, or unreadable)."""
        if self.kept is None or self.config.restore != "saved":
            return None
        try:
            state = json.loads(self.kept.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("the state kept for %s cannot be read (%s): %s", self.config.topic,
                        self.kept, exc)
            return None
        if not (isinstance(state, dict) and isinstance(state.get("bri"), int)
                and isinstance(state.get("seg"), list) and state["seg"]
                and isinstance(state["seg"][0], dict)):
            log.warning("the state kept for %s (%s) is not a WLED state: ignored",
                        self.config.topic, self.kept)
            return None
        return state

    def _keep(self, state: dict[str, Any]) -> None:
        """Writes ``state`` to the adapter's file all at once (a warning if it cannot)."""
        if self.kept is None:
            return
        tmp = self.kept.with_name(f".{self.kept.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(state, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.kept)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            log.warning("the state of %s cannot be kept in %s (after a restart it is not known "
                        "until WLED publishes it again): %s", self.config.topic, self.kept, exc)

    def subscriptions(self) -> list[str]:
        return [self.status_topic] if self.config.restore == "saved" else []

    def on_message(self, topic: str, payload: bytes) -> list[Publication]:
        if topic == self.status_topic:
            state = saved_state(payload)
            flashes = (self.config.foul, self.config.game_over)
            if state is None or any(_same_light(state, flash_state(f)) for f in flashes):
                return []  # (WLED showing one of the flashes: not a state to go back to)
            if state != self.saved:
                self.saved = state
                self._keep(state)
        return []

    def flash(self, flash: WledFlash) -> list[Publication]:
        restore = self.config.restore
        if restore == "saved":
            if self.saved is None:
                log.warning("no flash on %s: its state (%s) is not known yet, it could not be "
                            "restored", self.config.topic, self.status_topic)
                return []
            restore = self.saved
        return [Publication(self.topic, flash_state(flash)),
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
