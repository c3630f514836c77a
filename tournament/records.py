"""The tournament's records: who enters, where a match's two players come from, and what a
match ended with.

A draw is a tuple of ``Match`` templates, each with two ``Source`` slots: a player, a bye, the
winner or the loser of an earlier match, or a group's place. Who plays a match is never stored:
it follows from the draw and the results (``tournament.progress``), so a corrected result
re-flows the bracket by itself.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: A player's id: the venue record's roster id.
PlayerId = str
#: A match's id in its draw (``W1-3``, ``L2-1``, ``GF1``, ``A-4``, ``P1-2``): stable, so it is
#: what a table's ``new_match`` and ``match_over`` carry.
MatchId = str


class Format(enum.StrEnum):
    SINGLE = "single"  # «олимпийская система»
    DOUBLE = "double"  # «с выбыванием после двух поражений»
    GROUPS = "groups"  # «круговая» in groups, then a single-elimination playoff


class Stage(enum.StrEnum):
    WINNERS = "winners"
    LOSERS = "losers"
    GRAND_FINAL = "grand-final"
    GROUP = "group"
    PLAYOFF = "playoff"


@dataclass(frozen=True, slots=True)
class Entrant:
    """The slot is this player's."""

    player: PlayerId


@dataclass(frozen=True, slots=True)
class Bye:
    """No one: the other slot's player goes through without playing."""


@dataclass(frozen=True, slots=True)
class WinnerOf:
    match: MatchId


@dataclass(frozen=True, slots=True)
class LoserOf:
    match: MatchId


@dataclass(frozen=True, slots=True)
class GroupPlace:
    """The player placed ``place`` (1 = first) in ``group`` once all its matches are over."""

    group: str
    place: int


Source = Entrant | Bye | WinnerOf | LoserOf | GroupPlace


@dataclass(frozen=True, slots=True)
class Match:
    """A match of the draw: its two slots, its stage and round (``round`` keys the race).

    ``reset_of``: the grand final's second match, played only if the first one's second slot
    (the losers' bracket champion) won it; otherwise its first slot's player wins unplayed.
    """

    id: MatchId
    stage: Stage
    round: str
    a: Source
    b: Source
    group: str | None = None
    reset_of: MatchId | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """A tournament's whole draw: its format, its players in seed order and its matches, each
    after every match it depends on."""

    format: Format
    players: tuple[PlayerId, ...]
    matches: tuple[Match, ...]
    groups: tuple[tuple[str, tuple[PlayerId, ...]], ...] = ()

    def match(self, match_id: MatchId) -> Match:
        """Returns the match ``match_id``; raises KeyError for none."""
        for match in self.matches:
            if match.id == match_id:
                return match
        raise KeyError(match_id)


@dataclass(frozen=True, slots=True)
class Result:
    """What a match ended with, between ``players`` (its two players, slot order, as they were
    when it was played): the winner, the score in that order (``None`` for a walkover) and
    whether it was a walkover. A result whose players are no longer the match's (an earlier
    result was corrected) no longer counts."""

    match: MatchId
    players: tuple[PlayerId, PlayerId]
    winner: PlayerId
    score: tuple[int, int] | None = None
    walkover: bool = False

    @property
    def loser(self) -> PlayerId:
        return self.players[1] if self.winner == self.players[0] else self.players[0]


@dataclass(frozen=True, slots=True)
class Handicap:
    """«Фора»: ``receiver`` starts the race ``frames`` ahead."""

    receiver: PlayerId
    frames: int


@dataclass(frozen=True, slots=True)
class Races:
    """The race (frames to win) per round key (``W1``, ``L3``, ``GF``, ``G``, ``P2``), else
    ``default``."""

    default: int = 5
    by_round: tuple[tuple[str, int], ...] = ()

    def race(self, round_key: str) -> int:
        return dict(self.by_round).get(round_key, self.default)
