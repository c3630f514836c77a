"""What every scoreboard shows of a table's state, defined once for ``B/display``
(``controller.table.display``) and the display adapters (``controller.adapters``)."""

from __future__ import annotations

from typing import Any


def short_name(player: dict[str, Any], chars: int) -> str:
    """Returns the first ``chars`` letters of the player's name, in capitals (``?`` without one)."""
    return str(player.get("name", "?")).upper()[:chars]


def value_key(state: dict[str, Any]) -> str:
    """Returns which number a scoreboard shows: games won at ten-ball, points otherwise."""
    return "games" if state.get("game") == "ten-ball" else "score"
