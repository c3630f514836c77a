"""The simulator backend under the contract: a driver adds trace lines as the edges happen."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from controller.sim.backend import SimBackend


class LineDriver:
    """Makes an edge happen on the simulated table: a sensor line at its time, played live."""

    tolerance = 0.000001  # the simulator's times are the trace's, exactly
    channels = ("beam.sr", "cushion.rh")

    def __init__(self) -> None:
        self.lines: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    async def edge(self, channel: str, value: int, at: float) -> None:
        await self.lines.put({"t": 100.0 + at, "ch": channel, "v": value})

    async def match(self) -> AsyncIterator[dict[str, Any]]:
        yield {"trace": 1}
        while (line := await self.lines.get()) is not None:
            yield line


@asynccontextmanager
async def _make() -> AsyncIterator[tuple[SimBackend, LineDriver]]:
    driver = LineDriver()
    async with SimBackend([driver.match()]) as backend:
        try:
            yield backend, driver
        finally:
            await driver.lines.put(None)


MAKER = _make
