"""What the referee core decides: rulings as records, in the order the rules apply them.

The list of decisions for a shot is its audit trail. ``to_event`` gives each one as the
``data`` of an interfaces §3 event; the controller chooses which event types carry them.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Any

from rules.facts import Ball, Foul


class Spot(enum.StrEnum):
    """Where a spotted ball is placed."""

    FOOT_SPOT = "foot_spot"
    FOOT_RAIL = "foot_rail"  # the short rail by the foot spot (ST-17, PP-9)
    HEAD_SPOT = "head_spot"
    WHERE_IT_STOPPED = "where_it_stopped"


class InHand(enum.StrEnum):
    """Where the incoming player may place the cue ball (interfaces §3 ``ball_in_hand``)."""

    NONE = "none"
    KITCHEN = "kitchen"
    ANYWHERE = "anywhere"


@dataclass(frozen=True, slots=True)
class Decision:
    """Base of every decision."""

    def to_event(self) -> dict[str, Any]:
        """Returns the decision as JSON-ready data with its ``decision`` name."""
        data: dict[str, Any] = {"decision": type(self).__name__}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            data[f.name] = list(value) if isinstance(value, tuple) else value
        return data


@dataclass(frozen=True, slots=True)
class BallCredited(Decision):
    """``ball`` counts for ``player``. ``pocketed`` False: nobody pocketed it on this shot, it
    was taken off the table for the player (a penalty ball, the ball for a pocketed cue ball,
    a ball driven off the table); the event then says ``"pocketed": false``."""

    player: int
    ball: Ball
    points: int = 1
    pocketed: bool = True

    def to_event(self) -> dict[str, Any]:
        """Returns the decision as JSON-ready data (``pocketed`` only when False)."""
        data = Decision.to_event(self)
        if self.pocketed:
            del data["pocketed"]
        return data


@dataclass(frozen=True, slots=True)
class BallStaysDown(Decision):
    ball: int


@dataclass(frozen=True, slots=True)
class BallSpotted(Decision):
    ball: Ball  # a number, or ``"object"`` when nobody knows which
    spot: Spot


@dataclass(frozen=True, slots=True)
class FoulCalled(Decision):
    player: int
    fouls: tuple[Foul, ...]


@dataclass(frozen=True, slots=True)
class PointsMoved(Decision):
    """A penalty moving points between players (Point pyramid)."""

    offender: int
    to: int
    points: int


@dataclass(frozen=True, slots=True)
class ShooterContinues(Decision):
    player: int
    in_hand: InHand = InHand.NONE


@dataclass(frozen=True, slots=True)
class TurnPassed(Decision):
    to: int
    in_hand: InHand = InHand.NONE


@dataclass(frozen=True, slots=True)
class OptionChosen(Decision):
    player: int
    choice: str


@dataclass(frozen=True, slots=True)
class WarningIssued(Decision):
    player: int
    reason: str


@dataclass(frozen=True, slots=True)
class GameWon(Decision):
    player: int
    game_no: int
    reason: str


@dataclass(frozen=True, slots=True)
class GameDrawn(Decision):
    game_no: int


@dataclass(frozen=True, slots=True)
class GameRestarted(Decision):
    """The rack is set again and the same game starts over (stalemate, re-break)."""

    game_no: int
    breaker: int
    reason: str


@dataclass(frozen=True, slots=True)
class MatchWon(Decision):
    player: int


@dataclass(frozen=True, slots=True)
class MatchDrawn(Decision):
    pass


@dataclass(frozen=True, slots=True)
class QuestionAsked(Decision):
    """A question put to a person, as data (``rules.state.Question``); the text is the edge's."""

    id: str
    kind: str
    player: int
    topic: str
    about: tuple[tuple[str, Any], ...]
    choices: tuple[Any, ...]
    count: int = 1

    def to_event(self) -> dict[str, Any]:
        """Returns the question as JSON-ready data, ``about`` as a mapping."""
        data = Decision.to_event(self)
        data["about"] = {k: list(v) if isinstance(v, tuple) else v for k, v in self.about}
        return data


@dataclass(frozen=True, slots=True)
class QuestionAnswered(Decision):
    id: str
    answer: Any


@dataclass(frozen=True, slots=True)
class RulingCorrected(Decision):
    """A shot was ruled again (a late drop, a declared fact); what follows replaces its ruling."""

    shot: int


@dataclass(frozen=True, slots=True)
class ShotsUndone(Decision):
    shots: int
    back_to_shot: int


@dataclass(frozen=True, slots=True)
class MatchStarted(Decision):
    game: str
    players: tuple[str, ...]
    race_to: int
    breaker: int


@dataclass(frozen=True, slots=True)
class MatchAbandoned(Decision):
    pass


@dataclass(frozen=True, slots=True)
class Noted(Decision):
    """A fact the ruling rests on that a reader should see (a default applied, a ball ignored).

    ``about`` gives what it is about as data, as (name, value) pairs (an event gives a
    mapping), so a page can offer the correction: ``called_presumed`` is about the ``ball``
    and ``pocket`` presumed, and a ``declare`` of what fell there rules the shot again.
    """

    what: str
    detail: str = ""
    about: tuple[tuple[str, Any], ...] = ()

    def to_event(self) -> dict[str, Any]:
        """Returns the note as JSON-ready data, ``about`` as a mapping."""
        data = Decision.to_event(self)
        data["about"] = dict(self.about)
        return data
