"""The table rebuilt from its journal on start, checked against the trace and the seq mark.

The journal's inputs are fed to a new table (``controller.pipeline.table.feed``, as ``replay``
does; the clock's ticks as ``advance``), its kept answers remembered (transactions still
answered once), and numbering resumed after the last seq given out — after the reservation
when what was published may be more than the journal holds: a power cut (a new boot, no clean
stop) or a damaged journal.

A damaged journal never rolls the score back silently. The journal is compared with the last
session of the trace (``<data>/traces``: each session's trace starts with the journal's inputs
of the match in play and goes on with every input, flushed after each commit) and with the
seq mark (``controller.service.seqmark``):

- an input row that cannot be read is taken from the trace, or skipped and reported;
- inputs the trace holds past the journal's end (a cut or overwritten log, a deleted log, a
  database replaced) are recovered from it, and the journal is written whole again;
- a journal below the seq mark's reservation (it lost what it had synced), or a last run that
  published what the journal could not take (a full disk), with nothing to recover it from,
  is a table that came back with less than it had published: ``Rebuilt.lost`` says so (health
  shows it, ``TableCore``), and so does the log.

Either way seqs continue after the reservation, so none is given to another message.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from controller.pipeline.table import Table, feed
from controller.pipeline.trace import HealthLine, RequestLine, parse_line
from controller.service.config import Config
from controller.service.inputlog import Recording
from controller.service.journal import Journal
from hardware.events import LinkChanged, SensorEvent
from hardware.health import Health, HealthMonitor

log = logging.getLogger(__name__)

_COMPACT = (",", ":")
#: The health link that says how the table came back from a damaged journal: down (with the
#: reason) while the match in play may have less than was published, up with the reason when
#: the trace gave back what the journal had lost.
REBUILD_LINK = "rebuild"


@dataclass(slots=True)
class Entry:
    """One journaled input: its line (None: the row cannot be read, ``problem`` says why)."""

    row: int
    line: dict[str, Any] | None
    problem: str = ""

    @property
    def tick(self) -> bool:
        return self.line is not None and "tick" in self.line


@dataclass(slots=True)
class Rebuilt:
    """What the rebuild found: the inputs fed (the journal's, mended), the table's last
    input time, the channels' health as fusion was told it, the reservation, and what went
    wrong (``lost``: why the table has less than it published; ``recovered``: what the trace
    gave back)."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    last_t: float = 0.0
    told: dict[str, Health] = field(default_factory=dict)
    seq_limit: int = 0
    damaged: bool = False
    lost: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)


def read_journal(journal: Journal) -> list[Entry]:
    """Returns the journal's inputs, each readable or saying why not."""
    out = []
    for row, text in journal.rows():
        try:
            line = json.loads(text)
        except ValueError as exc:
            out.append(Entry(row, None, f"not JSON: {exc}"))
            continue
        if not isinstance(line, dict) or not isinstance(line.get("t"), int | float):
            out.append(Entry(row, None, "not an input line"))
            continue
        out.append(Entry(row, line))
    return out


def _trace_text(line: dict[str, Any]) -> str:
    """Returns a line as the trace writes it."""
    return json.dumps(line, separators=_COMPACT, ensure_ascii=False)


def align(entries: Sequence[Entry], traced: Sequence[str]) -> int | None:
    """Returns where the journal's first non-tick input is in ``traced`` (the trace session's
    lines), the journal's readable inputs then matching the trace's as far as it goes; None
    when the trace does not hold the journal. Unreadable rows match any line."""
    inputs = [e for e in entries if not e.tick]
    keys = [None if e.line is None else _trace_text(e.line) for e in inputs]
    readable = [i for i, k in enumerate(keys) if k is not None]
    if not readable:
        return None
    first = readable[0]
    for c in range(len(traced) - 1, -1, -1):
        k = c - first
        if k < 0:
            break
        if traced[c] != keys[first]:
            continue
        if all(traced[k + i] == keys[i] for i in readable if k + i < len(traced)):
            return k
    return None


