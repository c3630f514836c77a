"""What every scoreboard shows of a table's state, defined once for ``B/display``
(``controller.pipeline.table.display``) and the display adapters (``controller.adapters``): the short
names, the number shown, and the displays' fixed words in the table's language.

The language is the table's ``language`` setting (``en`` or ``ru``), which the table carries in
its ``B/state`` (``language``); an adapter may override it per device. A display whose font
has no Cyrillic gets the Russian words transliterated (``to_latin``), measured after the
transliteration: ``ШАР С РУКИ`` is ``SHAR S RUKI``, one letter longer.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Final

from controller.words import catalogue
from controller.words.texts import LANGUAGES
from rules.games import find_spec

#: Per language, each fixed word of the displays as variants, longest first: a display takes
#: the first that fits its width (``say``). ``{name}`` is a player's name, cut to the room left
#: (at least 3 letters); the other fields are numbers. The ``displays`` of each language's
#: catalogue (``controller/words/catalogue/<code>.json``); Russian as the original rules word it:
#: «с руки», «разбой», «булиты», «партия», «фол».
WORDS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    code: catalogue.words(code).displays for code in LANGUAGES}

#: A name is never cut shorter than this to make a word fit (a shorter variant is taken first).
NAME_MIN = 3


def language_of(state: dict[str, Any] | None, override: str | None = None) -> str:
    """Returns the displays' language: ``override`` (a device's setting) if given, else the
    table's (``language`` in its state), else English."""
    wanted = override or (state or {}).get("language")
    return wanted if wanted in LANGUAGES else "en"


def say(key: str, language: str, *, cols: int | None = None, latin: bool = False,
        **fields: Any) -> str:
    """Returns the fixed word ``key`` in ``language`` with ``fields`` filled: the first variant
    that fits ``cols`` characters (any, without ``cols``), in Latin letters with ``latin``.

    ``name`` is cut to the room its variant leaves; the last variant is returned even when it
    does not fit (the display cuts it). Raises KeyError for an unknown key.
    """
    variants = WORDS.get(language, WORDS["en"])[key]
    name = str(fields.pop("name", ""))
    chosen = ""
    for variant in variants:
        words = variant.format(name="", **fields)
        if latin:
            words = to_latin(words)
        room = len(name) if cols is None else cols - len(words)
        chosen = (to_latin(variant) if latin else variant).format(
            name=name[:max(room, NAME_MIN)], **fields)
        if cols is None or len(chosen) <= cols:
            return chosen
    return chosen


def foul_name(code: str, language: str) -> str:
    """Returns a foul's name in ``language`` as the pages name it (the ``pages`` of its
    catalogue: one list of foul names for pages and displays), or the code in words when it
    has none."""
    return catalogue.words(language if language in LANGUAGES else "en").pages.get(
        f"foul.{code}", code.replace("_", " "))


def short_name(player: dict[str, Any], chars: int) -> str:
    """Returns the first ``chars`` letters of the player's name, in capitals (``?`` without one)."""
    return str(player.get("name", "?")).upper()[:chars]


def value_key(state: dict[str, Any]) -> str:
    """Returns which number a scoreboard shows: the games won where they are the game's score
    (its record's ``score_field``), else the score."""
    spec = find_spec(state.get("game"))
    return spec.score_field if spec else "score"


#: Russian (and Ukrainian, Belarusian) letters in Latin ones, for displays whose font has no
#: Cyrillic (close to the passport transliteration of Russia, ICAO 9303).
CYRILLIC_TO_LATIN: dict[str, str] = {
    "А": "A", "Б": "B", "В": "V", "Г": "G", "Д": "D", "Е": "E", "Ё": "E", "Ж": "ZH", "З": "Z",
    "И": "I", "Й": "I", "К": "K", "Л": "L", "М": "M", "Н": "N", "О": "O", "П": "P", "Р": "R",
    "С": "S", "Т": "T", "У": "U", "Ф": "F", "Х": "KH", "Ц": "TS", "Ч": "CH", "Ш": "SH",
    "Щ": "SHCH", "Ъ": "IE", "Ы": "Y", "Ь": "", "Э": "E", "Ю": "IU", "Я": "IA",
    "Є": "IE", "І": "I", "Ї": "I", "Ґ": "G", "Ў": "U",
}


def to_latin(text: str) -> str:
    """Returns ``text`` in letters every display font has: Cyrillic transliterated
    (``CYRILLIC_TO_LATIN``), accents dropped, anything else that is not ASCII as ``?``."""
    out = []
    for i, ch in enumerate(text):
        upper = ch.upper()
        if upper in CYRILLIC_TO_LATIN:
            latin = CYRILLIC_TO_LATIN[upper]
            if ch != upper:
                latin = latin.lower()
            elif text[i + 1:i + 2].islower():  # Щукин -> Shchukin, ЩУКИН -> SHCHUKIN
                latin = latin.capitalize()
            out.append(latin)
            continue
        plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
        out.append(plain if plain or ch.isascii() else "?")
    return "".join(out)
