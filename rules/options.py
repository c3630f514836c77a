"""Game options: typed records, one per game, documented where they are defined.

``MatchOptions`` holds what every game has; each game extends it (``SiberianOptions``, ...).
Each field is made by ``option``: its default, what it means, its allowed values, the rule it
reads and, where the original rules are contested, their own words. ``parse_options`` builds a
game's record from ``new_match``'s options; ``options_doc`` lists it for ``docs/options.md``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from rules.errors import InvalidInput


def option(default: Any, doc: str, choices: tuple[Any, ...] = (), *, rule: str = "",
           seed: str = "") -> Any:
    """Returns a dataclass field for a game option, with its documentation, allowed values,
    the rule it reads (``"ST-14"``) and, where the original text is contested, its own words."""
    return dataclasses.field(default=default, metadata={
        "doc": doc, "choices": choices, "rule": rule, "seed": seed})


#: What a game with calls does with a ball pocketed and no call recorded (``missing_call``).
MISSING_CALL_CHOICES = ("ask", "count", "no_count")


def missing_call_option(doc: str, *, rule: str) -> Any:
    """Returns the ``missing_call`` option every game with calls has: a ball pocketed with no
    call recorded is asked about (``"ask"``, the default), counted as called (``"count"``) or
    taken as not called (``"no_count"``); ``doc`` says so in the game's terms, ``rule`` is the
    rule it reads."""
    return option("ask", doc, MISSING_CALL_CHOICES, rule=rule)


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """Options every game has. Each game's options extend these."""

    break_order: str = option(
        "alternate",
        "who breaks the next game: players take turns, the winner breaks, the loser breaks, or "
        "by lot (the referee is asked who drew the break at the end of each game)",
        ("alternate", "winner", "loser", "lot"), rule="ST-3, TB-3, PP-13",
    )
    presume_called: bool = option(
        True,
        "with no identity reader, one unidentified drop in a called pocket is presumed to be "
        "the called ball, and the ruling says so (a `Noted` `called_presumed` decision with the "
        "ball and pocket; a `declare` of what fell there rules the shot again). Its cost: when "
        "another ball fell in the called pocket while the called ball missed, the wrong ball is "
        "credited: Ten-ball takes the wrong ball for the lowest, Siberian Ten credits the "
        "shooter a ball that belongs to the opponent, pyramid scores the wrong points. Fit an "
        "identity reader for Siberian Ten and pyramid (deploy/README.md). Off: every "
        "unidentified drop is asked (identify)",
    )


OptionsT = TypeVar("OptionsT", bound=MatchOptions)


def parse_options(cls: type[OptionsT], raw: Mapping[str, object]) -> OptionsT:
    """Returns ``cls`` built from ``raw`` with defaults for what is missing.

    Raises InvalidInput naming the key, the value and why, for unknown keys and bad values.
    """
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise InvalidInput(f"unknown option {key!r} (options of this game: {known})")
        kind = hints[key]
        ok = (
            isinstance(value, bool)
            if kind is bool
            else isinstance(value, int) and not isinstance(value, bool)
            if kind is int
            else isinstance(value, kind)
        )
        if not ok:
            raise InvalidInput(f"option {key!r} must be {kind.__name__}, not {value!r}")
        choices = fields[key].metadata.get("choices", ())
        if choices and value not in choices:
            raise InvalidInput(f"option {key!r} must be one of {list(choices)}, not {value!r}")
        values[key] = value
    return cls(**values)


@dataclass(frozen=True, slots=True)
class OptionDoc:
    """One option as ``docs/options.md`` lists it."""

    name: str
    default: Any
    doc: str
    choices: tuple[Any, ...]
    #: The rule it reads (``"ST-14"``), or "".
    rule: str
    #: The original's own words where the reading is contested, or "".
    seed: str


def options_doc(cls: type[MatchOptions]) -> list[OptionDoc]:
    """Returns every option of ``cls`` with its documentation, in definition order."""
    return [
        OptionDoc(f.name, f.default, f.metadata.get("doc", ""), f.metadata.get("choices", ()),
                  f.metadata.get("rule", ""), f.metadata.get("seed", ""))
        for f in dataclasses.fields(cls)
    ]


def options_json(options: MatchOptions) -> dict[str, Any]:
    """Returns the options as the state snapshot lists them."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
