"""Simple LED text displays (ESPHome LCD or LED matrix): the score as lines sized for the panel.

Published retained on ``B/display/<name>`` (``<name>``: the panel, ``2x16`` or ``64x32``,
unless configured), so a display that reboots shows the score at once:
``{"v": 1, "panel": "2x16", "cols": 16, "rows": 2, "lines": [">ANN          4",
" BOB          5"], "text": ">ANN          4\\n BOB          5"}`` — every line exactly
``cols`` characters, exactly ``rows`` lines; ``format = "text"`` sends only ``text``.

A 2×16 character LCD (HD44780) shows two players a line each (three or four share the
lines); a 64×32 matrix in a 6×8 pixel font holds 10 characters × 4 lines: the players, then
the state of play (shot, ball in hand, the winner) and the game within the race. The words
(``ШАР С РУКИ`` / ``BALL IN HAND``, ``УДАР 7``, ``ПАРТИЯ 2 ДО 3``) are in the table's
language (its state's ``language``) unless the display's ``language`` says otherwise, each in
the longest form that fits the line (``controller.pipeline.scoreboard.say``), transliterated when the
display's font has no Cyrillic.
"""

from __future__ import annotations

import math
from typing import Any

from controller.adapters.base import (
    Adapter,
    Publication,
    language_of,
    players,
    readable,
    say,
    short_name,
    table_id,
    value_key,
)
from controller.adapters.config import TextDisplayConfig
from controller.pipeline.scoreboard import WORDS


def cell(mark: str, name: str, value: str, width: int) -> str:
    """Returns ``mark``, ``name`` cut to fit, and ``value`` flush right: exactly ``width`` chars."""
    room = width - len(mark) - len(value) - 1
    if room < 1:
        return f"{mark}{value}"[:width].ljust(width)
    return f"{mark}{name[:room]:<{room}} {value}"


def layout(state: dict[str, Any], cols: int, rows: int, table: str = "", *,
           language: str = "en", latin: bool = False) -> list[str]:
    """Returns exactly ``rows`` lines of exactly ``cols`` characters for this state, its fixed
    words in ``language`` (in Latin letters with ``latin``)."""
    ps = players(state)
    lines: list[str] = []
    if not ps or state.get("status") == "idle":
        lines = [say("table", language, cols=cols, latin=latin, table=table.upper()).strip(),
                 say("free", language, cols=cols, latin=latin)]
    else:
        key = value_key(state)
        to_shoot = state.get("to_shoot")
        cells = [(">" if to_shoot == i else " ", short_name(p, 12), str(p.get(key, 0)))
                 for i, p in enumerate(ps)]
        per_line = max(1, math.ceil(len(cells) / rows))
        width = cols // per_line
        for start in range(0, len(cells), per_line):
            lines.append("".join(cell(m, n, v, width) for m, n, v in cells[start:start + per_line]))
        lines.extend(info_lines(state, ps, cols, language, latin))
    lines = [line[:cols].ljust(cols) for line in lines[:rows]]
    return lines + [" " * cols] * (rows - len(lines))


def info_lines(state: dict[str, Any], ps: list[dict[str, Any]], cols: int,
               language: str = "en", latin: bool = False) -> list[str]:
    """Returns the state of play (the shot, ball in hand, the winner) and the game within the
    race, each fitted to ``cols`` in ``language``."""
    def word(key: str, **fields: Any) -> str:
        return say(key, language, cols=cols, latin=latin, **fields)

    status = state.get("status")
    winner = state.get("winner")
    if status in ("game_over", "match_over"):
        if isinstance(winner, int) and 0 <= winner < len(ps):
            first = word("wins", name=short_name(ps[winner], 12))
        else:
            first = word("draw") if state.get("draw") else word("game_over")
    elif status == "in_play":
        in_hand = state.get("ball_in_hand") not in (None, "none")
        first = word("in_hand") if in_hand else word("shot", n=state.get("shot", 0))
    elif f"status.{status}" in WORDS["en"]:
        first = word(f"status.{status}")
    else:
        first = str(status).upper()
    game_no = state.get("game_no", 1)
    if state.get("race_to"):
        return [first, word("game_race", n=game_no, race=state["race_to"])]
    return [first, word("game", n=game_no)]


class TextDisplayAdapter(Adapter):
    """One display."""

    def __init__(self, config: TextDisplayConfig, base_topic: str) -> None:
        self.config = config
        self.table = table_id(base_topic)
        self.topic = config.topic or f"{base_topic}/display/{config.name or config.panel}"
        self._shown: Any = None

    def payload(self, state: dict[str, Any]) -> dict[str, Any] | str:
        cols, rows = self.config.size
        lines = layout(readable(state, self.config.cyrillic), cols, rows, self.table,
                       language=language_of(state, self.config.language),
                       latin=not self.config.cyrillic)
        text = "\n".join(lines)
        if self.config.format == "text":
            return text
        return {"v": 1, "panel": self.config.panel, "cols": cols, "rows": rows, "lines": lines,
                "text": text}

    def on_state(self, state: dict[str, Any]) -> list[Publication]:
        payload = self.payload(state)
        if payload == self._shown:
            return []
        self._shown = payload
        return [Publication(self.topic, payload, retain=True)]
