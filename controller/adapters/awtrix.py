"""AWTRIX 3 pixel clocks (Ulanzi TC001 and others): the score as a custom app, fouls and
game ends as notifications (AWTRIX 3 MQTT API).

- ``<prefix>/custom/<app>`` (retained, so a rebooted clock gets it back): the score in
  coloured fragments, ``{"text": [{"t": "ANN ", "c": "FF4040"}, …], "textCase": 2,
  "duration": 10}``; an empty payload (no match) deletes the app.
- ``<prefix>/notify`` (never retained): ``{"text": [...], "duration": 5, "stack": false,
  "wakeup": true, …}`` on a foul, a game won or drawn, and the end of the match.
"""

from __future__ import annotations

from typing import Any

from controller.adapters.base import (
    Adapter,
    Publication,
    name_of,
    players,
    readable,
    short_name,
    value_key,
)
from controller.adapters.config import AwtrixConfig


def _c(color: str) -> str:
    return color.lstrip("#").upper()  # fragments take the hex value without "#"


class AwtrixAdapter(Adapter):
    """One clock."""

    def __init__(self, config: AwtrixConfig) -> None:
        self.config = config
        self.app_topic = f"{config.prefix}/custom/{config.app}"
        self.notify_topic = f"{config.prefix}/notify"
        self.state: dict[str, Any] | None = None
        self._shown: Any = None

    def color(self, index: Any) -> str:
        colors = self.config.colors
        return colors[index % len(colors)] if isinstance(index, int) else self.config.text_color

    def app(self, state: dict[str, Any]) -> dict[str, Any] | str:
        """Returns the custom app's payload for this state ("" deletes the app)."""
        ps = players(state)
        if not ps or state.get("status") == "idle":
            return ""
        key, n = value_key(state), self.config.name_chars
        white = _c(self.config.text_color)
        text: list[dict[str, str]] = []
        if len(ps) == 2:
            a, b = (_c(self.color(0)), _c(self.color(1)))
            text = [{"t": f"{short_name(ps[0], n)} ", "c": a}, {"t": str(ps[0].get(key, 0)), "c": a},
                    {"t": ":", "c": white},
                    {"t": str(ps[1].get(key, 0)), "c": b}, {"t": f" {short_name(ps[1], n)}", "c": b}]
        else:
            for i, p in enumerate(ps):
                text.append({"t": f"{' ' if i else ''}{short_name(p, n)} {p.get(key, 0)}",
                             "c": _c(self.color(i))})
        payload: dict[str, Any] = {"text": text, "textCase": 2, "duration": self.config.duration}
        if self.config.icon:
            payload["icon"] = self.config.icon
        if self.config.lifetime:
            payload["lifetime"] = self.config.lifetime
        if self.config.save:
            payload["save"] = True
        return payload

    def on_state(self, state: dict[str, Any]) -> list[Publication]:
        state = readable(state, self.config.cyrillic)
        self.state = state
        app = self.app(state)
        if app == self._shown:
            return []
        self._shown = app
        return [Publication(self.app_topic, app, retain=True)]

    def notification(self, text: list[dict[str, str]], **extra: Any) -> Publication:
        payload: dict[str, Any] = {"text": text, "textCase": 2,
                                   "duration": self.config.notify_duration, "stack": False,
                                   "wakeup": self.config.wakeup, **extra}
        if self.config.sound:
            payload["sound"] = self.config.sound
        if self.config.icon:
            payload["icon"] = self.config.icon
        return Publication(self.notify_topic, payload)

    def on_event(self, event: dict[str, Any]) -> list[Publication]:
        kind, data = event.get("type"), event.get("data") or {}
        cfg = self.config
        if kind == "foul" and cfg.notify_fouls:
            who = data.get("player")
            fouls = " ".join(str(f).replace("_", " ").upper() for f in data.get("fouls", []))
            text = [{"t": "FOUL ", "c": _c(cfg.foul_color)},
                    {"t": name_of(self.state, who), "c": _c(self.color(who))}]
            if fouls:
                text.append({"t": f" {fouls}", "c": _c(cfg.text_color)})
            return [self.notification(text, repeat=1)]
        if kind == "game_over" and cfg.notify_games:
            if data.get("draw"):
                text = [{"t": f"GAME {data.get('game_no', '')} DRAWN".replace("  ", " "),
                         "c": _c(cfg.text_color)}]
                return [self.notification(text, repeat=1)]
            who = data.get("winner")
            text = [{"t": name_of(self.state, who), "c": _c(self.color(who))},
                    {"t": f" WINS GAME {data.get('game_no', '')}".rstrip(), "c": _c(cfg.text_color)}]
            return [self.notification(text, repeat=1, rainbow=True)]
        if kind == "match_over" and cfg.notify_games:
            games = ":".join(str(g) for g in data.get("games", []))
            who = data.get("winner")
            if data.get("abandoned"):
                text = [{"t": "MATCH ENDED", "c": _c(cfg.text_color)}]
                return [self.notification(text, repeat=1)]
            if who is None:
                text = [{"t": f"MATCH DRAWN {games}".rstrip(), "c": _c(cfg.text_color)}]
                return [self.notification(text, repeat=1)]
            text = [{"t": name_of(self.state, who), "c": _c(self.color(who))},
                    {"t": f" WINS THE MATCH {games}".rstrip(), "c": _c(cfg.text_color)}]
            return [self.notification(text, repeat=2, rainbow=True)]
        return []
