"""A simulated table for commissioning: an installer doing each step, with wiring faults.

``SimInstaller`` does each step physically (``controller.sim.pulses``: balls through beams, hits on
cushions, the ball return) on a timeline of its own, and hands the edges, as the miswired table
delivers them (``Faults``), to a sink: the ``SimTable`` backend (``commission --simulate``), a
simulated serial board, or mock GPIO pins. ``Faults`` are what installers get wrong: two wires
swapped, a sensor dead, one chattering, a receiver of the other polarity, and rails that shake
their other half strongly and late.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Self

from controller.commission.steps import QUIET_S, Step, StepKind
from controller.sim.pulses import ball_return, beam_block, beam_glitch, cushion_hit
from hardware.backend import BackendStats
from hardware.events import LinkChanged, SensorEvent
from vocabulary import SAME_RAIL, TABLE_CHANNELS, Kind, Pocket, Rail, cushion, parse_channel

#: Receives a step's edges (times on the installer's timeline); returns once they are handed on.
Sink = Callable[[list[SensorEvent]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Faults:
    """How the simulated table is miswired.

    ``swapped``: pairs of channels whose wires are exchanged; ``dead``: channels that never
    answer; ``chattering``: channels that fire on their own; ``inverted``: beams (or the cue-ball
    detector) whose receiver reads the other way round (1 while the beam is clear); ``stuck``:
    channels held at 1 that answer nothing (a ball lodged in a beam, a module stuck on);
    ``crosstalk``: the strength
    (relative) and the delay range (seconds) with which a hit on a long rail shakes its other
    half, or None for ordinary rails.
    """

    swapped: tuple[tuple[str, str], ...] = ()
    dead: frozenset[str] = frozenset()
    chattering: frozenset[str] = frozenset()
    inverted: frozenset[str] = frozenset()
    crosstalk: tuple[float, float, float] | None = None
    stuck: frozenset[str] = frozenset()

    def wire(self, ch: str) -> str | None:
        """Returns the channel a physical sensor's signal arrives on (None: it never does)."""
        if ch in self.dead:
            return None
        for a, b in self.swapped:
            if ch == a:
                return b
            if ch == b:
                return a
        return ch

    def at_rest(self, channels: Iterable[str]) -> dict[str, int]:
        """Returns the levels the table's channels read while nothing happens."""
        return {ch: 1 for ch in channels if ch in self.inverted or ch in self.stuck}


@dataclass(slots=True)
class SimInstaller:
    """Does each step on a simulated table and hands the wired edges to ``sink``."""

    sink: Sink
    faults: Faults = field(default_factory=Faults)
    rng: random.Random = field(default_factory=lambda: random.Random(1))
    quiet_s: float = QUIET_S
    #: How far apart (seconds) the installer does the actions of a step, the physics aside.
    spacing: float = 1.0
    cue_detector: bool = True
    identity_reader: bool = False
    #: Cushion channels read by a piezo (a peak ``level`` a hit) rather than a module (pulses).
    analogue: frozenset[str] = frozenset()
    #: The channels the table has a pin or input for (None: every one); others' edges are lost.
    channels: frozenset[str] | None = None
    t: float = 1.0  # the installer's timeline (seconds)

    async def do(self, step: Step) -> int:
        """Does ``step``; returns the number of edges the table delivered for it."""
        physical, length = self._physics(step)
        physical += self._chatter(self.t, length)
        wired: list[SensorEvent] = []
        for ev in sorted(physical, key=lambda e: e.t):
            ch = self.faults.wire(ev.ch)
            if ch is None or ch in self.faults.stuck or (
                    self.channels is not None and ch not in self.channels):
                continue
            v = ev.v ^ 1 if ch in self.faults.inverted else ev.v
            wired.append(replace(ev, t=round(ev.t, 6), ch=ch, v=v))  # µs, as sources time
        self.t += length
        await self.sink(wired)
        return len(wired)

    def _physics(self, step: Step) -> tuple[list[SensorEvent], float]:
        t, rng, sp = self.t, self.rng, self.spacing
        match step.kind:
            case StepKind.QUIET:
                return [], self.quiet_s
            case StepKind.POCKET:
                assert isinstance(step.target, Pocket)
                pocket = step.target
                return [*beam_block(pocket, t + 0.2 * sp, rng, speed=0.5, glitch=True),
                        *beam_glitch(pocket, t + 0.6 * sp, rng),
                        *beam_block(pocket, t + 1.0 * sp, rng, speed=3.0)], 1.5 * sp
            case StepKind.CUSHION:
                assert isinstance(step.target, Rail)
                rail = step.target
                return [*self._hit(rail, t + 0.1 * sp, 0.3),
                        *self._hit(rail, t + 1.1 * sp, 0.9)], 1.6 * sp
            case StepKind.RETURN:
                events = []
                balls: tuple[tuple[int | str, Pocket], ...] = (
                    ("cue", Pocket.HEAD_LEFT), (1, Pocket.FOOT_RIGHT), (2, Pocket.SIDE_LEFT),
                    (3, Pocket.FOOT_LEFT))
                for i, (ball, pocket) in enumerate(balls):
                    at = t + 0.2 + 3.0 * i
                    events += beam_block(pocket, at, rng, speed=1.0)
                    events += ball_return(ball, at, rng, pocket, cue_detector=self.cue_detector,
                                          identity_reader=self.identity_reader)
                return events, 12.5
            case StepKind.CLICK | StepKind.STRIKE:
                ch = str(step.expect)
                return [*self._tap(ch, t + 0.1 * sp, 0.3), *self._tap(ch, t + 1.1 * sp, 0.9)], 1.6 * sp
            case StepKind.BREAK:
                events = []
                for rail in rng.sample(list(Rail), 4):
                    events += self._hit(rail, t + rng.uniform(0.1, 1.5), rng.uniform(0.3, 0.9))
                events += beam_block(rng.choice(list(Pocket)), t + rng.uniform(0.5, 2.0), rng)
                return events, 4.0
        raise ValueError(step.kind)

    def _hit(self, rail: Rail, t: float, strength: float) -> list[SensorEvent]:
        cross = self.faults.crosstalk
        twin = SAME_RAIL.get(rail)
        piezo = cushion(rail) in self.analogue
        events = cushion_hit(rail, t, self.rng, strength, crosstalk=cross is None, analogue=piezo)
        if cross is not None and twin is not None:
            level, lo, hi = cross
            events += cushion_hit(twin, t + self.rng.uniform(lo, hi), self.rng, strength * level,
                                  crosstalk=False, analogue=cushion(twin) in self.analogue)
        return events

    def _tap(self, ch: str, t: float, strength: float) -> list[SensorEvent]:
        """Returns a click or strike sensor's answer to one contact of ``strength`` 0–1."""
        if ch in self.analogue:
            peak = round(min(1.0, max(0.05, strength * self.rng.uniform(0.8, 1.2))), 3)
            return [SensorEvent(t, ch, 1, level=peak), SensorEvent(t + 0.004, ch, 0)]
        on = self.rng.uniform(0.002, 0.006)
        return [SensorEvent(t, ch, 1), SensorEvent(t + on, ch, 0)]

    def _chatter(self, t: float, length: float) -> list[SensorEvent]:
        events: list[SensorEvent] = []
        for ch in sorted(self.faults.chattering):
            at = t + self.rng.uniform(0.0, 0.1)
            while at < t + length - 0.01:
                on = self.rng.uniform(0.001, 0.004)
                level = round(self.rng.uniform(0.02, 0.06), 3) if ch in self.analogue else None
                events += [SensorEvent(at, ch, 1, level=level), SensorEvent(at + on, ch, 0)]
                at += on + self.rng.uniform(0.03, 0.15)
        return events


