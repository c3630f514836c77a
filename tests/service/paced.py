"""A simulated table whose clock never passes an input the service has not taken yet.

``controller.sim.backend.SimBackend`` plays a trace on the host's clock, sped up (the tests
play at 5-12 times real time), and hands its edges to the service's queue whether or not the
service has taken the ones before. On a loaded machine the table's task waits its turn (a
journal sync in a thread, the loop itself late): 0.3 s of that is 4 s of table time at 12
times, and the table then judged edges 4 s late (a cushion "stuck at 1 for 4.130 s", the
break's drop left out: ``test_outage``'s ``ball_pocketed`` short). A real table's edges are a
few milliseconds late in the same wait; the speed-up makes them seconds.

``PacedSim`` plays the same trace the same way, but hands over one input at a time, and
``SimGate`` is the host clock its service reads: real time, but held at the time of the next
input until the service has taken it (its clock's ``last_t`` has reached it). When the
service keeps up, the clock is the host's.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

from controller.pipeline.trace import Header, RequestLine, parse_line
from controller.sim.backend import Lines, LiveLines, RequestHook, SimBackend, matches_for
from controller.sim.simulator import player_names
from hardware.backend import SensorBackend
from hardware.events import LinkChanged, SensorEvent
from vocabulary import TABLE_CHANNELS

if TYPE_CHECKING:
    from controller.service.shell import Service


class SimGate:
    """The host's monotonic clock, never past ``next_at`` (an input due and not yet handed
    over; inf when none is)."""

    def __init__(self) -> None:
        self.next_at = math.inf

    def __call__(self) -> float:
        return min(time.monotonic(), self.next_at)


class PacedSim(SimBackend):
    """``SimBackend``, holding ``gate`` at each input until it is handed over."""

    def __init__(self, gate: SimGate, matches: Iterable[Lines | LiveLines], *, speed: float,
                 on_request: RequestHook, taken: Callable[[float], bool]) -> None:
        super().__init__(matches, speed=speed, on_request=on_request, clock=gate)
        self.gate = gate
        self.taken = taken  # whether the service has taken the input of a host time

    async def _until_taken(self, at: float) -> None:
        """Returns once the service has taken the input of host time ``at`` (the gate held
        there meanwhile): at once, in the loop's next rounds, or after its wait."""
        rounds = 0
        while not self.taken(at):
            rounds += 1
            await asyncio.sleep(0 if rounds < 20 else 0.001)

    async def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        """As ``SimBackend.events``, on the host's clock, with the gate held at each input."""
        yield LinkChanged(t=time.monotonic(), source="sim", up=True, channels=TABLE_CHANNELS)
        base = time.monotonic()
        for lines in self._matches:
            t0: float | None = None
            last = base
            n = 0
            async for raw in _each(lines):
                n += 1
                item = parse_line(json.dumps(raw), n)
                if isinstance(item, Header) or not isinstance(item, SensorEvent | RequestLine):
                    continue
                if t0 is None:
                    t0 = item.t
                at = base + (item.t - t0) / self.speed
                self.gate.next_at = at
                delay = at - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                last = at
                if isinstance(item, SensorEvent):
                    self._stats.events += 1
                    yield SensorEvent(at, item.ch, item.v, item.level, item.ball, item.pocket)
                elif self.on_request is not None:
                    self.on_request(item.name, dict(item.payload), at)
                await self._until_taken(at)
                self.gate.next_at = math.inf
            self.played += 1
            base = last + self.pause / self.speed
            delay = base - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)


async def _each(lines: Lines | LiveLines) -> AsyncIterator[dict[str, Any]]:
    if isinstance(lines, list):
        for raw in lines:
            yield raw
    else:
        async for raw in lines:
            yield raw


def paced_sim_backend(gate: SimGate) -> Callable[[Service], SensorBackend]:
    """Returns the backend factory of a service on ``gate``: ``sim_backend``'s, paced."""

    def make(service: Service) -> PacedSim:
        sim = service.config.sim
        matches = matches_for(trace=sim.trace, game=sim.game, shots=sim.shots, seed=sim.seed,
                              noise=sim.noise, players=sim.players, loop=sim.loop,
                              names=player_names(service.config.language))
        clock = service.core.time

        def taken(at: float) -> bool:  # the clock's last input is at or past it
            return clock.last_t >= round(clock.host(at), 6)

        return PacedSim(gate, matches, speed=service.core.time.speed,
                        on_request=lambda name, payload, t: service.request(name, payload, t),
                        taken=taken)

    return make
