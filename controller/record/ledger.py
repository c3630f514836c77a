"""What the recorder knows of each table's epochs, and when it asks a table for a gap.

A table's epoch's seqs are complete up to a point; past it, a gap is asked of the table with
``history_since`` naming the epoch, one page at a time (the table answers at most
``HISTORY_BYTES``; ``upto`` says how far the page reaches), and what the journal no longer
holds is recorded as a gap, never made up. An older epoch is asked for once more, and when
the table refuses it (its journal is another now), its unheard seqs are a gap, and so is
whatever came after its last heard message, unless that was the table's clean stop.
After each (re)connection every table's own epoch is asked once what it said since the last
seq recorded, gap or none: a table that went quiet while the recorder was away (the broker
keeping a few messages for it, or none) says nothing more that would show it.

Which epoch is the table's own is the one heard last, in the order messages reached the
recorder (a counter kept in the store's ``heard``), never the recorder's wall clock: a clock
stepped back made an older epoch look newer, and the recorder asked the table ~150 times a
second. Askings are bounded per table whatever the clocks do: one waits for its answer (or
``timeout_s``); an asking that brought nothing is followed by the next only after a delay
that doubles up to ``MAX_DELAY_S``, and after ``tries`` of them what is still missing is
recorded as a gap with its cause. Asking ids are unguessable (``secrets``), and an answer
that fits none of a table's askings, or whose numbers do not fit the asking, is refused and
counted, never looped on.

The ledger reads the store (``have``: the seqs stored in a range) only through the
functions it is given: the recorder calls it in a thread, off the event loop.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.record.store import Key, Lost, Progress, Stored

log = logging.getLogger(__name__)

#: Why an older epoch's unheard seqs are lost.
REPLACED = "not in the table's journal: a new journal (epoch) replaced it"
#: Why whatever an older epoch published after its last heard message is lost (if anything).
UNHEARD = "after the last heard, if any: a new journal (epoch) replaced it"
#: Why seqs are lost when the table never answered for them (its last error follows).
UNANSWERED = "the table did not answer for them"
#: How many messages one ``history_since`` asks for.
FILL_LIMIT = 500
#: The furthest an answer's ``upto`` or ``since`` may lie past what was asked (a power cut's
#: jumps, at most 1,000 seqs each): an answer past it is refused.
REACH = 100 * FILL_LIMIT
#: The longest wait between two askings of a table that bring nothing.
MAX_DELAY_S = 60.0

#: Reads the store: ``(venue, table, epoch, after, upto) -> the stored seqs in between``.
Seqs = Callable[[str, str, str, int, int], list[int]]
#: Reads the store: ``(venue, table, epoch, seq) -> that message, if stored``.
One = Callable[[str, str, str, int], Stored | None]


@dataclass
class _Table:
    progress: Progress
    asked: float = 0.0  # when the waiting asking was sent (monotonic; 0: none waits)
    # its askings not yet answered (a late answer to an earlier one is taken too)
    txs: deque[str] = field(default_factory=lambda: deque(maxlen=16))
    fruitless: int = 0  # askings in a row that brought nothing
    not_before: float = 0.0  # no asking before (monotonic)
    why: str = ""  # what the last fruitless asking met
    # asked after a (re)connection though nothing heard says it is behind: what the table
    # said while the recorder was away and the broker kept none of it (a table gone quiet
    # says no more that would show a gap), asked until an answer brings nothing
    since_away: bool = False


@dataclass(frozen=True, slots=True)
class Asking:
    """A ``history_since`` to send: the table's ``key`` and the request's body."""

    key: Key
    body: dict[str, Any]


@dataclass
class Ledger:
    """Each table's epochs' progress (``tables``) and its askings."""

    tables: dict[Key, _Table] = field(default_factory=dict)
    tries: int = 6
    timeout_s: float = 5.0
    refused: int = 0  # answers refused: no asking of ours, or numbers that do not fit
    _order: float = 0.0  # the last arrival's number (the store's ``heard``)

    def load(self, progress: dict[Key, Progress]) -> None:
        """Takes the progress the store kept."""
        for key, p in progress.items():
            self.tables[key] = _Table(p)
            self._order = max(self._order, p.heard)

    # ------------------------------------------------------------------ what came
    def arrived(self, key: Key) -> float:
        """Returns the arrival number of a message of ``key`` that just came (the later,
        the higher)."""
        self._order += 1.0
        return self._order

    def answer(self, venue: str, table: str, reply: dict[str, Any], client_id: str
               ) -> Key | None:
        """Returns the epoch a table's ``history_since`` answer is for, or None when it
        answers none of that table's askings: counted when it claims to be this recorder's
        (its id begins with ``client_id``), not when it is another asker's."""
        tx = reply.get("transaction")
        for key, t in self.tables.items():
            if key[:2] == (venue, table) and isinstance(tx, str) and tx in t.txs:
                return key
        if not isinstance(tx, str) or tx.startswith(f"{client_id}-"):
            self.refused += 1
        return None

    def advance(self, ordered: list[Stored], fills: list[tuple[Key, dict[str, Any]]],
                heard: dict[Key, float], have: Seqs, one: One,
                now: float) -> tuple[dict[Key, Progress], list[Lost], list[Stored]]:
        """Returns each table's epochs' new progress, the seq ranges found lost, and the
        messages the fills brought (``heard``: each epoch's last arrival number; ``now``:
        monotonic). ``ordered`` is what came live, sorted by key and seq."""
        changed: dict[Key, Progress] = {}
        lost: list[Lost] = []
        by_table: dict[Key, list[int]] = {}
        for m in ordered:
            by_table.setdefault((m.venue, m.table, m.epoch), []).append(m.seq)
        for key, seqs in by_table.items():  # first: the epoch heard last is the table's
            t = self.tables.setdefault(key, _Table(Progress(0, 0)))
            t.progress = dataclasses.replace(t.progress, high=max(t.progress.high, seqs[-1]),
                                             heard=heard.get(key, t.progress.heard))
        brought: list[Stored] = []
        for key, reply in fills:
            t = self.tables[key]
            t.asked = 0.0
            t.txs.clear()
            before = t.progress
            data = reply.get("data") if reply.get("status") == "ok" else None
            away, t.since_away = t.since_away, False
            if isinstance(data, dict):
                page = _page(key, t.progress, data)
                if page is None:
                    self.refused += 1
                    self._fruitless(t, now, "an answer whose numbers do not fit the asking")
                    continue
                t.since_away = away and bool(page)  # it had more: a page may not hold it all
                brought += page
                lost += self._filled(key, t, data, {m.seq for m in page}
                                     | set(by_table.get(key, ())), have)
            elif key[2] != self.newest(key[0], key[1]):
                lost += self._replaced(key, t, set(by_table.get(key, ())), have, one)
            else:
                why = str(reply.get("error"))[:200]
                log.error("%s/%s cannot fill its gap: %s", key[0], key[1], why)
                self._fruitless(t, now, why)
            if t.progress != before:
                t.fruitless, t.not_before = 0, now
            changed[key] = t.progress
        for key, seqs in by_table.items():
            t = self.tables[key]
            done = t.progress.complete_upto
            for s in seqs:
                if s == done + 1:
                    done = s
            t.progress = dataclasses.replace(t.progress, complete_upto=done)
            changed[key] = t.progress
        for key, t in self.tables.items():
            if self.stuck(t):
                lost += self._given_up(key, t)
                changed[key] = t.progress
        return changed, lost, brought

    def stuck(self, t: _Table | None = None) -> bool:
        """Whether a table (any, when None) was asked ``tries`` times in vain: what it still
        misses is to be recorded as a gap."""
        if t is None:
            return any(self.stuck(t) for t in self.tables.values())
        return t.fruitless >= self.tries and t.progress.complete_upto < t.progress.high

    def _fruitless(self, t: _Table, now: float, why: str) -> None:
        t.fruitless += 1
        t.why = why
        t.not_before = now + min(MAX_DELAY_S, 2.0 ** t.fruitless)

    def _given_up(self, key: Key, t: _Table) -> list[Lost]:
        """After ``tries`` fruitless askings: what is still missing is a gap, with its cause."""
        p = t.progress
        venue, table, epoch = key
        why = f"{UNANSWERED}: {t.why}"
        log.warning("%s/%s: seqs %d-%d are lost (%s)", venue, table, p.complete_upto + 1,
                    p.high, why)
        t.progress = dataclasses.replace(p, complete_upto=p.high)
        t.fruitless = 0
        return [(venue, table, epoch, p.complete_upto + 1, p.high, why)]

    def _filled(self, key: Key, t: _Table, data: dict[str, Any], got: set[int],
                have: Seqs) -> list[Lost]:
        """Takes a table's answer to a fill: returns the seqs its journal does not hold."""
        venue, table, epoch = key
        done = max(t.progress.complete_upto, int(data.get("since") or 0))
        upto = max(done, int(data["upto"]))
        present = got | set(have(venue, table, epoch, done, upto))
        first = int(data.get("first") or 0)
        lost: list[Lost] = []
        for a, b in missing(done + 1, upto, present):
            why = ("no longer in the table's journal" if b < first
                   else "never written to the table's journal")
            lost.append((venue, table, epoch, a, b, why))
            log.warning("%s/%s: seqs %d-%d are lost (%s)", venue, table, a, b, why)
        t.progress = dataclasses.replace(t.progress, complete_upto=upto,
                                         high=max(t.progress.high, upto))
        return lost

    def _replaced(self, key: Key, t: _Table, got: set[int], have: Seqs, one: One) -> list[Lost]:
        """An older epoch the table no longer answers for: returns its unheard seqs, lost,
        and all after its last heard unless that was the table's clean stop."""
        venue, table, epoch = key
        done, high = t.progress.complete_upto, t.progress.high
        present = got | set(have(venue, table, epoch, done, high))
        lost: list[Lost] = [(venue, table, epoch, a, b, REPLACED)
                            for a, b in missing(done + 1, high, present)]
        last = one(venue, table, epoch, high)
        if not (last and last.topic == "status" and last.payload.get("state") == "stopped"):
            lost.append((venue, table, epoch, high + 1, None, UNHEARD))
        for _, _, _, a, b, why in lost:
            log.warning("%s/%s epoch %r: seqs %d-%s are lost (%s)", venue, table, epoch, a,
                        "" if b is None else b, why)
        t.progress = Progress(high, high, t.progress.heard, closed=True)
        return lost

    def newest(self, venue: str, table: str) -> str:
        """Returns the epoch of the table's journal heard last: the table's own."""
        return max(((t.progress.heard, key[2]) for key, t in self.tables.items()
                    if key[:2] == (venue, table)), default=(0.0, ""))[1]

    # ------------------------------------------------------------------ asking
    def askings(self, now: float, client_id: str, reconnected: bool = False) -> list[Asking]:
        """Returns the ``history_since`` askings due now (``now``: monotonic): where a gap is
        left and no asking waits, where the answer is late (a table restarting, a lost
        response: counted as fruitless), at most one per table's epoch, each no sooner than
        its delay allows. ``reconnected``: every wait starts again (the broker was away), and
        each table's own epoch is asked what it said since the last seq recorded."""
        out: list[Asking] = []
        for key, t in self.tables.items():
            if reconnected:
                t.asked, t.not_before = 0.0, 0.0
                t.since_away = key[2] == self.newest(key[0], key[1])
            if t.asked and now - t.asked > self.timeout_s:
                t.asked = 0.0
                if t.since_away and t.progress.complete_upto >= t.progress.high:
                    t.since_away = False  # not up: its next message will show what it said
                else:  # (a table off at reconnections is not one that fails to fill a gap)
                    self._fruitless(t, now, f"no answer in {self.timeout_s:.0f} s")
            if t.asked or now < t.not_before:
                continue
            body = self._body(key, t, client_id)
            if body is not None:
                t.asked = now
                out.append(Asking(key, body))
        return out

    def _body(self, key: Key, t: _Table, client_id: str) -> dict[str, Any] | None:
        venue, table, epoch = key
        newest = self.newest(venue, table)
        complete = t.progress.complete_upto >= t.progress.high
        if t.progress.closed or (complete and epoch == newest and not t.since_away):
            return None
        tx = f"{client_id}-{secrets.token_urlsafe(16)}"
        t.txs.append(tx)
        body: dict[str, Any] = {"v": 1, "seq": t.progress.complete_upto, "limit": FILL_LIMIT,
                                "transaction": tx}
        if epoch or newest:  # a table without epochs knows no "epoch"
            body["epoch"] = epoch
        return body

    # ------------------------------------------------------------------ a failed write
    def snapshot(self) -> tuple[dict[Key, _Table], float, int]:
        """Returns what ``restore`` puts back (a write that failed is tried again as if the
        batch had not been taken)."""
        return ({k: dataclasses.replace(t, txs=deque(t.txs, maxlen=16))
                 for k, t in self.tables.items()}, self._order, self.refused)

    def restore(self, saved: tuple[dict[Key, _Table], float, int]) -> None:
        self.tables, self._order, self.refused = saved