class Rebuild:
    """Rebuilds ``table`` from ``journal`` (see the module docstring): ``traced`` is the last
    trace session's lines (headers left out), ``boot`` this boot's id, ``replaced`` why the
    journal's database was replaced by an empty one (it could not be read), if it was."""

    def __init__(self, journal: Journal, traced: Sequence[str], *, boot: str,
                 replaced: str | None = None) -> None:
        self.journal = journal
        self.traced = [t.rstrip("\n") for t in traced]
        self.boot = boot
        self.replaced = replaced
        self.found = Rebuilt()

    def new_table(self, config: Config, health: HealthMonitor, wall: float) -> Table:
        """Returns the table to rebuild: its matches numbered on from the journal's (a new
        journal's match ids start with the date of ``wall``, the wall clock's time now)."""
        meta = self.journal.meta
        prefix = meta.get("prefix")
        if prefix is None:
            prefix = "m-" + datetime.fromtimestamp(wall, UTC).strftime("%Y%m%d")
            self.journal.set_meta("prefix", prefix)
        return Table(fusion=config.fusion_settings(), match_id=lambda n: f"{prefix}-{n}",
                     matches=int(meta.get("matches_before", "0")), health=health,
                     language=config.language)

    def inputs(self) -> list[dict[str, Any]]:
        """Returns the inputs to feed, the journal's mended from the trace (``found`` says what
        was mended and what is lost)."""
        entries = read_journal(self.journal)
        found = self.found
        found.damaged = self.replaced is not None or any(e.line is None for e in entries)
        lines: list[dict[str, Any]] = []
        k = align(entries, self.traced) if entries else (0 if self._lost_all() else None)
        if k is None and found.damaged and entries:  # were the unreadable rows the clock's ticks?
            readable = [e for e in entries if e.line is not None]
            k = align(readable, self.traced)
            if k is not None:
                found.recovered += [f"journal row {e.row} ({e.problem}): a tick of the clock, "
                                    "which the trace does not need" for e in entries
                                    if e.line is None]
                entries = readable
        n = 0  # the journal's non-tick inputs so far
        for e in entries:
            if e.line is not None:
                lines.append(e.line)
                n += 0 if e.tick else 1
                continue
            at = None if k is None else k + n
            if at is not None and at < len(self.traced):
                line = self._traced_line(at)
                if line is not None:
                    lines.append(line)
                    found.recovered.append(f"journal row {e.row} ({e.problem}) from the trace")
                    n += 1
                    continue
            found.lost.append(f"journal row {e.row} cannot be read ({e.problem}): skipped")
            n += 1
        if k is not None and k + n < len(self.traced):
            extra = [x for x in map(self._traced_line, range(k + n, len(self.traced)))
                     if x is not None]
            if extra and self.power_cut() and not (found.damaged or self._behind_mark()):
                # what a power cut takes back: never synced, so never published (but a live
                # ball_pocketed, whose seq was reserved)
                log.info("%d inputs recorded in the trace were not synced before the power cut",
                         len(extra))
            elif extra:
                found.damaged = True
                found.recovered.append(f"{len(extra)} inputs the journal had lost, from the trace")
                lines += extra
        if self.replaced is not None:  # what the old database held, and the trace did not
            (found.recovered if found.recovered else found.lost).insert(0, self.replaced)
        found.lines = lines
        found.last_t = max((float(x["t"]) for x in lines), default=0.0)
        return lines

    def _lost_all(self) -> bool:
        """Returns whether an empty journal lost what it had (the mark says seqs were given)."""
        mark = self.journal.mark.found
        return self.replaced is not None or mark.reserved > 0 or mark.behind

    def _behind_mark(self) -> bool:
        """Returns whether the seq mark says the journal holds less than was published: less
        reserved than the mark, or the last run published what it could not write."""
        mark = self.journal.mark.found
        return mark.behind or mark.reserved > int(self.journal.meta.get("seq_limit", "0"))

    def power_cut(self) -> bool:
        """Returns whether the last run ended in a power cut: no clean stop, and the machine
        restarted since (what was not synced is gone, by design)."""
        meta = self.journal.meta
        return meta.get("clean", "1") != "1" and (not self.boot or meta.get("boot") != self.boot)

    def _traced_line(self, at: int) -> dict[str, Any] | None:
        try:
            line = json.loads(self.traced[at])
        except ValueError:
            return None
        return line if isinstance(line, dict) and "trace" not in line else None

    def replay(self, table: Table, lines: Sequence[dict[str, Any]]) -> None:
        """Replays the inputs into ``table`` (``feed``), remembers the kept answers and resumes
        numbering."""
        journal, found = self.journal, self.found
        for n, line in enumerate(lines, start=1):
            if "tick" in line:
                table.advance(float(line["t"]))
                continue
            item = parse_line(json.dumps(line), n)
            if isinstance(item, SensorEvent | RequestLine | HealthLine):
                feed(table, item)
                if isinstance(item, HealthLine):
                    found.told[item.channel] = item.state
            else:
                log.error("journal line %d cannot be read: %s", n, line)
        known = {tx for tx, _, _ in table.transactions()}
        for tx, name, response in journal.answers():
            if tx not in known:
                table.remember(tx, name, response)
        self._resume_seq(table)
        if found.recovered:  # the journal written whole again, mended
            journal.compact(journal.next_input, table.transactions())
            for line in lines:
                journal.add_input(line)

    def _resume_seq(self, table: Table) -> None:
        journal, found = self.journal, self.found
        meta, mark = journal.meta, journal.mark.found
        limit = int(meta.get("seq_limit", "0"))
        if journal.mark.problem is not None:  # what was reserved is not known: past the journal's
            log.error("%s: seq continues after the journal's reservation", journal.mark.problem)
            found.damaged = True
        if mark.reserved > limit:
            found.damaged = True
            if not found.recovered:
                found.lost.append(f"the journal lost what it had synced: seqs were reserved to "
                                  f"{mark.reserved}, the journal holds {limit}")
        if mark.behind and not found.recovered:
            found.damaged = True
            found.lost.append("the last run published what the journal could not hold "
                              "(it could not be written)")
        found.seq_limit = max(limit, mark.reserved)
        if found.seq_limit > limit:
            journal.set_meta("seq_limit", found.seq_limit)
        if mark.behind:  # recovered, or the loss kept in the journal's meta (``news``)
            journal.mark.fell_behind(False)
        table.resume_seq(int(meta.get("seq", "0")))
        if self.power_cut() or found.damaged:
            # what was published before its batch was synced (or before the journal lost
            # it) may be more than the journal holds: those seqs were reserved, and are not
            # given out again
            table.resume_seq(found.seq_limit)
            journal.set_meta("seq", table.seq)
            log.info("the last run did not stop cleanly and the machine restarted since, or the"
                     " journal was damaged: seq continues at %d", table.seq + 1)

    def news(self, table: Table, trace: Recording | None) -> LinkChanged | None:
        """Logs what the rebuild found, records the session's start in ``trace``, and returns
        what health is to say of it (``REBUILD_LINK``; None: nothing to say). A loss is kept
        in the journal's meta (``lost``) until a new match, so a restart meanwhile still says
        it."""
        found, journal = self.found, self.journal
        for what in found.recovered:
            log.warning("the journal was damaged: recovered %s", what)
        if found.lost:
            log.error("the table came back with less than it had published: %s",
                      "; ".join(found.lost))
            journal.set_meta("lost", "; ".join(found.lost))
        if found.lines:
            log.info("resumed from the journal: %d inputs, match %s, seq %d", len(found.lines),
                     table.match_id, table.seq)
        if trace is not None:  # each session's trace replays from the match's start
            replayed = [line for line in found.lines if "tick" not in line]
            trace.header["resumed"] = len(replayed)  # the lines that replay it (no ticks)
            for line in replayed:
                trace.write(line)
        lost = journal.meta.get("lost", "")
        if lost:
            return LinkChanged(0.0, REBUILD_LINK, False,
                               f"came back with less than it had published: {lost}")
        if found.recovered:
            return LinkChanged(0.0, REBUILD_LINK, True,
                               "the journal was damaged; recovered " + "; ".join(found.recovered))
        return None
