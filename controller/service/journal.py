"""The journal: every input of the table, and every message not yet delivered, on disk.

One SQLite database (standard library) in WAL mode under the data directory::

    inputs(id, line)          every input, in order, as the table saw it: trace lines
                              (sensor and request lines, interfaces §2) and the clock's
                              ticks that made the table act ({"t": ..., "tick": 1})
    outbox(id, topic, ...)    deliveries made and not yet acknowledged by the broker (a
                              message's second stage: ``controller.service.delivery``)
    answers(tx, name, ...)    answers to transactions whose inputs were compacted away
    meta(key, value)          the match-id prefix, the clock's offset, the last seq, ...
    published(seq, ...)       every message with a seq the table produced, as written (the
                              last PUBLISHED_KEPT): what ``history_since`` answers from, so a
                              venue recorder fills its gaps (``controller/record``)

Writing has two steps. ``add_*`` and ``drop_outgoing`` only note what to write; ``take()``
hands the noted writes over as one ``Batch`` and ``write(batch)`` writes them in one
transaction without waiting for the disk: from then on they survive a crash or ``kill -9``
of the service (they are in the operating system's cache). ``sync()`` makes everything
written so far survive a power cut too (one fsync of the write-ahead log, however many
batches it holds) and checkpoints the log when it has grown (``controller.service.walsync``).
The service writes each batch as soon as the table has handled its inputs and syncs in the
background, so a burst of sensor edges costs one sync, not one per edge; it publishes a ruling
only once the batch that holds it is synced, and a live ``ball_pocketed`` once it is written
(``Delivery.early``).
After ``kill -9`` or a power cut the table is rebuilt from ``inputs`` to the exact state,
and ``outbox`` still holds what the broker has not acknowledged.

With ``sync = "normal"`` nothing waits for the disk (only checkpoints sync it): a power cut
may take back the last transactions, never leave a half-written one.

The journal's **epoch** (``meta``: ``epoch``, ``epoch_since``) is made with the journal and kept in
it: a new journal (a replaced Pi, a wiped data directory) has a new one. Every message with a
seq carries it, so a venue recorder tells a new journal's seqs from the old one's; seqs up to
``epoch_since`` were given out under earlier epochs.

Beside the database, the **seq mark** (``journal.mark``: ``controller.service.seqmark``) says
how far seqs are reserved and whether the last run published what the database does not hold;
``sync()`` writes it after the log.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.errors import ControllerError
from controller.service.delivery import Delivery
from controller.service.published import PublishedLog
from controller.service.seqmark import MarkError, SeqMark
from controller.service.walsync import LogSync

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (id INTEGER PRIMARY KEY, line TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload BLOB NOT NULL,
    retain INTEGER NOT NULL, qos INTEGER NOT NULL, expiry INTEGER,
    correlation BLOB);
CREATE TABLE IF NOT EXISTS answers (
    n INTEGER PRIMARY KEY, tx TEXT NOT NULL, name TEXT NOT NULL, response TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS published (
    seq INTEGER PRIMARY KEY, topic TEXT NOT NULL, payload BLOB NOT NULL);
"""


#: The path of a journal held in memory (tests): no files, no mark on disk.
MEMORY = Path(":memory:")


class JournalError(ControllerError, OSError):
    """The journal cannot be opened or written."""


class JournalDamaged(JournalError):
    """The journal's database cannot be read (a damaged file)."""


@dataclass(slots=True)
class Batch:
    """Writes noted since the last ``take()``, to be made durable together."""

    inputs: list[tuple[int, str]] = field(default_factory=list)
    outgoing: list[Delivery] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    compact_before: int | None = None
    answers: list[tuple[str, str, dict[str, Any]]] | None = None

    def __bool__(self) -> bool:
        return bool(self.inputs or self.outgoing or self.dropped or self.meta
                    or self.compact_before is not None)

    def then(self, later: Batch) -> Batch:
        """Returns this batch followed by ``later``, as one (a batch that could not be
        written, kept with what came after it)."""
        compacted = later.compact_before is not None
        return Batch(self.inputs + later.inputs, self.outgoing + later.outgoing,
                     self.dropped + later.dropped, {**self.meta, **later.meta},
                     later.compact_before if compacted else self.compact_before,
                     later.answers if compacted else self.answers)


