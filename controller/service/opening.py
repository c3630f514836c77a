"""Opening a table's core: the I/O ``TableCore`` does not do. Builds the journal (a database that
SQLite cannot read is moved aside, kept for a look, and the table rebuilt on an empty one),
reads the last trace session to check the journal against, makes the trace writer and reads
this boot's id.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.pipeline.fusion import FusionConfig
from controller.pipeline.trace import TraceWriter
from controller.service.config import Config
from controller.service.core import TableCore
from controller.service.journal import Journal, JournalDamaged, JournalError

log = logging.getLogger(__name__)

#: The most of the last trace session read to check the journal against (its newest lines:
#: a match's inputs are a few hundred kB; the start-up's memory stays small).
TRACE_READ_BYTES = 16 << 20


def wall_clock() -> float:
    """Returns the wall clock's time now (``time.time``, looked up at each call)."""
    return time.time()


def boot_id() -> str:
    """Returns this boot of the machine's id (Linux), or "" where there is none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def move_aside(path: Path, exc: JournalDamaged) -> str:
    """Moves a journal's database that cannot be read (and its log) aside, kept for a look;
    returns why, and where it went. Raises JournalError if it cannot be moved."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    try:
        for suffix in ("", "-wal", "-shm"):
            old = path.with_name(path.name + suffix)
            if old.exists():
                old.rename(old.with_name(f"{path.name}.damaged-{stamp}{suffix}"))
    except OSError as moving:
        raise JournalError(f"{exc}; and it cannot be moved aside: {moving}") from moving
    why = f"{exc}; moved aside as {path.name}.damaged-{stamp}"
    log.error("%s: starting a new journal, recovering from the trace", why)
    return why


def last_session(directory: Path, limit: int = TRACE_READ_BYTES) -> list[str]:
    """Returns the lines (headers left out) of the last session recorded in ``directory``: the
    newest trace files with the newest file's header, the newest ``limit`` bytes of them."""
    files = sorted(directory.glob("trace-*.jsonl"))
    parts: list[list[str]] = []
    header: str | None = None
    left = limit
    for path in reversed(files):
        try:
            with path.open("rb") as f:
                first = f.readline()
                size = f.seek(0, 2)
                start = max(len(first), size - left)
                f.seek(start)
                data = f.read()
        except OSError as exc:
            log.error("cannot read the trace %s: %s", path, exc)
            break
        head = first.decode("utf-8", "replace").rstrip("\n")
        if not head or (header is not None and head != header):
            break
        header = head
        lines = data.decode("utf-8", "replace").splitlines()
        if start > len(first):  # began mid-line: that line is not whole
            lines = lines[1:]
        parts.append(lines)
        left -= len(data)
        if left <= 0:
            break
    return [line for part in reversed(parts) for line in part]


def trace_writer(config: Config) -> TraceWriter | None:
    """Returns the session's trace writer (None when recording is off); it opens its file at
    the first line."""
    if not config.recording.enabled:
        return None
    rec = config.recording
    return TraceWriter(
        config.data / "traces",
        {"venue": config.venue, "table": config.table,
         "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
         "session": uuid.uuid4().hex[:12],
         "fusion": ran_with(config), "language": config.language},
        max_bytes=int(rec.max_mb * (1 << 20)), keep=rec.keep,
        max_total_bytes=int(rec.total_mb * (1 << 20)))


def ran_with(config: Config) -> dict[str, Any]:
    """Returns the fusion settings the table runs with, as a trace header's ``fusion``: what
    ``[fusion]`` says and what the table has without saying (a simulated table's cue-ball
    detector), so that a replay of the trace asks what the table asked live."""
    return {f.name: list(v) if isinstance(v := getattr(config.fusion_settings(), f.name), tuple)
            else v for f in dataclasses.fields(FusionConfig)}


def open_core(config: Config, *, clock: Callable[[], float] = time.monotonic,
              wall: Callable[[], float] = wall_clock, boot: str | None = None) -> TableCore:
    """Returns the table's core, its journal opened and checked and the table rebuilt.

    ``clock`` is the host's monotonic clock, ``wall`` its wall clock, ``boot`` this boot's id
    (``boot_id()`` when None). Raises JournalError when the journal cannot be opened."""
    path = config.data / "journal.sqlite3"
    traces = config.data / "traces"
    # traces left from when recording was on are not this journal's: not compared
    traced = last_session(traces) if config.recording.enabled and traces.is_dir() else []
    kw: dict[str, Any] = {"traced": traced, "clock": clock, "wall": wall,
                          "boot": boot_id() if boot is None else boot}
    journal: Journal | None = None
    try:
        journal = Journal(path, sync=config.journal.sync)
        return TableCore(config, journal, trace=trace_writer(config), **kw)
    except JournalDamaged as exc:  # SQLite cannot read it (a bad JSON row is the rebuild's)
        if journal is not None:
            journal.abandon()
        replaced = move_aside(path, exc)
    return TableCore(config, Journal(path, sync=config.journal.sync), trace=trace_writer(config),
                     replaced=replaced, **kw)
