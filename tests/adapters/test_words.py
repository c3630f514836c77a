"""The displays' fixed words in the table's language: Russian where the device's font has
Cyrillic, transliterated where it has not, each fitting the widths the layouts assume."""

from __future__ import annotations

import re
from typing import Any

import pytest

from controller.adapters import AdaptersConfig
from controller.adapters.awtrix import AwtrixAdapter
from controller.adapters.config import AwtrixConfig, TextDisplayConfig
from controller.adapters.text import TextDisplayAdapter, layout
from controller.pipeline.scoreboard import WORDS, say, to_latin
from controller.pipeline.table import display
from tests.adapters.harness import B, rig
from tests.broker import Broker

#: The words a text panel's lines show (the others are AWTRIX notifications, which scroll).
LINE_WORDS = ["table", "free", "status.break", "status.awaiting", "status.shootout", "wins",
              "draw", "game_over", "in_hand", "shot", "game", "game_race"]
FIELDS: dict[str, Any] = {"name": "АЛЕКСАНДРА", "n": 123, "race": 11, "table": "T12",
                          "games": "10:9"}


def tokens(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]{2,}", text.upper()))


#: Words only English has (МАТЧ transliterated is MATCH: that one is Russian too).
ENGLISH_ONLY = (set().union(*(tokens(v) for vs in WORDS["en"].values() for v in vs))
                - set().union(*(tokens(to_latin(v)) for vs in WORDS["ru"].values() for v in vs)))


def test_every_word_has_both_languages() -> None:
    assert WORDS["en"].keys() == WORDS["ru"].keys()
    for key, variants in WORDS["ru"].items():
        fields = set(re.findall(r"\{(\w+)\}", " ".join(WORDS["en"][key])))
        for variant in variants:
            assert set(re.findall(r"\{(\w+)\}", variant)) == fields, key
            assert not tokens(variant) & ENGLISH_ONLY, key


@pytest.mark.parametrize("cols", [10, 12, 16])
@pytest.mark.parametrize("latin", [False, True])
@pytest.mark.parametrize("language", ["en", "ru"])
def test_every_line_word_fits_the_panels_uncut(cols: int, latin: bool, language: str) -> None:
    """10 columns: the 64×32 matrix; 12: where BALL IN HAND starts to fit; 16: the 2×16 LCD.
    Transliteration lengthens (Ш is SH): the words are measured after it."""
    for key in LINE_WORDS:
        shown = say(key, language, cols=cols, latin=latin, **FIELDS)
        assert len(shown) <= cols, (key, shown)
        if "{name}" in WORDS[language][key][0]:
            assert "АЛЕ" in shown, (key, shown)  # the name keeps at least 3 letters
        if latin:
            assert re.sub("[АЛЕКСНДР]", "", shown).isascii(), shown  # all but the name


def test_the_longest_form_that_fits_is_taken() -> None:
    assert say("in_hand", "ru", cols=16) == "ШАР С РУКИ"
    assert say("in_hand", "ru", cols=10, latin=True) == "S RUKI"  # SHAR S RUKI is 11
    assert say("in_hand", "ru", cols=10) == "ШАР С РУКИ"
    assert say("game_race", "ru", cols=16, n=2, race=3) == "ПАРТИЯ 2 ДО 3"
    assert say("game_race", "ru", cols=10, n=2, race=3) == "П2 ДО 3"
    assert say("wins", "ru", cols=16, name="АННА") == "ПОБЕДА: АННА"
    assert say("wins", "ru", cols=10, name="АННА") == "ПОБЕДА АНН"


STATES: list[dict[str, Any]] = [
    {"status": "in_play", "ball_in_hand": "kitchen", "shot": 7},
    {"status": "in_play", "ball_in_hand": "none", "shot": 17},
    {"status": "break"}, {"status": "awaiting"}, {"status": "shootout"},
    {"status": "game_over", "winner": 1}, {"status": "match_over", "winner": None, "draw": True},
    {"status": "match_over", "winner": None, "draw": False},
]


@pytest.mark.parametrize("cyrillic", [True, False])
@pytest.mark.parametrize("cols", [10, 16, 20])
def test_a_russian_panel_shows_no_english_word(cols: int, cyrillic: bool) -> None:
    base = {"language": "ru", "game": "pyramid", "to_shoot": 0, "game_no": 2, "race_to": 3,
            "players": [{"name": "Пётр Щукин", "score": 12}, {"name": "Юлия", "score": 7}]}
    panel = TextDisplayAdapter(TextDisplayConfig(cols=cols, rows=4, cyrillic=cyrillic), B)
    seen = []
    for state in [{"status": "idle", "players": [], "language": "ru"},
                  *({**base, **s} for s in STATES)]:
        [pub] = panel.on_state(state)
        lines = pub.payload["lines"]  # type: ignore[index]
        assert {len(line) for line in lines} == {cols}
        seen += lines
        assert not tokens(" ".join(lines)) & ENGLISH_ONLY, lines
    text = "\n".join(seen)
    if cyrillic:
        assert "ШАР С РУКИ" in text and "УДАР 17" in text and "БУЛИТЫ" in text
        assert ("ПОБЕДА ЮЛИ" if cols == 10 else "ПОБЕДА: ЮЛИЯ") in text
    else:
        assert text.isascii()
        assert "S RUKI" in text and "UDAR 17" in text and "BULITY" in text and "POBEDA" in text


def test_a_panel_set_to_english_keeps_english_on_a_russian_table() -> None:
    state = {"language": "ru", "status": "in_play", "ball_in_hand": "kitchen", "game_no": 1,
             "race_to": 3, "to_shoot": 0, "players": [{"name": "Ann"}, {"name": "Bob"}]}
    assert layout(state, 10, 4, language="en")[2:] == ["IN HAND   ", "G1 RACE 3 "]
    panel = TextDisplayAdapter(TextDisplayConfig(panel="64x32", language="en"), B)
    [pub] = panel.on_state(state)
    assert pub.payload["lines"][2:] == ["IN HAND   ", "G1 RACE 3 "]  # type: ignore[index]