class Journal:
    """The journal database at ``path`` (see the module docstring).

    Raises JournalError when the file cannot be opened (a read-only or missing directory,
    a file that is not a database).
    """

    def __init__(self, path: Path, *, sync: str = "full") -> None:
        self.path = path
        self.sync_full = sync == "full"
        self.in_memory = path == MEMORY
        try:
            if not self.in_memory:
                path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # a commit does not wait for the disk: sync() does, in the background, and
            # checkpoints the log there too (never in the middle of a write)
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA wal_autocheckpoint=0")
            # the log starts again from nothing after a checkpoint, so that its file's size
            # says how much it holds (sync() checkpoints by that size)
            self._db.execute("PRAGMA journal_size_limit=0")
            self._db.executescript(_SCHEMA)
            self.meta: dict[str, str] = dict(self._db.execute("SELECT key, value FROM meta"))
            self._next_input = self._max("inputs") + 1
            self._next_out = self._max("outbox") + 1
        except sqlite3.DatabaseError as exc:
            raise JournalDamaged(f"cannot read the journal {path}: {exc}") from exc
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"cannot open the journal {path}: {exc}") from exc
        #: The seq mark beside the database.
        self.mark = SeqMark(None if self.in_memory else path.with_name(path.name + ".seq"))
        self._lock = threading.Lock()  # the pending batch: the publisher notes deliveries too
        self._writing = threading.Lock()  # one transaction at a time
        #: this journal's epoch, and the last seq given out before it (earlier journals')
        self.epoch, self.epoch_since = self._epoch()
        #: every message with a seq, as written: what ``history_since`` answers from
        self.published = PublishedLog(self._db, self._writing, self.epoch, self.epoch_since)
        #: Makes what is written survive a power cut (the log's fsync, then the seq mark).
        self.log_sync = LogSync(None if self.in_memory else path, self.mark, full=self.sync_full)
        self._pending = Batch()

    def _epoch(self) -> tuple[str, int]:
        """Returns the journal's epoch and the seq it began after, made (and written) when the
        journal has none: after the last seq it gave out (one made before epochs), else after
        the seq mark's reservation (a new database: numbering continues there). Raises
        JournalError."""
        if "epoch" in self.meta:
            return self.meta["epoch"], int(self.meta.get("epoch_since", "0"))
        epoch = secrets.token_hex(8)
        since = int(self.meta.get("seq", self.mark.found.reserved))
        try:
            self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                                 [("epoch", epoch), ("epoch_since", str(since))])
        except sqlite3.Error as exc:
            raise JournalError(f"cannot write the journal {self.path}: {exc}") from exc
        self.meta.update(epoch=epoch, epoch_since=str(since))
        log.info("journal %s: a new epoch %s (seqs after %d)", self.path, epoch, since)
        return epoch, since

    def _max(self, table: str) -> int:
        (value,) = self._db.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}").fetchone()
        return int(value)

    # ------------------------------------------------------------------ reading
    def _select(self, sql: str) -> list[tuple[Any, ...]]:
        try:
            return list(self._db.execute(sql))
        except sqlite3.DatabaseError as exc:
            raise JournalDamaged(f"cannot read the journal {self.path}: {exc}") from exc

    def rows(self) -> list[tuple[int, str]]:
        """Returns every journaled input as written, ``(id, text)``, oldest first. Raises
        JournalDamaged if the database cannot be read."""
        return [(int(n), str(line)) for n, line in self._select(
            "SELECT id, line FROM inputs ORDER BY id")]

    def inputs(self) -> list[dict[str, Any]]:
        """Returns every journaled input that reads as a JSON object, oldest first (the
        rebuild reads ``rows`` and reports the others)."""
        out = []
        for _, text in self.rows():
            try:
                line = json.loads(text)
            except ValueError:
                continue
            if isinstance(line, dict):
                out.append(line)
        return out

    def outbox(self) -> list[Delivery]:
        """Returns the messages not yet delivered, oldest first."""
        rows = self._select(
            "SELECT id, topic, payload, retain, qos, expiry, correlation FROM outbox ORDER BY id")
        return [Delivery(i, t, bytes(p), bool(r), q, e, None if c is None else bytes(c))
                for i, t, p, r, q, e, c in rows]

    def answers(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Returns the kept answers of compacted transactions that can be read, oldest first
        (each one that cannot is logged and left out)."""
        out = []
        for n, tx, name, resp in self._select(
                "SELECT n, tx, name, response FROM answers ORDER BY n"):
            try:
                response = json.loads(resp)
            except ValueError:
                response = None
            if isinstance(response, dict):
                out.append((tx, name, response))
            else:
                log.error("the journal's answer %d (transaction %r) cannot be read: left out;"
                          " a resend of it is applied again", n, tx)
        return out

    # ------------------------------------------------------------------ noting writes
    def add_input(self, line: dict[str, Any]) -> int:
        """Notes an input; returns its id."""
        n = self._next_input
        self._next_input += 1
        self._pending.inputs.append((n, json.dumps(line, separators=(",", ":"))))
        return n

    def new_outgoing(self, topic: str, payload: bytes, retain: bool, qos: int = 1,
                     expiry: int | None = None, correlation: bytes | None = None,
                     early: bool = False) -> Delivery:
        """Notes a message to deliver; returns it with its id."""
        item = Delivery(self._next_out, topic, payload, retain, qos, expiry, correlation, early)
        self._next_out += 1
        self._pending.outgoing.append(item)
        return item

    def drop_outgoing(self, ident: int) -> None:
        """Notes that a message was delivered (or given up)."""
        with self._lock:
            self._pending.dropped.append(ident)

    def set_meta(self, key: str, value: Any) -> None:
        self.meta[key] = str(value)
        self._pending.meta[key] = str(value)

    def compact(self, before: int, answers: list[tuple[str, str, dict[str, Any]]]) -> None:
        """Notes that inputs before id ``before`` are no longer needed; keeps ``answers``."""
        self._pending.compact_before = before
        self._pending.answers = answers

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    @property
    def next_input(self) -> int:
        """Returns the id the next input noted will have."""
        return self._next_input

    # ------------------------------------------------------------------ writing
    def take(self) -> Batch:
        """Returns the writes noted so far, and starts a new batch."""
        with self._lock:
            batch, self._pending = self._pending, Batch()
        return batch

    def write(self, batch: Batch) -> None:
        """Writes a batch in one transaction, without waiting for the disk (``sync()``).

        Raises JournalError if it cannot.
        """
        if not batch:
            return
        with self._writing:
            self._write(batch)

    def _write(self, batch: Batch) -> None:
        db = self._db
        try:
            db.execute("BEGIN")
            if batch.inputs:
                db.executemany("INSERT INTO inputs (id, line) VALUES (?, ?)", batch.inputs)
            if batch.outgoing:
                db.executemany(
                    "INSERT INTO outbox (id, topic, payload, retain, qos, expiry, correlation)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(o.id, o.topic, o.payload, int(o.retain), o.qos, o.expiry, o.correlation)
                     for o in batch.outgoing])
            kept = self.published.keep(batch.outgoing)
            if batch.dropped:
                db.executemany("DELETE FROM outbox WHERE id = ?", [(i,) for i in batch.dropped])
            if batch.meta:
                db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                               list(batch.meta.items()))
            if batch.compact_before is not None:
                db.execute("DELETE FROM inputs WHERE id < ?", (batch.compact_before,))
                db.execute("DELETE FROM answers")
                db.executemany("INSERT INTO answers (n, tx, name, response) VALUES (?, ?, ?, ?)",
                               [(n, tx, name, json.dumps(resp)) for n, (tx, name, resp)
                                in enumerate(batch.answers or ())])
            db.execute("COMMIT")
            self.published.kept(kept)
        except sqlite3.Error as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise JournalError(f"cannot write the journal {self.path}: {exc}") from exc

    def sync(self) -> None:
        """Makes every batch written so far survive a power cut (with ``sync = "full"``), and
        checkpoints the write-ahead log once it has grown (``controller.service.walsync``).
        Thread-safe with ``write``. Raises JournalError if it cannot."""
        try:
            self.log_sync.sync()
        except MarkError as exc:
            raise JournalError(str(exc)) from exc
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"cannot sync the journal {self.path}: {exc}") from exc

    def abandon(self) -> None:
        """Closes the database without writing what is noted (when it cannot be written)."""
        with self._writing:
            self.log_sync.close()
            self._db.close()

    def close(self) -> None:
        """Writes and syncs what is noted, and closes the database. Raises JournalError if
        it cannot write or sync (the database is closed all the same)."""
        try:
            self.write(self.take())
            self.sync()
        finally:
            self.abandon()
