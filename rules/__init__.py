"""The referee core: shot records in, decisions and events out.

Pure and deterministic: no I/O, no clock, no logging, and nothing else of ours is imported.
A newcomer reads it in this order: ``facts`` (what the core is told), ``decisions`` (what it
rules), ``options`` (each game's options, a typed record), ``state`` (what it keeps), ``game``
(what a game provides), ``referee`` (the match as a fold over its inputs), then one game
module: ``tenball``; ``pyramid`` (Point pyramid, two to four players, points by ball number)
is the second; ``siberian`` (Siberian Ten, first to six balls, a shoot-out at 5:5) the third.
"""

# the games register in this order, the order a console lists them
# isort: off
from rules import tenball as tenball  # registers the game (the first: the default)
from rules import siberian as siberian  # registers the game
from rules import pyramid as pyramid  # registers the game
# isort: on
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
