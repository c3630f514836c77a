"""The referee core: shot records in, decisions and events out.

Pure and deterministic: no I/O, no clock, no logging, and nothing else of ours is imported.
A newcomer reads it in this order: ``facts`` (what the core is told), ``decisions`` (what it
rules), ``options`` (each game's options, a typed record), ``state`` (what it keeps), ``game``
(what a game provides), ``spec`` (what a game is to the rest of the house), ``referee`` (the
match as a fold over its inputs), then one game package of ``rules/games/``: Ten-ball's first;
Point pyramid's (two to four players, points by ball number) the second; Siberian Ten's
(first to six balls, a shoot-out at 5:5) the third.

The public face, what ``controller`` may import (an import-linter contract): this module (the
referee, its inputs, facts and state), ``rules.decisions`` (what it rules) and ``rules.games``
(the games' records, ``GameSpec``, their options and the registry).
"""

from rules import games as games  # registers every game
from rules.decisions import Decision, InHand, Spot
from rules.errors import InvalidInput, RulesError
from rules.facts import (
    CUE,
    DECLARABLE_FOULS,
    OBJECT,
    UNKNOWN,
    Ball,
    Call,
    Drop,
    Forfeit,
    Foul,
    Known,
    MatchSetup,
    Pocket,
    Rail,
    ShotKind,
    ShotRecord,
    Special,
)
from rules.game import GAMES, Game
from rules.referee import (
    Answered,
    Input,
    MatchEnded,
    NewMatch,
    Referee,
    ShotAmended,
    ShotPlayed,
    Undone,
)
from rules.state import MatchState, Question, QuestionKind, Status, Topic

__all__ = [
    "CUE", "DECLARABLE_FOULS", "GAMES", "OBJECT", "UNKNOWN", "Answered", "Ball", "Call",
    "Decision", "Drop", "Foul", "Forfeit", "Game", "InHand", "Known",
    "Input", "InvalidInput", "MatchEnded", "MatchSetup", "MatchState", "NewMatch", "Pocket",
    "Question", "QuestionKind", "Rail", "Referee", "RulesError", "ShotAmended", "ShotKind",
    "ShotPlayed", "ShotRecord", "Special", "Spot", "Status", "Topic", "Undone",
]
