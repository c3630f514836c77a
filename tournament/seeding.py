"""Seeding: the order of the players (by hand or from ratings) and where each seed stands in a
bracket, so the best two can only meet in the final."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tournament.errors import BadDraw
from tournament.records import PlayerId


def bracket_size(players: int) -> int:
    """Returns the smallest power of two holding ``players`` (the rest of it are byes)."""
    size = 1
    while size < players:
        size *= 2
    return size


def seed_positions(size: int) -> list[int]:
    """Returns the seeds (1-based) in bracket order for a bracket of ``size`` slots: seed 1
    meets seed ``size`` first, and seeds 1 and 2 are in opposite halves (``[1, 4, 2, 3]``)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for first in order for seed in (first, total - first)]
    return order


def by_rating(players: Sequence[PlayerId], ratings: Mapping[PlayerId, float]) -> tuple[PlayerId, ...]:
    """Returns ``players`` best rating first; a player without a rating comes after the rated
    ones, in the order given. Raises BadDraw for a player named twice."""
    check_unique(players)
    rated = sorted((p for p in players if p in ratings), key=lambda p: -ratings[p])
    return tuple(rated) + tuple(p for p in players if p not in ratings)


def by_hand(players: Sequence[PlayerId], order: Sequence[PlayerId]) -> tuple[PlayerId, ...]:
    """Returns ``order`` as the seeding; raises BadDraw unless it names every player once."""
    check_unique(order)
    if sorted(order) != sorted(players):
        raise BadDraw("the seeding must name every player of the tournament once")
    return tuple(order)


def check_unique(players: Sequence[PlayerId]) -> None:
    """Raises BadDraw if a player is named twice."""
    if len(set(players)) != len(players):
        raise BadDraw("a player is named twice; each player enters once")
