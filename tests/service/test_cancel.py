"""Stopping never hangs on a task that swallowed a cancellation (Python 3.11 wait_for)."""

from __future__ import annotations

import asyncio

from controller.wire.connection import cancel_and_wait


async def test_a_task_that_swallows_one_cancellation_is_still_stopped() -> None:
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                swallowed += 1
                if swallowed > 1:
                    raise
                # as asyncio.wait_for on 3.11 may: the cancellation is lost, the task goes on

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_and_wait(task), 5)
    assert task.cancelled() and swallowed == 2
