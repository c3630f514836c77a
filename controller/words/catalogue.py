"""One catalogue of words per language: ``controller/words/catalogue/<code>.json``.

Each file holds everything said in that language, in four parts:

- ``language``: the language's own name, as the pages' language picker shows it;
- ``questions``: the referee core's questions as the table words them (``texts.prompt``);
- ``displays``: the scoreboards' fixed words, each as variants longest first
  (``controller.pipeline.scoreboard.say``);
- ``pages``: the browser pages' words, served to them as ``lang/<code>.json``
  (``controller.web``) and read by the displays for the names of fouls; also the words of
  the house's other speakers: Home Assistant's device and entity names (``ha.*``,
  ``controller.adapters.homeassistant``), the simulated players' names (``sim.players``,
  ``|``-separated; a demo tournament's regulars, ``sim.regulars``), a game's name
  (``game.<id>``, for every game of ``rules.games``).

Adding a language is adding its file with every key of ``en.json`` (``tests/words/
test_catalogue.py`` checks both that and that nothing else is needed). ``BILLIARDS_WORDS``
names another directory of such files (a venue's own wording, or a language being written).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from controller.errors import ControllerError

#: Where the catalogues are, unless ``BILLIARDS_WORDS`` says otherwise.
CATALOGUE = Path(__file__).with_name("catalogue")


class CatalogueError(ControllerError, ValueError):
    """A catalogue file that cannot be read or lacks one of its parts."""


@dataclass(frozen=True, slots=True)
class Words:
    """One language's words."""

    code: str
    name: str
    questions: dict[str, str]
    displays: dict[str, tuple[str, ...]]
    pages: dict[str, str]


def directory() -> Path:
    """Returns the directory of the catalogues (``BILLIARDS_WORDS``, else the package's own)."""
    return Path(os.environ.get("BILLIARDS_WORDS") or CATALOGUE)


@cache
def languages() -> tuple[str, ...]:
    """Returns the codes of the languages there is a catalogue of, English first."""
    codes = sorted(p.stem for p in directory().glob("*.json"))
    return tuple(sorted(codes, key=lambda c: c != "en"))


@cache
def words(code: str) -> Words:
    """Returns the words of language ``code``. Raises CatalogueError (also a ValueError) for
    a language without a catalogue or a catalogue without all its parts."""
    if code not in languages():
        raise CatalogueError(f"no words for language {code!r}; there are {', '.join(languages())}")
    path = directory() / f"{code}.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return Words(code, str(data["language"]), dict(data["questions"]),
                     {k: tuple(v) for k, v in data["displays"].items()}, dict(data["pages"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CatalogueError(f"{path}: {exc}") from exc


def say(key: str, language: str, **fields: Any) -> str:
    """Returns the pages' word ``key`` in ``language`` with its ``fields`` filled in (the
    table's own sayings: its health, ``controller check``). Raises KeyError for an unknown key,
    CatalogueError for a language without a catalogue."""
    return words(language).pages[key].format(**fields)


def page_words(code: str) -> bytes:
    """Returns the pages' words of ``code`` as the JSON the pages load (``lang/<code>.json``).
    Raises CatalogueError for a language without a catalogue."""
    return json.dumps(words(code).pages, ensure_ascii=False).encode()


def page_languages() -> bytes:
    """Returns ``{code: its own name}`` of every language, as JSON (the pages' ``lang/index.json``)."""
    return json.dumps({c: words(c).name for c in languages()}, ensure_ascii=False).encode()
