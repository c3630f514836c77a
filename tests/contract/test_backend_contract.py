"""One contract, every sensor backend: edges in at the source, the same sensor events out.

Each backend registers a *maker* in a module ``tests/contract/makers_<name>.py`` exposing
``MAKER``: an async context manager factory yielding ``(backend, driver)``. The driver makes
an edge happen at the source (``await driver.edge(channel, value, at)``, ``at`` in seconds
from the driver's start) the way real hardware would; the backend must then yield a
``SensorEvent`` for the same channel and value, with a source time ``at`` after the first
event's, within ``driver.tolerance`` seconds.
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Protocol

import pytest

from hardware import SensorBackend, SensorEvent


class Driver(Protocol):
    channels: tuple[str, ...]

    @property
    def tolerance(self) -> float: ...

    async def edge(self, channel: str, value: int, at: float) -> None: ...


Maker = Callable[[], AbstractAsyncContextManager[tuple[SensorBackend, Driver]]]


def _makers() -> dict[str, Maker]:
    found: dict[str, Maker] = {}
    here = Path(__file__).parent
    for info in pkgutil.iter_modules([str(here)]):
        if info.name.startswith("makers_"):
            module = importlib.import_module(f"tests.contract.{info.name}")
            found[info.name.removeprefix("makers_")] = module.MAKER
    return found


MAKERS = _makers()


def test_every_backend_has_a_maker() -> None:
    # GPIO (mock pins), the simulator and the serial boards all run this contract.
    assert {"gpio", "serial", "sim"} <= set(MAKERS), f"contract makers found: {sorted(MAKERS)}"


async def _collect(events: AsyncIterator[Any], n: int, timeout: float) -> list[SensorEvent]:
    out: list[SensorEvent] = []

    async def pull() -> None:
        async for item in events:
            if isinstance(item, SensorEvent):
                out.append(item)
                if len(out) == n:
                    return

    await asyncio.wait_for(pull(), timeout)
    return out


@pytest.mark.parametrize("name", sorted(MAKERS))
async def test_edges_in_give_the_same_events_out_with_source_times(name: str) -> None:
    async with MAKERS[name]() as (backend, driver):
        assert isinstance(backend, SensorBackend)
        beam, cushion = driver.channels[0], driver.channels[1]
        script = [
            (beam, 1, 0.000),
            (beam, 0, 0.012),  # a 12 ms block: a fast ball
            (cushion, 1, 0.050),
            (cushion, 0, 0.061),
            (beam, 1, 0.300),
            (beam, 0, 0.530),  # a 230 ms block: a slow ball
        ]
        collector = asyncio.create_task(_collect(backend.events(), len(script), 10.0))
        await asyncio.sleep(0)
        for ch, v, at in script:
            await driver.edge(ch, v, at)
        got = await collector
        assert [(e.ch, e.v) for e in got] == [(ch, v) for ch, v, _ in script]
        t0 = got[0].t
        for event, (_, _, at) in zip(got, script, strict=True):
            assert abs((event.t - t0) - at) <= driver.tolerance, (event, at)
        assert backend.stats().overflows == 0
