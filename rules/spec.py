"""What a game is to the rest of the house: one frozen record, ``GameSpec``.

Each game package (``rules/games/<id>/``) describes itself in one ``GameSpec``; the registry
(``rules.games``) holds them by id. The controller, the simulator, the displays and the pages
(``/games.json``) read these records instead of comparing game ids: who may play, how the
score is kept, the balls and how they are drawn, the fouls a console offers first, what may
be declared or called, and the game's options. Data only: no words (the catalogue names each
game ``game.<id>``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from rules.facts import Foul, ShotKind
from rules.options import MatchOptions


class Scoring(enum.StrEnum):
    """How a game keeps its score."""

    #: The score is the games (racks) won; a rack has no points (Ten-ball).
    GAMES = "games"
    #: The score is the balls credited in the game (Siberian Ten: first to six).
    BALLS = "balls"
    #: The score is points, each ball its value (the pyramid).
    POINTS = "points"


class BallStyle(enum.StrEnum):
    """How the balls are drawn."""

    #: Pool colours, 1–8 solid, 9 on striped.
    POOL = "pool"
    #: Every object ball ivory with its number (Russian billiards: the pyramid).
    IVORY = "ivory"


class Declarable(enum.StrEnum):
    """What a referee may declare or call in a game, beyond the fouls and the facts every game
    takes (interfaces §3)."""

    #: ``declare``'s ``balls_to_cushion``: the object balls a break drove to a cushion.
    BALLS_TO_CUSHION = "balls_to_cushion"
    #: ``declare``'s ``centre_line``: whether the cue ball crossed the centre line.
    CENTRE_LINE = "centre_line"
    #: ``declare``'s ``unsportsmanlike``: the game or the match lost for conduct.
    UNSPORTSMANLIKE = "unsportsmanlike"
    #: A call may name the cue ball (a «свояк»).
    CUE_BALL_CALL = "cue_ball_call"


class Target(enum.StrEnum):
    """Which object ball a shooter must play."""

    #: The lowest-numbered ball on the table first (a rotation game).
    LOWEST = "lowest"
    #: Any ball on the table.
    ANY = "any"


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game, as the rest of the house reads it."""

    #: The game's id, as ``new_match`` names it.
    id: str
    min_players: int
    max_players: int
    scoring: Scoring
    #: The object balls of a full rack.
    balls: tuple[int, ...]
    ball_style: BallStyle
    #: Which ball the shooter must play first.
    target: Target
    #: The fouls a console offers first, most common first.
    first_fouls: tuple[Foul, ...]
    #: What may be declared or called beyond every game's facts.
    declarable: frozenset[Declarable]
    #: The shot kinds a call may state besides ``normal``.
    shot_kinds: tuple[ShotKind, ...]
    #: How many balls one call may name.
    max_calls: int
    #: The game's options, a typed record (``rules.options``).
    options: type[MatchOptions]

    @property
    def score_field(self) -> str:
        """Returns the player field a scoreboard shows: ``games`` when the games won are the
        score, else ``score``."""
        return "games" if self.scoring is Scoring.GAMES else "score"

    def declares(self, what: Declarable) -> bool:
        """Returns whether ``what`` may be declared or called in this game."""
        return what in self.declarable
