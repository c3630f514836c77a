"""The GPIO backend under the contract: gpiozero's MockFactory pins, driven from a thread."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from hardware.gpio import GpioBackend
from tests.hardware.pins import PinDriver, mock_factory

PINS: dict[str, int | str] = {"beam.fl": 17, "cushion.lf": "GPIO27", "cue": 22, "strike": 23}


@asynccontextmanager
async def _make() -> AsyncIterator[tuple[GpioBackend, PinDriver]]:
    factory = mock_factory()
    try:
        async with GpioBackend(PINS, pin_factory=factory) as backend:
            driver = PinDriver(factory, PINS)
            try:
                yield backend, driver
            finally:
                driver.stop()
    finally:
        factory.close()


MAKER = _make
