"""A group's table: its players ranked once every match of the group counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tournament.records import PlayerId, Result


@dataclass(frozen=True, slots=True)
class Line:
    """One player's line of a group's table."""

    player: PlayerId
    played: int
    won: int
    frames_for: int
    frames_against: int

    @property
    def difference(self) -> int:
        return self.frames_for - self.frames_against


def table(players: Sequence[PlayerId], results: Sequence[Result]) -> list[Line]:
    """Returns the group's lines, best first: most wins, then the best frame difference, then
    most frames won, then the seeding (``players``' order)."""
    lines = []
    for player in players:
        mine = [r for r in results if player in r.players]
        frames_for = frames_against = 0
        for r in mine:
            if r.score is not None:
                at = r.players.index(player)
                frames_for += r.score[at]
                frames_against += r.score[1 - at]
        lines.append(Line(player, len(mine), sum(r.winner == player for r in mine),
                          frames_for, frames_against))
    order = {player: i for i, player in enumerate(players)}
    return sorted(lines, key=lambda ln: (-ln.won, -ln.difference, -ln.frames_for, order[ln.player]))
