"""«Фора»: a handicap per pairing from the players' standing levels."""

from __future__ import annotations

from dataclasses import dataclass

from tournament.records import Handicap, PlayerId


@dataclass(frozen=True, slots=True)
class Handicaps:
    """Each player's level (higher is stronger; a player not named is level 0) and the most
    frames a pairing's weaker player may start ahead (0: no cap)."""

    levels: tuple[tuple[PlayerId, int], ...] = ()
    cap: int = 0

    def pairing(self, a: PlayerId, b: PlayerId) -> Handicap | None:
        """Returns the handicap of ``a`` against ``b``: the weaker starts the level difference
        ahead (capped), or None between equals."""
        levels = dict(self.levels)
        difference = levels.get(a, 0) - levels.get(b, 0)
        if difference == 0:
            return None
        frames = min(abs(difference), self.cap) if self.cap else abs(difference)
        return Handicap(b if difference > 0 else a, frames)
