"""The serial backend in the contract: the real firmware on a simulated board on a pty."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from firmware_bridge.backend import SerialBackend
from firmware_bridge.sim import SimBoard


class SerialDriver:
    """Makes edges happen on the simulated board's pins, timestamped by its own clock."""

    tolerance = 0.001
    channels = ("beam.fl", "cushion.lf")

    def __init__(self, board: SimBoard) -> None:
        self._board = board
        self._start = time.monotonic()

    async def edge(self, channel: str, value: int, at: float) -> None:
        target = self._start + at
        await asyncio.sleep(max(0.0, target - time.monotonic()))
        self._board.edge(channel, value, target)


@contextlib.asynccontextmanager
async def _serial() -> AsyncIterator[tuple[SerialBackend, SerialDriver]]:
    # A skewed, slightly fast board clock: the backend must still put edges on host time.
    with SimBoard(start_tick=555_555_555, drift_ppm=40.0) as board:
        async with SerialBackend([board.path], sync_interval=0.2) as backend:
            await backend.links[0].wait_up(5.0)
            yield backend, SerialDriver(board)


MAKER = _serial