class SimTable:
    """The simulated table as a sensor backend: what ``SimInstaller`` does, as it is wired."""

    name = "commission-sim"

    def __init__(self, faults: Faults | None = None,
                 channels: tuple[str, ...] = TABLE_CHANNELS) -> None:
        self.faults = faults or Faults()
        self.channels = channels
        self._queue: asyncio.Queue[SensorEvent | LinkChanged | None] = asyncio.Queue()
        self._stats = BackendStats(links={self.name: False})

    async def __aenter__(self) -> Self:
        self._stats.links[self.name] = True
        self._queue.put_nowait(LinkChanged(0.0, self.name, True, channels=self.channels))
        for ch, v in self.faults.at_rest(self.channels).items():
            self._queue.put_nowait(SensorEvent(0.0, ch, v))
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self._stats.links[self.name] = False
        self._queue.put_nowait(None)

    async def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        """Yields what the table delivers; ends when it is closed."""
        while (item := await self._queue.get()) is not None:
            self._stats.events += isinstance(item, SensorEvent)
            yield item

    def stats(self) -> BackendStats:
        """Returns the counters."""
        return BackendStats(events=self._stats.events, links=dict(self._stats.links))

    async def deliver(self, events: list[SensorEvent]) -> None:
        """The installer's sink: the edges go out as they happened, in order."""
        for ev in events:
            self._queue.put_nowait(ev)


def parse_faults(swap: Iterable[str] = (), dead: Iterable[str] = (), chatter: Iterable[str] = (),
                 invert: Iterable[str] = (), crosstalk: float | None = None,
                 stuck: Iterable[str] = ()) -> Faults:
    """Returns the faults named on the command line (``--swap beam.hl,beam.hr`` ...).

    Raises ValueError for a channel the vocabulary does not define or a swap that is no pair.
    """
    pairs = []
    for item in swap:
        a, sep, b = item.partition(",")
        if not sep:
            raise ValueError(f"--swap takes two channels, a,b: {item!r}")
        parse_channel(a)
        parse_channel(b)
        pairs.append((a, b))
    for ch in (*dead, *chatter, *invert, *stuck):
        parse_channel(ch)
    for ch in invert:
        if parse_channel(ch)[0] not in (Kind.BEAM, Kind.CUE):
            raise ValueError(f"--invert takes beams or the cue-ball detector (cue): {ch!r}")
    return Faults(tuple(pairs), frozenset(dead), frozenset(chatter), frozenset(invert),
                  None if crosstalk is None else (crosstalk, 0.030, 0.045), frozenset(stuck))

