"""What one shot did with the balls, from its ``shot_result`` decisions (event data): what the
history's shot list and its CSV tell, so a ball taken off the table is never told as potted."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def balls_of(decisions: Iterable[dict[str, Any]]) -> dict[str, list[Any]]:
    """Returns the shot's ``balls``: those pocketed on it (credited to anyone, or staying
    down), in order; ``taken``: ``{ball, player}`` of each ball taken off the table for a player
    (a penalty ball, the ball for a pocketed cue ball, a ball driven off the table:
    ``BallCredited`` with ``"pocketed": false``); ``handicap``: ``{ball, player}`` of each
    pocketed ball that counted for the receiver of a handicap (Siberian Ten, ST-19)."""
    balls: list[Any] = []
    taken: list[dict[str, Any]] = []
    handicap: list[dict[str, Any]] = []
    for d in decisions:
        kind = d.get("decision")
        if kind == "BallCredited" and d.get("pocketed") is False:
            taken.append({"ball": d.get("ball"), "player": d.get("player")})
        elif kind in ("BallCredited", "BallStaysDown"):
            balls.append(d.get("ball"))
        elif kind == "Noted" and d.get("what") == "handicap":
            about = d.get("about") or {}
            handicap.append({"ball": about.get("ball"), "player": about.get("to")})
    return {"balls": balls, "taken": taken, "handicap": handicap}
