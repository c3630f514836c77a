"""The match state: immutable, so every earlier state can be kept for undo and re-ruling."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any

from rules.decisions import InHand
from rules.facts import Ball, MatchSetup


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
    OPTION = "option"
    PICK_BALL = "pick_ball"
    IDENTIFY = "identify"
    CONFIRM = "confirm"


@dataclass(frozen=True, slots=True)
class Question:
    """An open question; ``count`` > 1 on an ``identify`` asks for one ball per drop."""

    id: str
    kind: QuestionKind
    player: int
    prompt: str
    choices: tuple[Any, ...]
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        """Returns the question as listed in the state snapshot."""
        out: dict[str, Any] = {
            "id": self.id,
            "kind": str(self.kind),
            "player": self.player,
            "prompt": self.prompt,
            "choices": list(self.choices),
        }
        if self.count != 1:
            out["count"] = self.count
        return out


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
    options: Any = None
    status: Status = Status.IDLE
    game_no: int = 0
    breaker: int = 0
    players: tuple[PlayerState, ...] = ()
    to_shoot: int | None = None
    ball_in_hand: InHand = InHand.NONE
    on_table: tuple[int, ...] = ()
    shot: int = 0
    winner: int | None = None
    draw: bool = False
    #: Game-specific state the game module owns (a frozen dataclass), e.g. the shoot-out.
    extra: Any = None
    #: Winners of the finished games, in order (None for a draw): decides later breakers.
    results: tuple[int | None, ...] = field(default=())

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

    def without_balls(self, balls: set[int] | frozenset[int]) -> MatchState:
        return replace(self, on_table=tuple(b for b in self.on_table if b not in balls))

    def with_balls(self, balls: set[int] | frozenset[int]) -> MatchState:
        return replace(self, on_table=tuple(sorted(set(self.on_table) | set(balls))))