def _page(key: Key, p: Progress, data: dict[str, Any]) -> list[Stored] | None:
    """Returns the messages of a ``history_since`` answer for ``key``, or None when it does
    not fit the asking: numbers out of reach, a message that is not one."""
    venue, table, epoch = key
    upto, since = data.get("upto"), data.get("since") or 0
    if not (isinstance(upto, int) and isinstance(since, int)
            and 0 <= since <= p.complete_upto + REACH and 0 <= upto <= p.complete_upto + REACH
            and isinstance(data.get("first") or 0, int)):
        return None
    raw = data.get("messages") or []
    if not isinstance(raw, list) or len(raw) > FILL_LIMIT:
        return None
    out: list[Stored] = []
    for m in raw:
        if not (isinstance(m, dict) and isinstance(m.get("seq"), int)
                and 0 < m["seq"] <= upto and isinstance(m.get("topic"), str)
                and isinstance(m.get("payload"), dict)):
            return None
        if m["seq"] > p.complete_upto:  # those below came meanwhile
            out.append(Stored(venue, table, m["seq"], m["topic"], m["payload"], epoch))
    return out


def missing(first: int, last: int, have: set[int]) -> list[tuple[int, int]]:
    """Returns the ranges of seqs from ``first`` to ``last`` that are not in ``have`` (in
    time that grows with ``have``, not with the range)."""
    held = sorted(have)
    out: list[tuple[int, int]] = []
    start = first
    for s in held[bisect_left(held, first):bisect_right(held, last)]:
        if s > start:
            out.append((start, s - 1))
        start = s + 1
    if start <= last:
        out.append((start, last))
    return out
