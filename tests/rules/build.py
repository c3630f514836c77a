"""Short builders for shot records in rules tests: ``shot(call=(3, "fl"), drops=[(3, "fl")])``."""

from __future__ import annotations

from typing import Any

from rules import (
    UNKNOWN,
    Answered,
    Call,
    Drop,
    Foul,
    MatchSetup,
    NewMatch,
    Pocket,
    Rail,
    Referee,
    ShotKind,
    ShotPlayed,
    ShotRecord,
    Special,
)
from rules.decisions import Decision


def shot(
    call: tuple[Any, str] | list[tuple[Any, str]] | None = None,
    drops: list[tuple[Any, str | None]] = (),  # type: ignore[assignment]
    first: Any = UNKNOWN,
    cushions: Any = UNKNOWN,
    kind: str = "normal",
    off: tuple[Any, ...] = (),
    fouls: tuple[str, ...] = (),
    special: str | None = None,
    centre: Any = UNKNOWN,
    cue_sensed: bool = True,
) -> ShotRecord:
    calls: list[tuple[Any, str]] = [] if call is None else call if isinstance(call, list) else [call]
    return ShotRecord(
        calls=tuple(Call(b, Pocket(p)) for b, p in calls),
        kind=ShotKind(kind),
        drops=tuple(Drop(Pocket(p) if p else None, b) for b, p in drops),
        cue_sensed=cue_sensed,
        first_contact=first,
        cushions=cushions if cushions is UNKNOWN else tuple(Rail(r) for r in cushions),
        off_table=tuple(off),
        centre_line=centre,
        fouls=tuple(Foul(f) for f in fouls),
        special=Special(special) if special else None,
    )


def new(game: str = "ten-ball", players: tuple[str, ...] = ("Ann", "Bob"), race_to: int = 1,
        breaker: int = 0, **options: Any) -> Referee:
    ref = Referee()
    ref.feed(NewMatch(MatchSetup(game, players, race_to, breaker, options)))
    return ref


def play(ref: Referee, record: ShotRecord | None = None, **kw: Any) -> list[Decision]:
    return ref.feed(ShotPlayed(record if record is not None else shot(**kw)))


def answer(ref: Referee, value: Any, question: str | None = None) -> list[Decision]:
    return ref.feed(Answered(question, value))


def names(decisions: list[Decision]) -> list[str]:
    return [type(d).__name__ for d in decisions]
