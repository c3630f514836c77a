"""Waiting in tests: for a condition to hold (never a fixed sleep standing in for it), and how
late the event loop wakes a task on this machine (its load), for bounds that are about time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from controller.wire.connection import cancel_and_wait

T = TypeVar("T")

#: How often a condition is looked at again (seconds).
POLL_S = 0.01


async def until(check: Callable[[], T], timeout: float = 10.0, what: str = "a condition") -> T:
    """Returns ``check()``'s first true value, looked at every ``POLL_S``; raises
    AssertionError naming ``what`` if none comes within ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (result := check()):
        assert loop.time() < deadline, f"timed out after {timeout:g} s waiting for {what}"
        await asyncio.sleep(POLL_S)
    return result


class LoopLag:
    """How late the running loop woke a task that slept ``POLL_S`` at a time, measured while
    ``async with LoopLag() as lag:`` runs: ``lag.worst`` (seconds), a loaded machine's
    lateness."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._probe: asyncio.Task[None] | None = None

    async def _measure(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time() + POLL_S
            await asyncio.sleep(POLL_S)
            self.worst = max(self.worst, loop.time() - asked)

    async def __aenter__(self) -> LoopLag:
        self._probe = asyncio.create_task(self._measure())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._probe is not None
        await cancel_and_wait(self._probe)
