"""The pocket beams' filter: each beam's edges in, balls out (timed at their block's start).

A level that reverts within ``noise_s`` never happened; a block that lasts ``min_block_s`` is
a ball, counted at once (not when it clears). It knows nothing of shots: fusion decides
which shot a ball belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules import Pocket

INF = float("inf")


@dataclass(slots=True)
class _Beam:
    level: int = 0
    pend_t: float = INF  # an edge not yet confirmed (a glitch reverts within noise_s)
    pend_v: int = 0
    block_start: float = INF
    counted: bool = False  # the block in progress already counted as a ball


class Beams:
    """Every pocket's beam, filtered (see the module docstring)."""

    def __init__(self, noise_s: float, min_block_s: float) -> None:
        self.noise_s = noise_s
        self.min_block_s = min_block_s
        self._beams = {p: _Beam() for p in Pocket}

    def edge(self, pocket: Pocket, t: float, v: int) -> list[float]:
        """Takes one edge of ``pocket``'s beam; returns the balls it confirmed (block starts)."""
        beam = self._beams[pocket]
        v = 1 if v else 0
        balls: list[float] = []
        if beam.pend_t != INF:
            if t - beam.pend_t < self.noise_s:
                if v == beam.level:  # it went back: a glitch
                    beam.pend_t = INF
                return balls
            self._confirm(beam, balls)
        if v != beam.level:
            beam.pend_t, beam.pend_v = t, v
        return balls

    def advance(self, now: float) -> list[tuple[Pocket, float]]:
        """Runs the clock to ``now``; returns the balls counted meanwhile, in pocket order."""
        balls: list[tuple[Pocket, float]] = []
        for pocket, beam in self._beams.items():
            found: list[float] = []
            if beam.pend_t + self.noise_s <= now:
                self._confirm(beam, found)
            if beam.level and not beam.counted and beam.block_start + self.min_block_s <= now:
                beam.counted = True
                found.append(beam.block_start)
            balls += [(pocket, t) for t in found]
        return balls

    def _confirm(self, beam: _Beam, balls: list[float]) -> None:
        t, v = beam.pend_t, beam.pend_v
        beam.pend_t = INF
        beam.level = v
        if v:
            beam.block_start, beam.counted = t, False
            return
        if not beam.counted and t - beam.block_start >= self.min_block_s:
            balls.append(beam.block_start)
        beam.counted = False
        beam.block_start = INF

    def due(self, pocket: Pocket) -> float:
        """Returns when ``pocket``'s pending edge is confirmed or its block counts as a ball."""
        beam = self._beams[pocket]
        due = beam.pend_t + self.noise_s
        if beam.level and not beam.counted:
            due = min(due, beam.block_start + self.min_block_s)
        return due

    def next_due(self) -> float:
        """Returns the earliest time a beam has work (inf: none)."""
        return min((self.due(p) for p, b in self._beams.items()
                    if b.pend_t != INF or b.level and not b.counted), default=INF)

    def blocked_since(self, pocket: Pocket) -> float | None:
        """Returns when ``pocket``'s beam was blocked, if it is now."""
        beam = self._beams[pocket]
        return beam.block_start if beam.level else None

    def reset(self, pocket: Pocket) -> None:
        """Forgets ``pocket``'s beam's level (it is out of order: nothing it says counts)."""
        self._beams[pocket] = _Beam()
