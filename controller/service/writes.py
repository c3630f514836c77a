"""What the table did, written and synced: the service's two steps to the disk.

The table task has the core write each turn as one transaction (``commit``: no wait for the
disk) and goes on; the ``journal-sync`` task (``sync_forever``) fsyncs in a thread, one fsync
for every batch written meanwhile. After each step what it covers is released (``release``:
the outbox's messages and the referee lane's copies that waited for it). When the journal
starts or stops failing, health says so (``B/health``'s journal link) and so does
``systemctl status``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from controller.service.core import Release, TableCore
from controller.service.journal import JournalError
from hardware.events import LinkChanged

from .systemd import Notifier

log = logging.getLogger(__name__)

#: The health link that stands for the journal being written (up) or not (down: a full disk).
JOURNAL_LINK = "journal"


class JournalWrites:
    """The core's writes and syncs; ``release`` takes what each covers, ``changed`` a change
    of the journal's link (an input for the table), both called on the event loop."""

    def __init__(self, core: TableCore, *, release: Callable[[Release], None],
                 changed: Callable[[LinkChanged], None], notifier: Notifier,
                 clock: Callable[[], float]) -> None:
        self._core = core
        self._release = release
        self._changed = changed
        self._notifier = notifier
        self._clock = clock
        self._said: str | None = None  # what health was last told of the journal
        self._written = asyncio.Event()  # a batch was written: the sync task has work
        self._synced_all = asyncio.Event()
        self._synced_all.set()

    def commit(self) -> None:
        """Has the core write what the table did, releases what may go, wakes the sync task;
        when the journal starts or stops failing, says so."""
        done = self._core.commit()
        error = self._core.durability.error
        if error != self._said:
            self._said = error
            self._changed(LinkChanged(self._clock(), JOURNAL_LINK, error is None, error or ""))
            self._notifier.status(f"the journal cannot be written ({error}): refereeing from "
                                  "memory, no new match" if error else "the journal is written")
        self._release(done.release)
        self._core.inputs.flush()  # the recording: a convenience, not the journal
        if done.written:
            self._synced_all.clear()
            self._written.set()

    async def sync_forever(self) -> None:
        """Syncs the journal whenever a batch was written; releases what the sync covers."""
        while True:
            await self._written.wait()
            self._written.clear()
            point = self._core.sync_point()
            try:
                await asyncio.to_thread(self._core.sync)
            except JournalError as exc:  # a full disk: the table goes on from memory
                log.error("%s", exc)
            self._release(self._core.synced(point))
            if not self._written.is_set():
                self._synced_all.set()

    async def synced_all(self) -> None:
        """Returns once every batch written has been synced."""
        await self._synced_all.wait()
