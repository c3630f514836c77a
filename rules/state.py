"""The match state: immutable, so every earlier state can be kept for undo and re-ruling."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from rules.decisions import InHand
from rules.facts import Ball, MatchSetup
from rules.options import MatchOptions

OptionsT = TypeVar("OptionsT", bound=MatchOptions)


class Status(enum.StrEnum):
    """``status`` of the state snapshot (interfaces §3); ``awaiting`` is shown while a question is open."""

    IDLE = "idle"
    BREAK = "break"
    IN_PLAY = "in_play"
    AWAITING = "awaiting"
    SHOOTOUT = "shootout"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"


class QuestionKind(enum.StrEnum):
    """How a question is answered: a choice, a ball off the table, the balls that fell, yes/no."""

    OPTION = "option"
    PICK_BALL = "pick_ball"
    IDENTIFY = "identify"
    CONFIRM = "confirm"


class Topic(enum.StrEnum):
    """What a question asks; its ``about`` parameters (in brackets) say of what.

    The referee core asks in data; the text is rendered at the edge (``controller.words.texts``).
    """

    #: confirm [pocket]: a pocket's beam is out of order: did a ball fall in it?
    BALL_FELL = "ball_fell"
    #: identify [pocket]: which ball(s) fell in the pocket (None: into the ball return)?
    WHICH_BALLS = "which_balls"
    #: confirm [pocket]: was the ball that fell in the pocket the cue ball?
    CUE_BALL = "cue_ball"
    #: confirm [ball, pocket]: was the ball that fell in the called pocket the called ball?
    CALLED_BALL = "called_ball"
    #: confirm [ball, pocket]: no call was recorded: was this ball in this pocket the called shot?
    WAS_CALLED = "was_called"
    #: confirm [fell, clean]: no call was recorded (pyramid): was one of the balls that fell
    #: (``fell``: (ball, pocket) pairs) called in its pocket (``clean``: played as called too)?
    ANY_CALLED = "any_called"
    #: confirm [ball, pocket, manner]: was the called ball played as called (clean designation)?
    PLAYED_AS_CALLED = "played_as_called"
    #: confirm: did the balls touch two cushions after contact (the centre line counting as one)?
    TWO_CUSHIONS = "two_cushions"
    #: confirm: one cushion was touched: did a ball cross the centre line?
    CENTRE_LINE = "centre_line"
    #: confirm: did the cue ball itself touch two cushions after the contact (ST-14, item ж)?
    CUE_BALL_TWO_CUSHIONS = "cue_ball_two_cushions"
    #: confirm: did a ball reach a cushion after the contact (TB-11)?
    RAIL_AFTER_CONTACT = "rail_after_contact"
    #: confirm: on the break, did at least four object balls reach a cushion (TB-5)?
    FOUR_BALLS_TO_CUSHIONS = "four_balls_to_cushions"
    #: option: someone interfered with the shot: restore the position (``restore``) or play on
    #: as the balls lie (``as_lies``)? Asked of the injured player (ST-18).
    INTERFERENCE = "interference"
    #: confirm [ball]: did the cue ball hit this ball (the lowest) first?
    FIRST_CONTACT = "first_contact"
    #: confirm: did the cue ball touch a ball?
    CONTACT = "contact"
    #: pick_ball [to]: the asked player takes a penalty ball off the table (``to``: for whom).
    PENALTY_BALL = "penalty_ball"
    #: pick_ball [to]: a called cue ball counts: the asked player takes a ball off the table
    #: for player ``to``.
    CUE_BALL_COUNTS = "cue_ball_counts"
    #: option [reason]: the asked player shoots or hands the shot back (``reason``: ``foul``,
    #: ``push_out``, ``safety``, ``missed_call``).
    SHOOT_OR_HAND_BACK = "shoot_or_hand_back"
    #: option: an illegal break: have it broken again, break yourself, or accept and shoot?
    ILLEGAL_BREAK = "illegal_break"
    #: option [game]: who breaks this game (drawn by lot)?
    BREAKER = "breaker"


#: A question's identity: its kind, topic, player, parameters and number of balls.
QuestionKey = tuple[QuestionKind, Topic, int, tuple[tuple[str, Any], ...], int]


@dataclass(frozen=True, slots=True)
class Question:
    """An open question; ``count`` > 1 on an ``identify`` asks for one ball per drop.

    ``id`` is the handle a person answers (``q-<shot>-<n>``); ``key`` is what the question is,
    and an answer belongs to that: a shot ruled anew takes an answer only for the same key.
    """

    id: str
    kind: QuestionKind
    player: int
    topic: Topic
    #: What the question is about, as sorted (name, value) pairs: see ``Topic``.
    about: tuple[tuple[str, Any], ...]
    choices: tuple[Any, ...]
    count: int = 1

    @property
    def key(self) -> QuestionKey:
        """Returns the question's identity (everything but its handle and its choices)."""
        return (self.kind, self.topic, self.player, self.about, self.count)

    @property
    def params(self) -> dict[str, Any]:
        """Returns ``about`` as a mapping."""
        return dict(self.about)

    def describe(self) -> str:
        """Returns a short, language-free description for error messages: ``q-3-0 (centre_line)``."""
        params = ", ".join(f"{k}={v}" for k, v in self.about)
        return f"{self.id} ({self.topic}{': ' + params if params else ''})"

    def to_json(self) -> dict[str, Any]:
        """Returns the question as listed in the state snapshot (without ``prompt``: the
        controller renders it in the table's language)."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": str(self.kind),
            "player": self.player,
            "topic": str(self.topic),
            "about": {k: _json(v) for k, v in self.about},
            "choices": list(self.choices),
        }
        if self.count != 1:
            out["count"] = self.count
        return out


def _json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class PlayerState:
    name: str
    score: int = 0
    games: int = 0
    consecutive_fouls: int = 0
    #: Balls credited to this player in the current game, in order (Siberian Ten, pyramid).
    balls: tuple[Ball, ...] = ()


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything the rules need to know between shots."""

    setup: MatchSetup | None = None
    #: The game's own options record (``SiberianOptions``, ...): read it with ``options_as``.
    options: MatchOptions = field(default_factory=MatchOptions)
    status: Status = Status.IDLE
    game_no: int = 0
    breaker: int = 0
    players: tuple[PlayerState, ...] = ()
    to_shoot: int | None = None
    ball_in_hand: InHand = InHand.NONE
    #: The numbers of the object balls that may be on the table; ``unidentified`` of them
    #: are not (balls that fell with nobody knowing which, where the number changed nothing).
    on_table: tuple[int, ...] = ()
    unidentified: int = 0
    shot: int = 0
    winner: int | None = None
    draw: bool = False
    #: Game-specific state the game module owns (a frozen dataclass), e.g. the shoot-out.
    extra: Any = None
    #: Winners of the finished games, in order (None for a draw): decides later breakers.
    results: tuple[int | None, ...] = field(default=())

    def options_as(self, cls: type[OptionsT]) -> OptionsT:
        """Returns the options as the game's own record. Raises TypeError when they are
        another game's (a bug: the referee gives each game its own)."""
        if not isinstance(self.options, cls):
            raise TypeError(f"the options are {type(self.options).__name__}, not {cls.__name__}")
        return self.options

    @property
    def n_players(self) -> int:
        return len(self.players)

    def player(self, index: int) -> PlayerState:
        return self.players[index]

    def with_player(self, index: int, **changes: Any) -> MatchState:
        """Returns a copy with one player's fields changed."""
        players = list(self.players)
        players[index] = replace(players[index], **changes)
        return replace(self, players=tuple(players))

    def next_player(self, index: int, step: int = 1) -> int:
        return (index + step) % len(self.players)

    @property
    def balls_left(self) -> int:
        """Returns how many object balls are on the table."""
        return len(self.on_table) - self.unidentified

    def without_balls(self, balls: set[int] | frozenset[int]) -> MatchState:
        """Returns the state with these balls off the table."""
        return _settled(replace(self, on_table=tuple(b for b in self.on_table if b not in balls)))

    def without_unidentified(self, n: int = 1) -> MatchState:
        """Returns the state with ``n`` more object balls off the table, numbers unknown."""
        return _settled(replace(self, unidentified=self.unidentified + n))


def _settled(state: MatchState) -> MatchState:
    """Returns the state with an empty table once every number left is a ball that fell."""
    if state.unidentified and state.unidentified >= len(state.on_table):
        return replace(state, on_table=(), unidentified=0)
    return state
