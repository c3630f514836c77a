"""The journal's sync: what makes the batches written so far survive a power cut.

A batch written (``Journal.write``) is in the operating system's cache: it survives a crash or
``kill -9`` of the service, not a power cut. ``LogSync.sync`` makes it survive that too: one
fsync of SQLite's write-ahead log, however many batches it holds (with ``sync = "full"``),
a checkpoint of the log into the database once it is larger than ``CHECKPOINT_BYTES``, and
then the seq mark (``controller.service.seqmark``), never saying less than the log holds. It
runs in a thread while the service goes on writing.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from controller.service.seqmark import SeqMark

#: ``sync()`` checkpoints the write-ahead log into the database past this size.
CHECKPOINT_BYTES = 4 << 20


class LogSync:
    """Syncs the write-ahead log of the database at ``path`` (None: one held in memory, nothing
    to sync) and then ``mark``; ``full``: fsync the log (else only checkpoint it)."""

    def __init__(self, path: Path | None, mark: SeqMark, *, full: bool) -> None:
        self.path = path
        self.mark = mark
        self.full = full
        self._lock = threading.Lock()  # one sync at a time (syncs run in a thread)
        self._wal_fd: int | None = None
        self._checkpointer: sqlite3.Connection | None = None

    def sync(self) -> None:
        """Makes every batch written so far survive a power cut, then writes the mark. Raises
        OSError or sqlite3.Error (the log), MarkError (the mark) if it cannot: the journal
        translates them (``Journal.sync``)."""
        with self._lock:
            self._sync_log()
            self.mark.write()  # after the log: a mark never says less than the log holds

    def _sync_log(self) -> None:
        if self.path is None:
            return
        if self._wal_fd is None:
            try:
                self._wal_fd = os.open(f"{self.path}-wal", os.O_RDONLY)
            except FileNotFoundError:
                return  # nothing written yet
        if self.full:
            os.fsync(self._wal_fd)
        if os.fstat(self._wal_fd).st_size > CHECKPOINT_BYTES:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False)
            # PASSIVE: copies what no reader needs, never blocks the writer
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        """Closes the log's file, the checkpointing connection and the mark (waits for a sync
        in progress)."""
        with self._lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
            if self._wal_fd is not None:
                os.close(self._wal_fd)
                self._wal_fd = None
            self.mark.close()
