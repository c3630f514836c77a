"""What really happened on a shot, as an independent physics engine played it; and the
ruling a referee with perfect facts gives it, stated apart from ``rules/``.

A ``Happening`` is one physical event of a shot (a ball–ball contact, a cushion touch, a
ball into a pocket) with its time and speed; ``ShotTruth`` is what a referee standing at the
table knows of the shot: what fell where, the first contact, the cushions after it, the
object balls that reached a cushion. ``TenBallOracle`` rules a game of Ten-ball over those
facts (the seed's rules 9.3–9.11 as docs/rules.md numbers them TB-1…TB-13), so a
disagreement with the pipeline shows whether fusion, the rules or the oracle is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vocabulary import SAME_RAIL, Pocket, Rail

Ball = int | str  # an object ball's number, or "cue"
CUE = "cue"


@dataclass(frozen=True, slots=True)
class Happening:
    """One physical event: ``kind`` is ``contact`` (balls ``a`` and ``b``), ``cushion`` (ball
    ``a`` on ``rail``), ``pocket`` (ball ``a`` into ``pocket``) or ``centre`` (ball ``a``'s
    centre crossed the table's centre line: no sensor sees it); ``speed`` is the relative
    speed of a contact, the speed into a cushion (normal to it) or into a pocket, in m/s."""

    t: float
    kind: str
    a: Ball
    b: Ball | None = None
    rail: Rail | None = None
    pocket: Pocket | None = None
    speed: float = 0.0
    jaw: bool = False  # a cushion touch on a pocket's jaw (a rattle)


def one_rail(rail: Rail) -> str:
    """Returns the rail a segment belongs to: a long rail's two halves are one cushion."""
    twin = SAME_RAIL.get(rail)
    return min(rail, twin) if twin is not None else str(rail)


@dataclass(frozen=True, slots=True)
class ShotTruth:
    """The facts of one shot as a referee at the table sees them."""

    shooter: int
    is_break: bool
    call: tuple[int, Pocket] | None
    drops: tuple[tuple[Ball, Pocket], ...]
    first_contact: int | None
    cushions_after_contact: int  # different cushions any ball touched after the first contact
    balls_to_cushion: int  # object balls that touched a cushion

    def to_json(self) -> dict[str, Any]:
        """Returns the truth as a JSON object."""
        return {"shooter": self.shooter, "break": self.is_break,
                "call": None if self.call is None else {"ball": self.call[0], "pocket": self.call[1]},
                "drops": [{"ball": b, "pocket": p} for b, p in self.drops],
                "first_contact": self.first_contact,
                "cushions_after_contact": self.cushions_after_contact,
                "balls_to_cushion": self.balls_to_cushion}


def shot_truth(shooter: int, is_break: bool, call: tuple[int, Pocket] | None,
               happenings: list[Happening]) -> ShotTruth:
    """Returns the facts of a shot from its physical events (in time order)."""
    drops = tuple((h.a, h.pocket) for h in happenings if h.kind == "pocket" and h.pocket is not None)
    first = next((h for h in happenings if h.kind == "contact" and CUE in (h.a, h.b)), None)
    first_contact: int | None = None
    after: set[str] = set()
    if first is not None:
        other = first.b if first.a == CUE else first.a
        first_contact = int(other) if other is not None else None
        after = {one_rail(h.rail) for h in happenings
                 if h.kind == "cushion" and h.rail is not None and h.t >= first.t}
    to_cushion = {h.a for h in happenings if h.kind == "cushion" and h.a != CUE}
    return ShotTruth(shooter, is_break, call, drops, first_contact, min(4, len(after)), len(to_cushion))


@dataclass(frozen=True, slots=True)
class Ruling:
    """What a referee with perfect facts rules: a foul, who shoots next, the 10 spotted, the
    game's winner (``None`` while it goes on)."""

    foul: bool
    next_shooter: int
    spotted_ten: bool = False
    winner: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Returns the ruling as a JSON object."""
        return {"foul": self.foul, "next_shooter": self.next_shooter,
                "spotted_ten": self.spotted_ten, "winner": self.winner}


TEN = 10


@dataclass
class TenBallOracle:
    """Ten-ball over perfect facts, two players, the incoming player always choosing to shoot.

    - a foul: the cue ball pocketed; no ball contacted, or not the lowest first; after the
      contact no ball pocketed and no cushion touched; a break with nothing pocketed and
      fewer than four object balls to a cushion (TB-5, TB-11);
    - a foul passes the turn (ball in hand), spots a pocketed 10; three in a row lose (TB-12);
    - the break: a 10 pocketed on a legal break wins (TB-2), any ball down keeps the table;
    - a called shot: the called ball in the called pocket keeps the table, and wins if it is
      the 10; otherwise the turn passes and a pocketed 10 is spotted (TB-9, TB-10, TB-13).
    """

    on_table: set[int] = field(default_factory=lambda: set(range(1, 11)))
    fouls_in_a_row: list[int] = field(default_factory=lambda: [0, 0])

    def rule(self, shot: ShotTruth) -> Ruling:
        """Returns the ruling of ``shot`` and applies it to the table's balls."""
        other = 1 - shot.shooter
        down = {b for b, _ in shot.drops if b != CUE}
        lowest = min(self.on_table)
        foul = self._foul(shot, lowest, down)
        self.on_table -= down
        if foul:
            self.fouls_in_a_row[shot.shooter] += 1
            spotted = TEN in down
            if spotted:
                self.on_table.add(TEN)
            if self.fouls_in_a_row[shot.shooter] >= 3:
                return Ruling(True, other, spotted, winner=other)
            return Ruling(True, other, spotted)
        self.fouls_in_a_row[shot.shooter] = 0
        if shot.is_break:
            if TEN in down:
                return Ruling(False, shot.shooter, winner=shot.shooter)
            return Ruling(False, shot.shooter if down else other)
        called_in = shot.call is not None and (shot.call[0], shot.call[1]) in shot.drops
        if called_in and shot.call is not None and shot.call[0] == TEN:
            return Ruling(False, shot.shooter, winner=shot.shooter)
        spotted = TEN in down
        if spotted:
            self.on_table.add(TEN)
        return Ruling(False, shot.shooter if called_in else other, spotted)

    @staticmethod
    def _foul(shot: ShotTruth, lowest: int, down: set[Ball]) -> bool:
        if any(b == CUE for b, _ in shot.drops) or shot.first_contact != lowest:
            return True
        if shot.is_break:
            return not down and shot.balls_to_cushion < 4
        return not down and shot.cushions_after_contact == 0
