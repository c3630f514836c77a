"""The tournament core: draws, results and tables, as data.

Pure and deterministic like ``rules``: no I/O, no clock, no logging, no words. A newcomer reads
``records`` (a draw's matches and where their players come from), ``seeding`` and ``formats``
(single and double elimination, round robin in groups with a playoff), ``progress`` (who plays
what after the results), then ``tournament`` (results, corrections, walkovers and tables).
"""

from tournament.errors import BadAssignment, BadDraw, BadResult, TournamentError
from tournament.formats import double_elimination, round_robin_groups, single_elimination
from tournament.handicap import Handicaps
from tournament.progress import Progress, Status, Vacant
from tournament.records import Draw, Format, Handicap, Match, MatchId, PlayerId, Races, Result, Stage
from tournament.seeding import by_hand, by_rating
from tournament.tournament import Change, Pairing, TableId, Tournament

__all__ = [
    "BadAssignment", "BadDraw", "BadResult", "Change", "Draw", "Format", "Handicap", "Handicaps",
    "Match", "MatchId", "Pairing", "PlayerId", "Progress", "Races", "Result", "Stage", "Status",
    "TableId", "Tournament", "TournamentError", "Vacant", "by_hand", "by_rating",
    "double_elimination", "round_robin_groups", "single_elimination",
]
