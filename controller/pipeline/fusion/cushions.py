"""The cushion sensors' filter: each sensor's pulses in, hits out (rail and first edge).

Pulses closer than ``cushion_gap_s`` are one burst, one hit, timed at its first edge; a
sensor stuck on ends its burst after ``cushion_max_on_s``. Of two bursts on the two halves of
one long rail starting within ``crosstalk_s``, only the stronger (analogue peak, else time
on) counts. It knows nothing of shots: fusion decides which shot a hit belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules import Rail
from vocabulary import SAME_RAIL

INF = float("inf")


@dataclass(slots=True)
class Burst:
    """One hit's train of pulses on one rail segment."""

    rail: Rail
    start: float
    last: float
    on_time: float = 0.0
    peak: float | None = None


@dataclass(slots=True)
class _Cushion:
    on: bool = False
    on_since: float = 0.0
    burst: Burst | None = None


class Cushions:
    """Every rail segment's cushion sensor, filtered (see the module docstring)."""

    def __init__(self, gap_s: float, max_on_s: float, crosstalk_s: float) -> None:
        self.gap_s, self.max_on_s, self.crosstalk_s = gap_s, max_on_s, crosstalk_s
        self._cushions = {r: _Cushion() for r in Rail}
        self._closed: list[Burst] = []  # closed, waiting for a crosstalk partner
        #: A burst closed since the last ``settle``: there is work now.
        self.ready = False
        #: How many bursts were a long rail's other half shaking (crosstalk), not a hit.
        self.crosstalk = 0

    def edge(self, rail: Rail, t: float, v: int, level: float | None) -> bool:
        """Takes one pulse edge of ``rail``'s sensor; returns whether it began a new burst
        (activity at ``t``)."""
        cushion = self._cushions[rail]
        burst = cushion.burst
        began = False
        if v:
            if burst is None or (not cushion.on and t - burst.last > self.gap_s):
                if burst is not None:
                    self._close(cushion)
                burst = cushion.burst = Burst(rail, t, t)
                began = True
            if not cushion.on:
                cushion.on, cushion.on_since = True, t
            if level is not None:
                burst.peak = level if burst.peak is None else max(burst.peak, level)
        elif cushion.on:
            cushion.on = False
            if burst is not None:
                burst.on_time += t - cushion.on_since
                burst.last = t
        return began

    def advance(self, now: float) -> list[Burst]:
        """Runs the clock to ``now``: closes the bursts that are over; returns the hits."""
        for cushion in self._cushions.values():
            burst = cushion.burst
            if burst is None:
                continue
            if cushion.on and cushion.on_since + self.max_on_s <= now:
                burst.on_time += now - cushion.on_since
                cushion.on_since = now
                self._close(cushion)
            elif not cushion.on and burst.last + self.gap_s <= now:
                self._close(cushion)
        return self.settle()

    def _close(self, cushion: _Cushion) -> None:
        burst = cushion.burst
        assert burst is not None
        cushion.burst = None
        self._closed.append(burst)
        self.ready = True

    def settle(self) -> list[Burst]:
        """Returns each closed burst that counts as a hit, once its crosstalk partner (if any)
        is closed too."""
        self.ready = False  # what stays waits for an open twin: its closing wakes us
        hits: list[Burst] = []
        if not self._closed:
            return hits
        window = self.crosstalk_s
        waiting: list[Burst] = []
        done: set[int] = set()
        for i, burst in enumerate(self._closed):
            if i in done:
                continue
            twin_rail = SAME_RAIL.get(burst.rail)
            partner: Burst | None = None
            if twin_rail is not None:
                open_twin = self._cushions[twin_rail].burst
                if open_twin is not None and abs(open_twin.start - burst.start) <= window:
                    waiting.append(burst)
                    continue
                for j in range(i + 1, len(self._closed)):
                    other = self._closed[j]
                    if other.rail == twin_rail and j not in done and abs(
                            other.start - burst.start) <= window:
                        partner = other
                        done.add(j)
                        break
            if partner is None:
                hits.append(burst)
            else:
                self.crosstalk += 1
                hits.append(max(burst, partner, key=_strength))
        self._closed = waiting
        return hits

    def due(self, rail: Rail) -> float:
        """Returns when ``rail``'s burst closes (its sensor quiet long enough, or on too long)."""
        cushion = self._cushions[rail]
        if cushion.burst is None:
            return INF
        if cushion.on:
            return cushion.on_since + self.max_on_s
        return cushion.burst.last + self.gap_s

    def next_due(self) -> float:
        """Returns the earliest time a burst closes (inf: none open)."""
        return min((self.due(r) for r in self._cushions), default=INF)

    def mute(self, rail: Rail) -> None:
        """Drops ``rail``'s burst in progress (its sensor is out of order)."""
        cushion = self._cushions[rail]
        cushion.on, cushion.burst = False, None


def _strength(burst: Burst) -> tuple[float, float, float]:
    """Stronger first: the analogue peak, then time on, then the earlier start."""
    return (burst.peak if burst.peak is not None else 0.0, burst.on_time, -burst.start)
