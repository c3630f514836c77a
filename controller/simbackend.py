"""The ``sim`` sensor backend: simulated matches played in (scaled) real time.

A match is a list of trace lines (interfaces §2: header first, then sensor and request
lines). ``SimBackend`` yields the sensor lines as ``SensorEvent`` at their time, on the host's
monotonic timeline compressed ``speed`` times, and hands the request lines to ``on_request``
(what a scorekeeper's keypad would send). After a match it waits a few seconds and plays the
next one from ``matches``; it ends when ``matches`` is exhausted.

``matches_for(...)`` makes the matches: a trace file (replayed again and again), the
simulator (``controller.simulator.simulate_lines``) or, where that is missing, a scripted
Ten-ball run-out.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from controller.trace import Header, RequestLine, parse_line
from hardware.backend import BackendStats
from hardware.events import LinkChanged, SensorEvent
from hardware.physics import ball_return, beam_block, cushion_hit

log = logging.getLogger(__name__)

Lines = list[dict[str, Any]]
#: Called with a request line's name, payload and host time.
RequestHook = Callable[[str, dict[str, Any], float], None]

CHANNELS = (*(f"beam.{p}" for p in ("hl", "hr", "sl", "sr", "fl", "fr")),
            *(f"cushion.{r}" for r in ("h", "f", "lh", "lf", "rh", "rf")), "cue")


class SimBackend:
    """Plays matches as a ``hardware.SensorBackend`` (see the module docstring)."""

    name = "sim"

    def __init__(self, matches: Iterable[Lines], *, speed: float = 1.0,
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
        yield LinkChanged(t=self._clock(), source="sim", up=True, channels=CHANNELS)
        base = self._clock()
        for lines in self._matches:
            t0: float | None = None
            last = base
            for n, raw in enumerate(lines, start=1):
                item = parse_line(json.dumps(raw), n)
                if isinstance(item, Header) or not isinstance(item, SensorEvent | RequestLine):
                    continue
                if t0 is None:
                    t0 = item.t
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


def scripted_ten_ball(seed: int) -> Lines:
    """Returns a Ten-ball run-out (race to 1): a break that drops a ball, then nine calls."""
    rng = random.Random(seed)
    names = [("Ann", "Bob"), ("Cleo", "Dan"), ("Eve", "Finn"), ("Gus", "Hana")][seed % 4]
    t = 1.0
    lines: Lines = [{"trace": 1, "venue": "demo", "table": "sim"}]

    def request(name: str, payload: dict[str, Any], dt: float = 1.0) -> None:
        nonlocal t
        t += dt
        lines.append({"t": round(t, 6), "request": name, "payload": payload})

    def shot(drops: list[str], rails: list[str]) -> None:
        nonlocal t
        at = t + 1.0
        events = []
        for rail in rails:
            at += rng.uniform(0.2, 0.5)
            events += cushion_hit(rail, at, rng, strength=rng.uniform(0.3, 0.9))
        for pocket in drops:
            at += rng.uniform(0.2, 0.5)
            events += beam_block(pocket, at, rng, speed=rng.uniform(0.3, 4.5))
        events.sort(key=lambda e: e.t)
        lines.extend(e.to_json() for e in events)
        t = max([at] + [e.t for e in events]) + 4.0

    request("new_match", {"game": "ten-ball", "players": list(names), "race_to": 1})
    shot(["fl"], ["f", "lf", "rf"])
    request("answer", {"answer": 2})
    pockets = ["fr", "sl", "hl", "hr", "fl", "sr", "fr", "fl", "sl"]
    for ball, pocket in zip([1, 3, 4, 5, 6, 7, 8, 9, 10], pockets, strict=True):
        request("call", {"calls": [{"ball": ball, "pocket": pocket}]})
        shot([pocket], ["h"])
    _ = ball_return  # the scripted tables have no ball-return sensors
    return lines


def _simulator() -> Callable[..., Lines] | None:
    try:
        module = importlib.import_module("controller.simulator")
    except Exception:  # missing, or broken: the scripted match will do
        log.warning("no simulator (controller.simulator): playing scripted matches", exc_info=True)
        return None
    found = getattr(module, "simulate_lines", None)
    return found if callable(found) else None


def matches_for(*, trace: Path | None = None, game: str = "ten-ball", shots: int = 60,
                seed: int = 1, noise: bool = False, players: int = 2,
                loop: bool = True) -> Iterator[Lines]:
    """Yields matches to play: the trace file's (again and again if ``loop``), else simulated."""
    if trace is not None:
        recorded = [json.loads(text) for text in trace.read_text(encoding="utf-8").splitlines()
                    if text.strip()]
        yield from (itertools.repeat(recorded) if loop else [recorded])
        return
    simulate = _simulator()
    for n in itertools.count() if loop else range(1):
        lines: Lines | None = None
        if simulate is not None:
            try:
                lines = simulate(game, shots, seed + n, noise, players)
            except Exception:  # the simulator's bug must not stop the table: play the script
                log.exception("the simulator failed (%s, seed %d); playing a scripted match",
                              game, seed + n)
        yield lines if lines is not None else scripted_ten_ball(seed + n)
