"""What commissioning says, at the terminal and on the page: the one catalogue's words
(``controller/words/catalogue/<code>.json``, the pages' keys ``commission.*``).

What a session finds and suggests is data, ``Said``: a key and its fields; ``say`` words it in
a language (English where a language lacks the key):

    say(Said("f.swapped", {"other": "beam.hr"}), "ru") -> "на его шаг ответил beam.hr"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from controller.words import catalogue


@dataclass(frozen=True, slots=True)
class Said:
    """Words as data: the key ``commission.<key>`` of the catalogue, and its fields."""

    key: str
    fields: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "fields": dict(self.fields)}


class _Fields(dict[str, Any]):
    """Template fields; a field the words lack is shown as ``?``, never dropped."""

    def __missing__(self, key: str) -> str:
        return "?"


def say(said: Said | str, language: str = "en", **fields: Any) -> str:
    """Returns ``said`` (or the key ``said`` with ``fields``) in ``language``.

    Raises KeyError for a key the English catalogue does not have.
    """
    if isinstance(said, str):
        said = Said(said, fields)
    english = catalogue.words("en").pages
    words = catalogue.words(language).pages if language in catalogue.languages() else english
    key = f"commission.{said.key}"
    return (words.get(key) or english[key]).format_map(_Fields(said.fields))