def test_the_tables_own_display_line_is_in_its_language() -> None:
    snap = {"players": [{"name": "Анна", "score": 71}, {"name": "Bob", "score": 40}],
            "game": "pyramid", "to_shoot": 0, "status": "game_over", "winner": 0}
    assert display(snap, "ru")["lines"][-1] == "ПОБЕДА: АННА"
    assert display(snap, "en")["lines"][-1] == "АННА WINS"


#: Pixel advance of the AWTRIX 3 font's glyphs (Blueforcer/awtrix3 src/AwtrixFont.h, font
#: version 20240129, the glyph table's "advance cursor"): 4 unless listed.
AWTRIX_ADVANCE = {" ": 2, ":": 2, "I": 2, "M": 6, "N": 5, "Q": 5, "W": 6, "Д": 6, "Ж": 6, "И": 5,
                  "Й": 5, "М": 6, "Ф": 6, "Ц": 5, "Ш": 6, "Щ": 7, "Ъ": 5, "Ы": 6, "Ю": 6}


def awtrix_pixels(text: str) -> int:
    return sum(AWTRIX_ADVANCE.get(ch, 4) for ch in text.upper())


@pytest.mark.parametrize(("language", "cyrillic", "name", "shown"), [
    ("en", True, "Ann", "FOUL ANN"), ("ru", True, "Лев", "ФОЛ ЛЕВ"),
    ("ru", False, "Лев", "FOL LEV")])
def test_a_foul_names_the_player_within_the_clocks_32_pixels(
        language: str, cyrillic: bool, name: str, shown: str) -> None:
    """The clock scrolls what is wider than its 32×8 screen: the word and a short name are on
    it at once, in Russian as in English (the Russian word is no wider)."""
    clock = AwtrixAdapter(AwtrixConfig(prefix="c", cyrillic=cyrillic, language=language))
    clock.on_state({"status": "in_play", "game": "ten-ball", "to_shoot": 1,
                    "players": [{"name": name}, {"name": "Bob"}]})
    [note] = clock.on_event({"type": "foul", "data": {"player": 0, "fouls": ["touched_ball"]}})
    parts = [p["t"] for p in note.payload["text"]]  # type: ignore[index]
    assert "".join(parts[:2]) == shown
    assert awtrix_pixels(shown) <= 32
    assert awtrix_pixels(say("foul", language, latin=not cyrillic)) <= awtrix_pixels("FOUL")


async def test_a_russian_table_notifies_a_clock_in_russian(broker: Broker) -> None:
    config = AdaptersConfig(awtrix=[AwtrixConfig(prefix="ru"),
                                    AwtrixConfig(prefix="old", cyrillic=False)])
    async with rig(broker, config, "ru/notify", "old/notify", language="ru") as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Анна", "Bob"]})
        await table.foul(["touched_ball"])
        notes = dict([(await device.next())[:2], (await device.next())[:2]])
        assert [p["t"] for p in notes["ru/notify"]["text"]] == ["ФОЛ ", "АННА", " КАСАНИЕ ШАРА"]
        assert [p["t"] for p in notes["old/notify"]["text"]] == ["FOL ", "ANNA", " KASANIE SHARA"]
        await table.event("game_over", {"game_no": 2, "winner": 1, "draw": False,
                                        "reason": "ten_pocketed", "games": [0, 2]})
        await table.event("game_over", {"game_no": 3, "winner": None, "draw": True, "games": [0, 2]})
        await table.event("match_over", {"winner": 1, "games": [0, 2]})
        await table.event("match_over", {"winner": None, "games": [1, 1]})
        await table.event("match_over", {"winner": None, "abandoned": True, "games": [0, 0]})
        said: dict[str, list[list[str]]] = {"ru/notify": [], "old/notify": []}
        for _ in range(10):
            topic, payload, _ = await device.next()
            said[topic].append([p["t"] for p in payload["text"]])
        assert said["ru/notify"] == [["ПАРТИЯ 2: ПОБЕДА ", "BOB"], ["ПАРТИЯ 3: НИЧЬЯ"],
                                     ["ПОБЕДА В МАТЧЕ 0:2: ", "BOB"], ["МАТЧ: НИЧЬЯ 1:1"],
                                     ["МАТЧ ПРЕРВАН"]]
        assert said["old/notify"] == [["PARTIIA 2: POBEDA ", "BOB"], ["PARTIIA 3: NICHIA"],
                                      ["POBEDA V MATCHE 0:2: ", "BOB"], ["MATCH: NICHIA 1:1"],
                                      ["MATCH PRERVAN"]]


async def test_a_russian_table_puts_russian_words_on_its_panels(broker: Broker) -> None:
    config = AdaptersConfig(text=[TextDisplayConfig(panel="64x32")])
    async with rig(broker, config, f"{B}/display/+", language="ru") as (table, device):
        assert (await device.next())[1]["lines"][:2] == ["STOL T1   ", "SVOBODEN  "]
        await table.request("new_match", {"game": "ten-ball", "players": ["Анна", "Борис"],
                                          "race_to": 3})
        await table.foul(["touched_ball"])
        assert (await device.next())[1]["lines"] == [">ANNA    0", " BORIS   0", "RAZBOI    ",
                                                     "P1 DO 3   "]
        assert (await device.next())[1]["lines"] == [" ANNA    0", ">BORIS   0", "S RUKI    ",
                                                     "P1 DO 3   "]
        await device.nothing()
