"""The words of the referee core's questions, in the table's language (``language`` setting).

The core asks in data (``rules.state.Question``: kind, topic, what it is about); here a
question, as listed in the state snapshot, becomes its ``prompt``:

    prompt({"kind": "confirm", "topic": "centre_line", "player": 1, "about": {}, ...},
           ["Ann", "Bob"], "ru")
    -> "шары коснулись одного борта: пересёк ли шар центральную линию стола?"

The words are the catalogue's (``controller/words/catalogue/<code>.json``, ``questions``); the
Russian ones are the games' own, from the original rules (борт, биток, луза, заказ, разбой, дом,
пуш-аут). Pockets are named by their ids (``fr``), as on the table drawing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from controller.words import catalogue

#: The languages there are words for: one catalogue each (``controller.words.catalogue``).
LANGUAGES: Final = catalogue.languages()
if TYPE_CHECKING:
    Language = str
else:  # a Literal of the catalogues there are, for the configurations' validation
    Language = Literal[LANGUAGES]

#: Per language: a template per topic (``<topic>.many``: for more than one ball), then the
#: words the templates are made of (the ``questions`` of its catalogue). Fields: the question's
#: ``about``, ``player`` and ``to`` (names), ``count``, ``where`` (the pocket or the ball
#: return), ``fell``, ``clean``, ``reason``.
WORDS: Final[dict[str, dict[str, str]]] = {code: catalogue.words(code).questions for code in LANGUAGES}


class _Fields(dict[str, Any]):
    """Template fields; a parameter the question lacks is shown as ``?``."""

    def __missing__(self, key: str) -> str:
        return "?"


def prompt(question: Mapping[str, Any], players: Sequence[str], language: str = "en") -> str:
    """Returns the question (as listed in the snapshot) worded in ``language`` (English for a
    language without words); a topic with no words yet is shown by its data, never dropped."""
    words = WORDS.get(language, WORDS["en"])
    topic = str(question.get("topic"))
    about = dict(question.get("about") or {})
    if topic not in words:
        shown = ", ".join(f"{k}={v}" for k, v in about.items())
        return f"{topic}{' (' + shown + ')' if shown else ''}?"

    def name(index: Any) -> str:
        ok = isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(players)
        return players[index] if ok else str(index)

    count = int(question.get("count", 1))
    fields = _Fields({k: v for k, v in about.items() if v is not None})
    pocket = about.get("pocket")
    fields.update(
        player=name(question.get("player")),
        to=name(about.get("to")),
        count=count,
        where=words["where.pocket"].format(pocket=pocket) if pocket else words["where.return"],
        fell=", ".join(words["fell"].format(ball=b, pocket=p) for b, p in about.get("fell", ())),
        clean=words["clean"] if about.get("clean") else "",
        reason=words.get(f"reason.{about.get('reason')}", str(about.get("reason"))),
    )
    if about.get("channels"):  # the channels a gap in the sensors' data lost
        fields["channels"] = ", ".join(map(str, about["channels"]))
    variant = f"{topic}.many" if count != 1 else f"{topic}.gaps" if about.get("gaps") else ""
    if about.get("gaps") == 1:
        variant = f"{topic}.gap"
    return words[variant if variant in words else topic].format_map(fields)


def with_prompts(snapshot: dict[str, Any], language: str) -> dict[str, Any]:
    """Returns the state snapshot with each open question's ``prompt`` in ``language``."""
    questions = snapshot.get("questions") or []
    if not questions:
        return snapshot
    players = [p["name"] for p in snapshot.get("players", ())]
    return {**snapshot, "questions": [{**q, "prompt": prompt(q, players, language)}
                                      for q in questions]}
