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
    language_of,
    name_of,
    players,
    readable,
    say,
    short_name,
    to_latin,
    value_key,
)
from controller.adapters.config import AwtrixConfig
from controller.pipeline.scoreboard import foul_name


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
        language, latin = language_of(self.state, cfg.language), not cfg.cyrillic
        white = _c(cfg.text_color)

        def words(key: str, who: Any = None, **fields: Any) -> list[dict[str, str]]:
            """The fixed word ``key`` in fragments, the player's name in their colour."""
            text = say(key, language, latin=latin, name="\0", **fields).replace("  ", " ")
            before, _, after = text.partition("\0")
            parts = [{"t": before, "c": white}]
            if "\0" in text:
                parts.append({"t": self.name(who, language, latin), "c": _c(self.color(who))})
            parts.append({"t": after.rstrip(), "c": white})
            return [p for p in parts if p["t"]]

        if kind == "foul" and cfg.notify_fouls:
            who = data.get("player")
            fouls = " ".join(foul_name(str(f), language).upper() for f in data.get("fouls", []))
            text = [{"t": f"{say('foul', language, latin=latin)} ", "c": _c(cfg.foul_color)},
                    {"t": self.name(who, language, latin), "c": _c(self.color(who))}]
            if fouls:
                text.append({"t": f" {to_latin(fouls) if latin else fouls}", "c": white})
            return [self.notification(text, repeat=1)]
        if kind == "game_over" and cfg.notify_games:
            game_no = data.get("game_no", "")
            if data.get("draw"):
                return [self.notification(words("game_drawn", n=game_no), repeat=1)]
            return [self.notification(words("game_won", data.get("winner"), n=game_no),
                                      repeat=1, rainbow=True)]
        if kind == "match_over" and cfg.notify_games:
            games = ":".join(str(g) for g in data.get("games", []))
            who = data.get("winner")
            if data.get("abandoned"):
                return [self.notification(words("match_ended"), repeat=1)]
            if who is None:
                return [self.notification(words("match_drawn", games=games), repeat=1)]
            return [self.notification(words("match_won", who, games=games), repeat=2,
                                      rainbow=True)]
        return []

    def name(self, who: Any, language: str, latin: bool) -> str:
        """Returns player ``who``'s name as the clock shows it in a notification."""
        return name_of(self.state, who, language=language, latin=latin)
