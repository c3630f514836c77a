"""What fusion tells the table: a ball seen falling, a shot to rule, a shot to rule again."""

from __future__ import annotations

from dataclasses import dataclass

from rules import Pocket, ShotRecord


@dataclass(frozen=True, slots=True)
class DropSeen:
    """A ball fell (live, as the beam saw it); ``ball`` when already known."""

    t: float
    pocket: Pocket | None
    ball: int | str | None = None
    #: The drop belongs to the shot already ruled (a late ball), not to the one in play.
    late: bool = False


@dataclass(frozen=True, slots=True)
class RuleShot:
    """A shot to be ruled (the first time)."""

    t: float
    record: ShotRecord


@dataclass(frozen=True, slots=True)
class AmendShot:
    """The last ruled shot's facts changed: rule it again."""

    t: float
    record: ShotRecord


Action = DropSeen | RuleShot | AmendShot
