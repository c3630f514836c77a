"""The serial backend in the contract: the real firmware on a simulated board on a pty."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

from firmware_bridge.backend import SerialBackend
from firmware_bridge.sim import SimBoard
from tests.firmware_bridge.test_link import sync_bound

#: How fast the simulated board's clock runs (parts per million): the link's offset, fitted
#: before it has fitted the drift, is off by this rate over the seconds since.
DRIFT_PPM = 40.0


class SerialDriver:
    """Makes edges happen on the simulated board's pins, timestamped by its own clock."""

    channels = ("beam.fl", "cushion.lf")

    def __init__(self, board: SimBoard, backend: SerialBackend) -> None:
        self._board = board
        self._link = backend.links[0]
        self._start = time.monotonic()

    @property
    def tolerance(self) -> float:
        """Returns how far apart two edges' host times may be off: each by the link's sync
        bound (half its worst time-sync round trip on this machine, loaded or not) and the
        drift not yet fitted."""
        return 2 * sync_bound(self._link, DRIFT_PPM * 1e-6, time.monotonic() - self._start)

    async def edge(self, channel: str, value: int, at: float) -> None:
        target = self._start + at
        await asyncio.sleep(max(0.0, target - time.monotonic()))
        self._board.edge(channel, value, target)


@contextlib.asynccontextmanager
async def _serial() -> AsyncIterator[tuple[SerialBackend, SerialDriver]]:
    # A skewed, slightly fast board clock: the backend must still put edges on host time.
    with SimBoard(start_tick=555_555_555, drift_ppm=DRIFT_PPM) as board:
        async with SerialBackend([board.path], sync_interval=0.2) as backend:
            await backend.links[0].wait_up(5.0)
            yield backend, SerialDriver(board, backend)


MAKER = _serial
