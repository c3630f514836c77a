"""Test support: gpiozero's own MockFactory, driven from a thread the way lgpio calls back.

``SourceTickPin`` is a ``MockPin`` (plugged in through MockFactory's ``pin_class``, the
library's mechanism for custom mock pins) that reports the tick the driver gives an edge,
as lgpio reports the kernel's timestamp of the edge rather than when its thread got to it.
``PinDriver`` owns one thread that makes every edge happen, in order, at its tick.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin
from gpiozero.pins.pi import PiPin

from vocabulary import Kind, parse_channel

#: Pi 5 Model B 8GB; the default MockFactory revision (a02082) is a Pi 3B.
PI5_REVISION = "d04170"

#: What a sensor does to its pin when it reads 1: beams and the cue detector pull it low.
ACTIVE_LOW_KINDS = frozenset({Kind.BEAM, Kind.CUE})


class SourceTickPin(MockPin):  # type: ignore[misc]
    """A MockPin whose edges carry the tick the driver gave them (else the usual one)."""

    def __init__(self, factory: Any, info: Any) -> None:
        self.source_tick: float | None = None
        self.forced: bool | None = None
        super().__init__(factory, info)

    def drive(self, high: bool, tick: float | None = None) -> None:
        self.source_tick = tick
        try:
            if high:
                self.drive_high()
            else:
                self.drive_low()
        finally:
            self.source_tick = None

    def _set_pull(self, value: str) -> None:
        # MockPin drives an input to its pull; ``forced`` keeps a level the sensor holds
        # (a ball lodged in the beam) when the backend configures the pin.
        super()._set_pull(value)
        if self.forced is not None:
            self._change_state(self.forced)

    def _call_when_changed(self) -> None:
        tick = self._last_change if self.source_tick is None else self.source_tick
        PiPin._call_when_changed(self, tick, self._state)


def mock_factory(revision: str | None = None) -> MockFactory:
    return MockFactory(revision=revision, pin_class=SourceTickPin)


def pin_level(channel: str, value: int) -> bool:
    """Returns the pin level (True = high) a sensor on ``channel`` makes to read ``value``."""
    kind, _ = parse_channel(channel)
    return bool(value) != (kind in ACTIVE_LOW_KINDS)


class PinDriver:
    """Drives mock pins from its own thread, each edge at its source tick.

    ``await edge(channel, value, at)`` makes the edge happen ``at`` seconds after the
    driver's start (``t0``, a factory tick) and returns once the pin's callback has run.
    ``late`` delays every callback after its tick, like a busy lgpio thread.
    """

    tolerance = 0.0005

    def __init__(
        self, factory: MockFactory, pins: Mapping[str, int | str], *, late: float = 0.0
    ) -> None:
        self.factory = factory
        self.pins = dict(pins)
        self.channels = tuple(pins)
        self.late = late
        self.t0: float = factory.ticks()
        self._jobs: queue.Queue[tuple[SourceTickPin, bool, float, Future[None]] | None] = (
            queue.Queue()
        )
        self.thread = threading.Thread(target=self._run, name="mock-lgpio", daemon=True)
        self.thread.start()

    def pin(self, channel: str) -> SourceTickPin:
        pin = self.factory.pin(self.pins[channel])
        assert isinstance(pin, SourceTickPin)
        return pin

    def submit(self, channel: str, value: int, at: float) -> Future[None]:
        done: Future[None] = Future()
        self._jobs.put((self.pin(channel), pin_level(channel, value), self.t0 + at, done))
        return done

    async def edge(self, channel: str, value: int, at: float) -> None:
        await asyncio.wrap_future(self.submit(channel, value, at))

    def stop(self) -> None:
        self._jobs.put(None)
        self.thread.join(5)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            pin, high, tick, done = job
            try:
                delay = tick + self.late - self.factory.ticks()
                if delay > 0:
                    time.sleep(delay)
                pin.drive(high, tick)
            except BaseException as exc:  # handed to the awaiting test
                done.set_exception(exc)
            else:
                done.set_result(None)
