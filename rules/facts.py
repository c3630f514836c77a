"""What the referee core is told: the match set-up, shot records, answers.

A shot record holds what is known about one shot. Each fact is either known or ``UNKNOWN``;
the rules decide from the known facts, ask about an unknown one when the ruling depends on it,
or apply a documented default (see each game's options).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, TypeAlias, TypeVar

from vocabulary import Pocket as Pocket  # the table's ids, one definition
from vocabulary import Rail as Rail

T = TypeVar("T")


class Unknown(enum.Enum):
    """The single value of a fact nobody has told the core."""

    UNKNOWN = "unknown"

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = Unknown.UNKNOWN
Known: TypeAlias = T | Literal[Unknown.UNKNOWN]

CUE: Final = "cue"
#: An object ball whose number nobody knows (no identity reader, and the number changes nothing
#: in the ruling): credited as such; ``MatchState.unidentified`` counts it off the table.
OBJECT: Final = "object"
#: An object ball's number, ``"cue"``, or ``"object"``.
Ball: TypeAlias = int | str


class ShotKind(enum.StrEnum):
    NORMAL = "normal"
    SAFETY = "safety"
    PUSH_OUT = "push_out"
    IGRA = "igra"


class Foul(enum.StrEnum):
    """Foul codes: the declarable ones of interfaces §3, then those the core finds itself."""

    MISS = "miss"
    TOUCHED_BALL = "touched_ball"
    BUTT_OR_SIDE = "butt_or_side"
    MOVING_BALLS = "moving_balls"
    FEET_OFF_FLOOR = "feet_off_floor"
    PUSH = "push"
    DOUBLE_HIT = "double_hit"
    WRONG_BALL_FIRST = "wrong_ball_first"
    WRONG_CUE_BALL = "wrong_cue_ball"
    DIRECT_HIT_IN_KITCHEN = "direct_hit_in_kitchen"
    CUE_ON_TABLE = "cue_on_table"
    OUT_OF_TURN = "out_of_turn"
    SLOW_PLAY = "slow_play"
    BAD_PLACEMENT = "bad_placement"
    GAME_OVER_TOUCH = "game_over_touch"
    #: The break did not meet its game's requirement (declarable: sensors cannot count balls).
    BAD_BREAK = "bad_break"
    # Found by the core from the facts:
    SCRATCH = "scratch"
    CUE_OFF_TABLE = "cue_off_table"
    BALL_OFF_TABLE = "ball_off_table"
    NO_RAIL = "no_rail"
    TWO_CUSHION = "two_cushion"


#: Codes a referee may declare (interfaces §3, plus ``bad_break``, ``no_rail`` and
#: ``two_cushion``: the cushion sensors cannot tell a hit before the first contact from one after
#: it without a click sensor, nor which ball made it).
DECLARABLE_FOULS: Final = frozenset(
    f for f in Foul if f not in {Foul.SCRATCH, Foul.CUE_OFF_TABLE, Foul.BALL_OFF_TABLE}
)


class Special(enum.StrEnum):
    """Positions a referee declares (interfaces §3 ``declare.special``)."""

    INTERFERENCE = "interference"
    ON_RAIL = "on_rail"
    RETURNED_FROM_FLOOR = "returned_from_floor"
    HANGING_BALL = "hanging_ball"
    STALEMATE = "stalemate"


@dataclass(frozen=True, slots=True)
class Call:
    """One called ball and pocket."""

    ball: Ball
    pocket: Pocket


@dataclass(frozen=True, slots=True)
class Drop:
    """A ball that fell; ``ball`` is None when nothing identified it, ``pocket`` None when
    only the ball return saw it (a cue-ball detector with no beam to match). ``presumed``:
    ``ball`` is a guess (the cue-ball detector's one report fitted this drop and another
    still unidentified one, and went to the older)."""

    pocket: Pocket | None
    ball: Ball | None = None
    presumed: bool = False


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A referee's penalty for unsportsmanlike conduct (TB-14): ``player`` loses the game, or
    with ``match`` the match, for ``reason``."""

    player: int
    match: bool = False
    reason: str = ""


@dataclass(frozen=True, slots=True)
class ShotRecord:
    """Everything known about one shot.

    - ``calls``: the shooter's call (empty: no call given).
    - ``drops``: balls that fell, in order, with identity where known.
    - ``cue_sensed``: a cue-ball detector watches the ball return, so a drop it did not flag
      is an object ball. Without one, an unidentified drop might be the cue ball.
    - ``blind_pockets``: pockets whose beam is out of order; whether a ball fell there is asked.
    - ``data_gaps``: each gap in the sensors' data during the shot (a board that restarted,
      edges lost), as the channels it lost; a blind pocket whose beam is among them is asked
      about even where a drop was seen (another may have fallen unseen), the question saying
      how many gaps and which channels.
    - ``first_contact``: the first ball the cue ball touched; None: it touched none.
    - ``cushions``: rail segments touched after the first contact, in order (one entry per
      hit). ``cushions_presumed``: no click sensor timed the first contact, so these are every
      hit of the shot, presumed after it. ``cushions_before``: hits a click sensor put before
      the first contact. ``deaf_rails``: segments whose cushion sensor is out of order, so
      hits there are missing from ``cushions``.
    - ``cushion_count``: how many different cushions the balls touched after the first
      contact, as a referee declared it; when known it stands over ``cushions``.
    - ``balls_to_cushion``: how many object balls reached a cushion on a break (Ten-ball,
      TB-5), as a referee declared it; when known it stands over the cushion hits.
    - ``off_table``: balls that left the table (declared), the cue ball as ``"cue"``.
    - ``centre_line``: a ball crossed the centre line after the first contact (declared).
    - ``contact_unheard``: a fitted click sensor, in order, heard no ball–ball click on the
      shot: evidence that the cue ball touched no ball, taken (noted ``miss_unheard``) when
      nobody said whether it did and no object ball fell; a declared ``first_contact`` stands
      over it.
    - ``fouls``: fouls a referee declared.
    - ``forfeit``: a referee's penalty for unsportsmanlike conduct (declared).
    """

    calls: tuple[Call, ...] = ()
    kind: ShotKind = ShotKind.NORMAL
    manner: str | None = None
    drops: tuple[Drop, ...] = ()
    cue_sensed: bool = False
    #: Pockets whose beam is out of order (stuck, silent): drops there are not seen.
    blind_pockets: tuple[Pocket, ...] = ()
    data_gaps: tuple[tuple[str, ...], ...] = ()
    first_contact: Known[Ball | None] = UNKNOWN
    cushions: Known[tuple[Rail, ...]] = UNKNOWN
    cushions_presumed: bool = False
    cushions_before: tuple[Rail, ...] = ()
    deaf_rails: tuple[Rail, ...] = ()
    cushion_count: Known[int] = UNKNOWN
    balls_to_cushion: Known[int] = UNKNOWN
    off_table: tuple[Ball, ...] = ()
    centre_line: Known[bool] = UNKNOWN
    contact_unheard: bool = False
    fouls: tuple[Foul, ...] = ()
    special: Special | None = None
    forfeit: Forfeit | None = None


@dataclass(frozen=True, slots=True)
class MatchSetup:
    """A match: the game, the players (in turn order), race to N games, first breaker."""

    game: str
    players: tuple[str, ...]
    race_to: int = 1
    breaker: int = 0
    options: Mapping[str, object] = field(default_factory=dict)
