"""The ``sim`` sensor backend: simulated matches played in (scaled) real time.

A match is a list of trace lines (interfaces §2: header first, then sensor and request
lines). ``SimBackend`` yields the sensor lines as ``SensorEvent`` at their time, on the host's
monotonic timeline compressed ``speed`` times, and hands the request lines to ``on_request``
(what a scorekeeper's keypad would send). After a match it waits a few seconds and plays the
next one from ``matches``; it ends when ``matches`` is exhausted.

``matches_for(...)`` makes the matches: a trace file (replayed again and again), or the
simulator's (``controller.sim.simulator.simulate_lines``), a new seed each match.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import time
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

from controller.pipeline.trace import Header, RequestLine, parse_line
from controller.sim.simulator import NAMES, player_names, simulate_lines
from hardware.backend import BackendStats
from hardware.events import LinkChanged, SensorEvent
from rules.games import default_game
from vocabulary import TABLE_CHANNELS

if TYPE_CHECKING:
    from controller.service.shell import Service

Lines = list[dict[str, Any]]
#: A match being played live (a driver adding lines as they happen) is an async iterable.
LiveLines = AsyncIterable[dict[str, Any]]
#: Called with a request line's name, payload and host time.
RequestHook = Callable[[str, dict[str, Any], float], None]

class SimBackend:
    """Plays matches as a ``hardware.SensorBackend`` (see the module docstring)."""

    name = "sim"

    def __init__(self, matches: Iterable[Lines | LiveLines], *, speed: float = 1.0,
                 on_request: RequestHook | None = None, pause: float = 5.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._matches = iter(matches)
        self.speed = speed
        self.on_request = on_request
        self.pause = pause
        self._clock = clock
        self._stats = BackendStats(links={"sim": False})
        self.played = 0

    async def __aenter__(self) -> Self:
        self._stats.links["sim"] = True
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self._stats.links["sim"] = False

    async def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        """Yields the matches' sensor events at their (scaled) time; ends after the last."""
        yield LinkChanged(t=self._clock(), source="sim", up=True, channels=TABLE_CHANNELS)
        base = self._clock()
        for lines in self._matches:
            t0: float | None = None
            last = base
            n = 0
            async for raw in _each(lines):
                n += 1
                item = parse_line(json.dumps(raw), n)
                if isinstance(item, Header) or not isinstance(item, SensorEvent | RequestLine):
                    continue
                if t0 is None:  # a match starts now, not when the last one's lines ran out
                    t0 = item.t  # (a live driver may have waited since, for a result)
                    base = max(base, self._clock())
                at = base + (item.t - t0) / self.speed
                delay = at - self._clock()
                if delay > 0:
                    await asyncio.sleep(delay)
                last = at
                if isinstance(item, SensorEvent):
                    self._stats.events += 1
                    yield SensorEvent(at, item.ch, item.v, item.level, item.ball, item.pocket)
                elif self.on_request is not None:
                    self.on_request(item.name, dict(item.payload), at)
            self.played += 1
            base = last + self.pause / self.speed
            delay = base - self._clock()
            if delay > 0:
                await asyncio.sleep(delay)

    def stats(self) -> BackendStats:
        return BackendStats(events=self._stats.events, links=dict(self._stats.links))


async def _each(lines: Lines | LiveLines) -> AsyncIterator[dict[str, Any]]:
    if isinstance(lines, list):
        for raw in lines:
            yield raw
    else:
        async for raw in lines:
            yield raw


def matches_for(*, trace: Path | None = None, game: str | None = None, shots: int = 60,
                seed: int = 1, noise: bool = False, players: int = 2,
                loop: bool = True, names: tuple[str, ...] = NAMES) -> Iterator[Lines]:
    """Yields matches to play: the trace file's (again and again if ``loop``), else simulated."""
    if trace is not None:
        recorded = [json.loads(text) for text in trace.read_text(encoding="utf-8").splitlines()
                    if text.strip()]
        yield from (itertools.repeat(recorded) if loop else [recorded])
        return
    for n in itertools.count() if loop else range(1):
        yield regulars(simulate_lines(game or default_game(), shots, seed + n, noise, players,
                                      names=names))


def regulars(lines: Lines) -> Lines:
    """Returns a simulated match's lines with its players picked from the venue's roster
    (``new_match``'s ``player_ids``, one id a name, the same every match): the simulated
    tables' players are regulars, so the venue record knows them as one person each across
    tables and matches, as a console picking them from the roster makes them."""
    out = []
    for line in lines:
        payload = line.get("payload")
        if line.get("request") == "new_match" and isinstance(payload, dict):
            ids = [f"sim-{hashlib.sha1(str(name).encode()).hexdigest()[:12]}"
                   for name in payload.get("players") or ()]
            line = {**line, "payload": {**payload, "player_ids": ids}}
        out.append(line)
    return out


def sim_backend(service: Service) -> SimBackend:
    """Returns the ``sim`` backend of ``service``'s configuration (``[sim]``), playing at the
    service's speed and handing its referee's requests to ``service.request``."""
    sim = service.config.sim
    matches = matches_for(trace=sim.trace, game=sim.game, shots=sim.shots, seed=sim.seed,
                          noise=sim.noise, players=sim.players, loop=sim.loop,
                          names=player_names(service.config.language))
    return SimBackend(matches, speed=service.core.time.speed,
                      on_request=lambda name, payload, t: service.request(name, payload, t),
                      clock=service.host_clock)
