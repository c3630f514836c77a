"""The games, one package each, and the registry the rest of the house reads them from.

Each game registers itself (``rules.game.register``) when its package is imported; ``specs``
returns every game's record (``rules.spec.GameSpec``), in the order a console lists them (the
first is the default game), and ``spec_of`` one game's. Outside ``rules/games/`` nothing
compares a game id: it reads the record instead.
"""

from __future__ import annotations

from rules.errors import InvalidInput
from rules.game import GAMES, Game, register
from rules.options import OptionDoc, options_doc
from rules.spec import BallStyle, Declarable, GameSpec, Scoring, Target

# the games register in this order, the order a console lists them (the first: the default)
# isort: off
from rules.games import ten_ball as ten_ball
from rules.games import siberian_ten as siberian_ten
from rules.games import pyramid as pyramid
# isort: on


def specs() -> tuple[GameSpec, ...]:
    """Returns every registered game's record, in registration order."""
    return tuple(game.spec for game in GAMES.values())


def spec_of(game_id: str) -> GameSpec:
    """Returns the record of the game ``game_id``. Raises InvalidInput for an unknown id."""
    if game_id not in GAMES:
        raise InvalidInput(f"unknown game {game_id!r}; one of {sorted(GAMES)}")
    return GAMES[game_id].spec


def find_spec(game_id: object) -> GameSpec | None:
    """Returns the record of the game ``game_id``, or None when no game has that id (a state
    with no match, a game this house does not know)."""
    game = GAMES.get(game_id) if isinstance(game_id, str) else None
    return game.spec if game else None


def default_game() -> str:
    """Returns the id of the first game registered: a new table's game when none is said."""
    return next(iter(GAMES))


def unregister(game_id: str) -> None:
    """Removes a game from the registry (a game a test registered for itself)."""
    GAMES.pop(game_id, None)


__all__ = [
    "GAMES", "BallStyle", "Declarable", "Game", "GameSpec", "OptionDoc", "Scoring", "Target",
    "default_game", "options_doc",
    "find_spec", "register", "spec_of", "specs", "unregister",
]
