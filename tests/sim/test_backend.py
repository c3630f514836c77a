"""The ``sim`` backend's timing of live matches (a driver adding lines as they happen)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from controller.sim.backend import SimBackend
from hardware.events import SensorEvent


async def test_a_live_match_that_starts_late_is_played_from_when_it_starts_not_in_the_past(
        ) -> None:
    """A live driver that waits after a match's last line (the demo's bracket tables wait
    for the result) starts its next match late: that match's edges are stamped from when its
    first line came, never before it (they were stamped as far back as the wait, before the
    table's ``new_match``, and the table's referee met a match it could not follow)."""
    came: list[float] = []

    async def match(wait_after: float) -> AsyncIterator[dict[str, Any]]:
        came.append(time.monotonic())
        yield {"t": 0.0, "ch": "beam.fl", "v": 1}
        yield {"t": 0.01, "ch": "beam.fl", "v": 0}
        await asyncio.sleep(wait_after)

    backend = SimBackend([match(0.5), match(0.0)], speed=1.0, pause=0.0)
    beams = [e async for e in backend.events() if isinstance(e, SensorEvent)]
    assert len(beams) == 4 and len(came) == 2
    assert beams[2].t >= came[1]  # the second match's first edge: not before it came
    assert beams[3].t - beams[2].t == pytest.approx(0.01)  # its lines keep their spacing
