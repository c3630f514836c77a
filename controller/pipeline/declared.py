"""The facts a referee declares (interfaces §3 ``declare``), typed with the rules' own types.

``DeclareRequest.facts()`` (``controller.pipeline.requests``) makes one, the table checks it
against the match, and fusion keeps one per shot, merging each new declare into it
(``merged``) and reading it into the shot's ``ShotRecord`` (``into``): one
definition of what a declare can say, where there were three hand-spelled dictionaries.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from rules import UNKNOWN, Ball, Forfeit, Foul, Known, Pocket, ShotRecord, Special

T = TypeVar("T")
#: Facts that add to those already declared for the shot (the others replace them).
_ADDED = frozenset({"fouls", "off_table", "pocketed"})


@dataclass(frozen=True, slots=True)
class Declared:
    """Facts declared about one shot. ``stated`` names those the declarer gave (the
    request's keys, a ``"first_contact": null`` or ``"special": null`` among them); a fact
    not stated is ``UNKNOWN`` (or empty, or None for ``special`` and ``unsportsmanlike``).

    ``first_contact`` None: the cue ball touched no ball. ``pocketed``: (ball, pocket) pairs,
    which fusion takes as drops rather than keeping here."""

    stated: frozenset[str] = frozenset()
    fouls: tuple[Foul, ...] = ()
    off_table: tuple[Ball, ...] = ()
    pocketed: tuple[tuple[Ball, Pocket], ...] = ()
    first_contact: Known[Ball | None] = UNKNOWN
    centre_line: Known[bool] = UNKNOWN
    cushions_after_contact: Known[int] = UNKNOWN
    balls_to_cushion: Known[int] = UNKNOWN
    special: Special | None = None
    unsportsmanlike: Forfeit | None = None

    def __bool__(self) -> bool:
        return bool(self.stated)

    def merged(self, new: Declared) -> Declared:
        """Returns these facts with ``new`` declared after them: fouls and balls off the
        table added, every other fact ``new`` states replacing this one's; ``pocketed`` is
        not kept (fusion takes it as drops)."""
        replaced: dict[str, Any] = {name: getattr(new, name) for name in new.stated - _ADDED}
        return dataclasses.replace(
            self, stated=self.stated | (new.stated - {"pocketed"}), pocketed=(),
            fouls=_union(self.fouls, new.fouls), off_table=_union(self.off_table, new.off_table),
            **replaced)

    def into(self, record: ShotRecord) -> ShotRecord:
        """Returns ``record`` with these facts (a fact not stated: unknown, or none)."""
        return dataclasses.replace(
            record, first_contact=self.first_contact, cushion_count=self.cushions_after_contact,
            balls_to_cushion=self.balls_to_cushion, off_table=self.off_table,
            centre_line=self.centre_line, fouls=self.fouls, special=self.special,
            forfeit=self.unsportsmanlike)


def _union(old: tuple[T, ...], new: Iterable[T]) -> tuple[T, ...]:
    return tuple(dict.fromkeys((*old, *new)))
