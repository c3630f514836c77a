"""The journal's log of what the table published (``published`` in ``journal.sqlite3``):
every message with a seq, as written, the last ``PUBLISHED_KEPT``, so that a venue recorder
(``controller.record``) fills the gaps it finds with ``history_since``, answered for the
journal's own epoch only (``controller.service.journal``). A message's last stage,
*published* (``controller.service.delivery`` tells its whole life)."""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import TYPE_CHECKING, Any

from controller.errors import ControllerError
from controller.wire.history import HISTORY_BYTES, published_form

if TYPE_CHECKING:
    from controller.service.delivery import Delivery

#: How many of the last published messages the journal keeps for ``history_since``.
PUBLISHED_KEPT = 50_000
class OtherEpoch(ControllerError, LookupError):
    """A ``history_since`` for an epoch this journal is not: it holds none of its seqs."""


class PublishedLog:
    """The published messages kept in ``db`` (the journal's connection, written inside the
    journal's transactions: ``keep`` then, once committed, ``kept``), of the journal's
    ``epoch``, which began after seq ``since``."""

    def __init__(self, db: sqlite3.Connection, writing: threading.Lock, epoch: str = "",
                 since: int = 0) -> None:
        self._db = db
        self.epoch = epoch
        self.since = since
        self._writing = writing  # the journal's: no transaction is half done while it reads
        self._lock = threading.Lock()
        low, high = db.execute("SELECT MIN(seq), MAX(seq) FROM published").fetchone()
        self._range: tuple[int, int] = (low or 0, high or 0)  # the seqs kept, first and last

    def keep(self, outgoing: list[Delivery]) -> tuple[int, int]:
        """Keeps the messages with a seq (an MQTT 5 reply repeats its response's seq: the first
        is kept), forgetting the oldest past PUBLISHED_KEPT; returns the first and last seq
        kept once the journal's transaction commits."""
        rows = [(form[0], o.topic, form[1]) for o in outgoing
                if (form := published_form(o.topic, o.payload)) is not None]
        if not rows:
            return self._range
        self._db.executemany(
            "INSERT OR IGNORE INTO published (seq, topic, payload) VALUES (?, ?, ?)", rows)
        first, last = self._range
        last = max(last, rows[-1][0])
        first = first or rows[0][0]
        if last - first > PUBLISHED_KEPT * 1.1:
            first = last - PUBLISHED_KEPT
            self._db.execute("DELETE FROM published WHERE seq < ?", (first,))
        return first, last

    def kept(self, seqs: tuple[int, int]) -> None:
        """The journal's transaction committed: these are the first and last seq kept."""
        with self._lock:
            self._range = seqs

    def read(self, after: int, limit: int) -> tuple[list[tuple[int, str, bytes]], int, int]:
        """Returns up to ``limit`` kept messages with a seq above ``after`` as ``(seq, topic,
        payload)``, oldest first, with the first and last seq kept (0, 0 when none): every seq
        from the first to the last that is not kept was never written, and never will be."""
        with self._writing:
            rows = self._db.execute(
                "SELECT seq, topic, payload FROM published WHERE seq > ? ORDER BY seq LIMIT ?",
                (after, limit)).fetchall()
            first, last = self._range
        return [(s, t, bytes(p)) for s, t, p in rows], first, last

    def history_since(self, after: int, limit: int, epoch: str | None = None, *,
                      base: str) -> dict[str, Any]:
        """Returns the ``history_since`` answer: the kept messages after seq ``after`` (topics
        relative to ``base``; at most ``limit``, and no more than HISTORY_BYTES of them but
        the first), ``first`` the oldest seq kept, ``upto``: every seq up to it that is not
        among the messages (nor before ``first``) never was, and the journal's
        ``epoch`` with ``since``, the last seq of earlier epochs. Raises OtherEpoch when
        ``epoch`` is given and is not the journal's."""
        if epoch is not None and epoch != self.epoch:
            raise OtherEpoch(f"this table's journal is epoch {self.epoch!r}, not {epoch!r}:"
                             " it holds none of that epoch's messages")
        after = max(after, self.since)
        rows, first, last = self.read(after, limit)
        page = _page(rows)
        upto = page[-1][0] if len(page) < len(rows) or len(rows) == limit else max(last, after)
        prefix = base + "/"
        return {"epoch": self.epoch, "since": self.since, "first": first, "upto": upto,
                "messages": [
            {"seq": seq, "topic": topic.removeprefix(prefix), "payload": json.loads(payload)}
            for seq, topic, payload in page]}


def _page(rows: list[tuple[int, str, bytes]]) -> list[tuple[int, str, bytes]]:
    """Returns the first of ``rows`` that fit HISTORY_BYTES, at least one."""
    size = 0
    for n, (_, topic, payload) in enumerate(rows):
        size += len(topic) + len(payload) + 40  # its seq, names and commas
        if size > HISTORY_BYTES and n > 0:
            return rows[:n]
    return rows
