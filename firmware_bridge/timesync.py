"""Board ticks onto the host's monotonic timeline: tick unwrapping and NTP-style clock fitting.

Pure objects, no clock read and no I/O: the link feeds them ticks and measured exchanges.

A board counts microseconds in ``bits``-bit ticks that wrap (30 bits: every ~17.9 minutes).
``TickUnwrapper`` turns them into a count that never wraps, as long as it sees a tick at
least every half period (the board's heartbeats see to that); a tick a little older than the
newest seen (an edge that waited in the board's buffer) unwraps to the past, not the future.

``ClockFit`` keeps the last ``window`` time-sync samples and maps unwrapped ticks to host
seconds. Each sample is one exchange: the host sent at ``t1`` and received at ``t4`` (host
seconds); the board received at tick ``k2`` and replied at ``k3``. Its round trip is
``(t4 - t1) - (k3 - k2) µs``, its midpoints ``(t1 + t4) / 2`` and ``(k2 + k3) / 2`` are
taken to be the same instant. Only the best (lowest round-trip) samples are fitted, since
their midpoints are the least distorted by queueing: offset and drift by least squares once
they span ``min_span`` seconds, else offset only (the best recent sample, at the last known
rate).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

NOMINAL_RATE = 1e-6  # host seconds per board tick


class TickUnwrapper:
    """Unwraps ``bits``-bit tick counts into a monotonic-ish count that never wraps."""

    __slots__ = ("bits", "_period", "_half", "_last")

    def __init__(self, bits: int = 30) -> None:
        self.bits = bits
        self._period = 1 << bits
        self._half = 1 << (bits - 1)
        self._last: int | None = None

    def unwrap(self, raw: int) -> int:
        """Returns the unwrapped tick nearest to the newest seen (ticks a half period back
        or less unwrap to the past)."""
        if self._last is None:
            self._last = raw
            return raw
        delta = (raw - self._last) % self._period
        if delta >= self._half:
            return self._last + delta - self._period  # older than the newest: don't advance
        self._last += delta
        return self._last

    @property
    def newest(self) -> int:
        """Returns the newest unwrapped tick seen (0 before any)."""
        return self._last or 0

    def reset(self) -> None:
        """Forgets every tick seen (a new boot or a new connection)."""
        self._last = None


@dataclass(frozen=True, slots=True)
class SyncSample:
    """One time-sync exchange reduced to a pair of simultaneous instants and its round trip."""

    tick: float  # the board's midpoint, unwrapped ticks
    host: float  # the host's midpoint, seconds
    rtt: float  # seconds spent on the wire and in queues


def sample(t1: float, t4: float, k2: int, k3: int) -> SyncSample:
    """Returns the sample of one exchange (``k2``/``k3`` unwrapped ticks, ``t1``/``t4`` host s)."""
    busy = max(k3 - k2, 0)
    return SyncSample(tick=(k2 + k3) / 2, host=(t1 + t4) / 2, rtt=(t4 - t1) - busy * NOMINAL_RATE)


class ClockFit:
    """Maps unwrapped board ticks to host seconds from the best time-sync samples."""

    __slots__ = ("_samples", "_best", "_min_span", "_recent", "rate", "_k0", "_h0", "_fitted")

    def __init__(
        self, window: int = 64, best: float = 0.5, min_span: float = 2.0, recent: int = 5
    ) -> None:
        self._samples: deque[SyncSample] = deque(maxlen=window)
        self._best = best
        self._min_span = min_span
        self._recent = recent
        self.rate = NOMINAL_RATE
        self._k0 = 0.0
        self._h0 = 0.0
        self._fitted = False

    @property
    def ready(self) -> bool:
        """Returns whether at least one sample has been fitted."""
        return bool(self._samples)

    @property
    def samples(self) -> int:
        """Returns how many samples the window holds."""
        return len(self._samples)

    @property
    def drift_ppm(self) -> float:
        """Returns how much faster the board's clock runs than the host's, in ppm."""
        return (NOMINAL_RATE / self.rate - 1.0) * 1e6

    @property
    def fitted_drift(self) -> bool:
        """Returns whether the rate was fitted (rather than assumed)."""
        return self._fitted

    def rtts(self) -> list[float]:
        """Returns the round trips of the samples in the window, oldest first."""
        return [s.rtt for s in self._samples]

    def add(self, s: SyncSample) -> None:
        """Adds one sample and refits."""
        self._samples.append(s)
        self._refit()

    def reset(self) -> None:
        """Forgets every sample (a new boot or a new connection: the ticks start over)."""
        self._samples.clear()
        self._fitted = False
        self.rate = NOMINAL_RATE

    def to_host(self, tick: int | float) -> float:
        """Returns the host time of an unwrapped board tick.

        Raises LookupError if no sample has been added yet.
        """
        if not self._samples:
            raise LookupError("no time-sync sample yet")
        return self._h0 + (tick - self._k0) * self.rate

    def offset(self, tick: int | float) -> float:
        """Returns host time minus board time (ticks as seconds) at ``tick``."""
        return self.to_host(tick) - tick * NOMINAL_RATE

    def _refit(self) -> None:
        samples = list(self._samples)
        keep = max(1, int(len(samples) * self._best + 0.5))
        best = sorted(samples, key=lambda s: s.rtt)[:keep]
        span = (max(s.tick for s in best) - min(s.tick for s in best)) * NOMINAL_RATE
        if len(best) >= 3 and span >= self._min_span:
            n = len(best)
            mk = sum(s.tick for s in best) / n
            mh = sum(s.host for s in best) / n
            sxx = sum((s.tick - mk) ** 2 for s in best)
            sxy = sum((s.tick - mk) * (s.host - mh) for s in best)
            rate = sxy / sxx
            if abs(rate / NOMINAL_RATE - 1.0) < 0.01:  # a crystal is never 1 % off
                self.rate, self._k0, self._h0, self._fitted = rate, mk, mh, True
                return
        # Too little spread to see drift: the best recent sample, at the last known rate.
        recent = min(samples[-self._recent :], key=lambda s: s.rtt)
        self._k0, self._h0 = recent.tick, recent.host
