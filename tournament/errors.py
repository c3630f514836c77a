"""Errors of the tournament core.

TournamentError
 ├─ BadDraw (also ValueError) — a draw the formats cannot make: too few players, a player named
 │  twice, a seeding that does not name every player, groups that cannot be filled.
 ├─ BadResult (also ValueError) — a result for no match, for a match not ready, or naming a
 │  player who is not in it.
 └─ BadAssignment (also ValueError) — a table already busy, a match not ready or already on a
    table, a table the venue does not have.

Nothing changes when one is raised; each message says what a director can do about it.
"""


class TournamentError(Exception):
    """Root of the tournament core's errors."""


class BadDraw(TournamentError, ValueError):
    """A draw the formats refuse."""


class BadResult(TournamentError, ValueError):
    """A result the bracket refuses; nothing changed."""


class BadAssignment(TournamentError, ValueError):
    """An assignment that would double-book a table or a match; nothing changed."""
