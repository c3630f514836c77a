"""What may leave the outbox, and when: the journal's batches written and synced, seqs reserved.

Journal before publish: every input is noted in the journal before the messages it caused,
and they are written together by ``commit``. A live ``ball_pocketed`` may leave once written;
anything else once synced (``journal.sync = "full"``; with ``"normal"`` everything written
leaves at once). Seqs up to ``seq_limit`` are reserved on disk (in the journal and in its seq
mark, ``controller.service.seqmark``) before any is published early, so that after a power cut numbering
continues after the reservation and never gives a published seq to another message.

When the journal cannot be written (a full disk) the table goes on from memory: what was not
written is kept and tried again every ``JOURNAL_RETRY_S`` with what came after it, ``error``
says why, and messages are released at once; the seq mark (written in place, so a full disk
takes it) then says that the journal is behind what was published, and the reservation
covers what is released.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from controller.service.journal import Batch, Journal, JournalError
from controller.service.seqmark import MarkError

log = logging.getLogger(__name__)

#: Seqs reserved on disk ahead of the last one given out (see the module docstring).
SEQ_RESERVE = 1000
#: While the journal cannot be written (a full disk), a new try this often (host seconds).
JOURNAL_RETRY_S = 5.0


@dataclass(frozen=True, slots=True)
class Release:
    """What may leave the outbox: every message up to id ``upto``, and the live ones (at the
    head of those waiting) up to id ``live_upto``; 0: none."""

    upto: int = 0
    live_upto: int = 0


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit's outcome: what may be released now, and whether a batch was written (and
    so awaits a sync)."""

    release: Release
    written: bool


@dataclass(frozen=True, slots=True)
class SyncPoint:
    """What a sync about to start covers: messages up to ``upto``, seqs up to ``seq_limit``."""

    upto: int
    seq_limit: int


class Durability:
    """The release policy of one journal (see the module docstring). ``mono`` is the host's
    monotonic clock (for the retries); ``seq_limit`` the reservation the journal holds."""

    def __init__(self, journal: Journal, *, mono: Callable[[], float], seq_limit: int) -> None:
        self.journal = journal
        self._mono = mono
        self.seq_limit = seq_limit  # the seq reservation noted in the journal
        self._seq_durable = 0  # ... and the part of it known to be on disk
        self._written_upto = 0  # the last outgoing message in a written batch
        #: The id of the last outgoing message made (``TableCore`` notes it).
        self.last_out = 0
        #: Why the journal cannot be written now (a full disk), or None.
        self.error: str | None = None
        self._unwritten: Batch | None = None  # what could not be written, kept in memory
        self._retry_at = 0.0

    def commit(self, seq: int, meta: dict[str, str]) -> Commit:
        """Writes what was noted since the last commit, with ``meta`` when anything was
        (``seq``: the last seq given out), in one transaction (no wait for the disk);
        returns what may be released now."""
        journal = self.journal
        if journal.pending or str(seq) != journal.meta.get("seq"):
            journal.set_meta("seq", seq)
            for key, value in meta.items():
                journal.set_meta(key, value)
            if seq + SEQ_RESERVE // 2 > self.seq_limit:
                self.seq_limit = seq + SEQ_RESERVE
                journal.set_meta("seq_limit", self.seq_limit)
                journal.mark.reserve(self.seq_limit)
        batch = journal.take()
        if self._unwritten is not None:
            batch = self._unwritten.then(batch)
            if self._mono() < self._retry_at:
                self._unwritten = batch
                return self._from_memory()
        if batch:
            try:
                journal.write(batch)
            except JournalError as exc:
                if self.error is None:
                    log.error("%s: refereeing goes on from memory, new matches are refused;"
                              " trying again every %.0f s", exc, JOURNAL_RETRY_S)
                self.error = str(exc)
                self._unwritten = batch
                self._retry_at = self._mono() + JOURNAL_RETRY_S
                return self._from_memory()
            self._written_upto = self.last_out
            if self._unwritten is not None:
                log.warning("the journal is written again (%d inputs kept in memory meanwhile)",
                            len(batch.inputs))
                self._unwritten = None
                self.error = None
                journal.mark.fell_behind(False)  # said on disk with the next sync
        if not journal.sync_full:
            release = Release(upto=self.last_out)
        elif seq < self._seq_durable:
            release = Release(live_upto=self._written_upto)
        else:
            release = Release()
        return Commit(release, bool(batch))

    def _from_memory(self) -> Commit:
        """Releases everything made, the journal not holding it: first the seq mark says so
        (its reservation, ``commit`` keeps ahead of the seqs given out), so a restart never
        gives a published seq again."""
        journal = self.journal
        journal.mark.reserve(self.seq_limit)
        journal.mark.fell_behind(True)
        try:
            journal.mark.write()
        except MarkError as exc:
            log.error("%s: a restart may number messages already published", exc)
        return Commit(Release(upto=self.last_out), False)

    def sync_point(self) -> SyncPoint:
        """Returns what a sync starting now covers (take it just before the sync)."""
        return SyncPoint(self._written_upto, self.seq_limit)

    def synced(self, point: SyncPoint, seq: int) -> Release:
        """The sync that began at ``point`` is done (``seq``: the last seq given out): returns
        what it releases."""
        self._seq_durable = point.seq_limit
        live = 0
        if self.journal.sync_full and seq < point.seq_limit:  # written since it began
            live = self._written_upto
        return Release(upto=point.upto, live_upto=live)

    def close(self) -> None:
        """Writes what is kept in memory and closes the journal (writes and syncs what is
        noted); what the journal cannot take (a full disk) is lost, with a log line. Raises
        JournalError if a sync fails."""
        if self._unwritten is not None:  # one more try: the disk may have room again
            try:
                self.journal.write(self._unwritten.then(self.journal.take()))
            except JournalError as exc:
                log.error("stopping with %d inputs the journal could not take: %s",
                          len(self._unwritten.inputs), exc)
                self.journal.abandon()
                return
            self._unwritten = None
            self.journal.mark.fell_behind(False)
        self.journal.close()
