"""Cyrillic names on displays whose font has none: in Latin letters, unless the device's
font has Cyrillic (``cyrillic = true``)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.adapters.awtrix import AwtrixAdapter
from controller.adapters.base import to_latin
from controller.adapters.config import AwtrixConfig, TextDisplayConfig
from controller.adapters.text import TextDisplayAdapter

STATE: dict[str, Any] = {"game": "pyramid", "status": "in_play", "to_shoot": 1, "shot": 4,
                         "game_no": 1, "race_to": 3,
                         "players": [{"name": "Пётр Щукин", "score": 12, "games": 0},
                                     {"name": "Юлия", "score": 7, "games": 1}]}


@pytest.mark.parametrize(("name", "shown"), [
    ("Пётр Щукин", "Petr Shchukin"),
    ("ЖЕНЯ", "ZHENIA"),
    ("Хачатурян", "Khachaturian"),
    ("Цой Ёлка", "Tsoi Elka"),
    ("Объедкин", "Obieedkin"),
    ("Ольга Їжак", "Olga Izhak"),
    ("José Müller", "Jose Muller"),
    ("Ann 李", "Ann ?"),
    ("Bob", "Bob"),
])
def test_names_in_latin_letters(name: str, shown: str) -> None:
    assert to_latin(name) == shown


def test_a_text_panel_shows_cyrillic_names_transliterated_unless_its_font_has_cyrillic() -> None:
    plain = TextDisplayAdapter(TextDisplayConfig(panel="2x16"), "billiards/club/t1")
    [shown] = plain.on_state(STATE)
    assert shown.payload["lines"][:2] == [" PETR SHCHUKI 12",  # type: ignore[index]
                                          ">IULIIA" + " " * 8 + "7"]
    full = TextDisplayAdapter(TextDisplayConfig(panel="2x16", cyrillic=True), "billiards/club/t1")
    [shown] = full.on_state(STATE)
    assert shown.payload["lines"][0].startswith(" ПЁТР ЩУКИН")  # type: ignore[index]


def test_an_awtrix_clock_shows_cyrillic_names_transliterated_unless_its_font_has_cyrillic() -> None:
    clock = AwtrixAdapter(AwtrixConfig(prefix="awtrix/t1", cyrillic=False))  # before 0.95
    [app] = clock.on_state(STATE)
    words = [part["t"] for part in app.payload["text"]]  # type: ignore[index]
    assert words == ["PET ", "12", ":", "7", " IUL"]
    foul = clock.on_event({"type": "foul", "data": {"player": 1, "fouls": ["touched_ball"]}})
    assert "IUL" in str(foul[0].payload)
    own = AwtrixAdapter(AwtrixConfig(prefix="awtrix/t1"))  # AWTRIX 3 from 0.95: Cyrillic
    [app] = own.on_state(STATE)
    assert [part["t"] for part in app.payload["text"]][0] == "ПЁТ "  # type: ignore[index]
