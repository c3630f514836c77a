"""A Ten-ball match played by requests alone: what a scorekeeper's app sends."""

from __future__ import annotations

from typing import Any

MATCH: list[tuple[str, dict[str, Any]]] = [
    ("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 1, "transaction": "nm"}),
    ("call", {"calls": [{"ball": 1, "pocket": "fr"}], "transaction": "c1"}),
    ("declare", {"pocketed": [{"ball": 1, "pocket": "fr"}], "transaction": "d1"}),
    ("shot_end", {"transaction": "e1"}),
    ("call", {"calls": [{"ball": 3, "pocket": "fr"}], "transaction": "c2"}),
    ("shot_end", {"transaction": "e2"}),
]

#: What the state says after MATCH: Ann ran the 1, missed the 3 without a rail: Bob in hand.
FINAL = {"status": "in_play", "to_shoot": 1, "shot": 2, "ball_in_hand": "anywhere",
         "on_table": [2, 3, 4, 5, 6, 7, 8, 9, 10]}
EVENTS = ["match_started", "shot_result", "shot_result", "foul"]


def summary(state: dict[str, Any]) -> dict[str, Any]:
    return {k: state[k] for k in FINAL}
