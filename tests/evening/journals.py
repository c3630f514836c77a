"""A table's journal as the checker reads it: read-only, beside the running service.

``journal.sqlite3`` keeps the published messages (the last 50,000) and the inputs since the
last new match (it compacts the earlier ones away); the session traces (``<data>/traces``)
keep every input, each written after the journal took it (a ``kill -9`` leaves a trace behind
its journal). ``snapshot_inputs`` keeps the journal's inputs as they stood when a session
ended; ``inputs_history`` joins the two into the table's whole input history.
"""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any


def _read(path: Path, sql: str) -> list[tuple[Any, ...]]:
    if not path.exists():
        return []
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(db.execute(sql))
    except sqlite3.Error:
        return []
    finally:
        db.close()


def journal_published(data: Path) -> tuple[str, dict[int, tuple[str, dict[str, Any]]]]:
    """Returns a table's journal's epoch and the messages it keeps as published, by seq
    (topics relative to the table's base)."""
    path = data / "journal.sqlite3"
    meta = dict(_read(path, "SELECT key, value FROM meta"))
    rows = _read(path, "SELECT seq, topic, payload FROM published")
    return str(meta.get("epoch", "")), {
        int(s): (str(t).split("/", 3)[-1], json.loads(bytes(p))) for s, t, p in rows}


def journal_inputs(data: Path) -> list[dict[str, Any]]:
    """Returns the inputs a table's journal holds now (since its last compaction)."""
    return [json.loads(line) for _, line in
            _read(data / "journal.sqlite3", "SELECT id, line FROM inputs ORDER BY id")]


def snapshot_inputs(data: Path, session: int) -> None:
    """Keeps the journal's inputs as they stand after a session ended (a kill, a stop),
    for ``inputs_history``: ``<data>/../<table>.session-<n>.json``."""
    out = data.parent / f"{data.name}.session-{session}.json"
    out.write_text(json.dumps(journal_inputs(data)))


class TickKeeper:
    """Keeps a running table's journaled clock ticks before a new match compacts them away:
    ``look()`` reads the inputs the journal took since the last look (its ids start again after
    a compaction that emptied it), and notes each tick after the input it followed;
    ``save()`` writes them beside the table's data (``<table>.ticks.json``) for
    ``inputs_with_ticks``. Ticks a compaction took between two looks are lost to it."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self._last_id = 0
        self._before: str | None = None  # the last input before the ticks to come
        self.ticks: list[tuple[str, dict[str, Any]]] = []
        self._seen: set[str] = set()

    def look(self) -> None:
        path = self.data / "journal.sqlite3"
        top = _read(path, "SELECT MAX(id) FROM inputs")
        if top and top[0][0] is not None and int(top[0][0]) < self._last_id:
            self._last_id, self._before = 0, None  # compacted
        for row_id, line in _read(path, f"SELECT id, line FROM inputs WHERE id > {self._last_id} "
                                        "ORDER BY id"):
            self._last_id = int(row_id)
            x = json.loads(line)
            if "tick" not in x:
                self._before = json.dumps(x, sort_keys=True)
            elif self._before is not None and (key := self._before + line) not in self._seen:
                self._seen.add(key)
                self.ticks.append((self._before, x))

    def save(self) -> None:
        (self.data.parent / f"{self.data.name}.ticks.json").write_text(json.dumps(self.ticks))


def inputs_history(data: Path) -> list[dict[str, Any]]:
    """Returns every input the table took over the evening, in order: each session's trace
    (past the inputs a restarted session copies from its journal first: its header's
    ``resumed``), completed with what the journal held after the session ended past the
    trace's last line (a ``kill -9`` leaves a trace behind its journal)."""
    out: list[dict[str, Any]] = []
    traces = sorted((data / "traces").glob("trace-*.jsonl"))
    for n, trace in enumerate(traces, start=1):
        texts = [t for t in trace.read_text().splitlines() if t.strip()]
        header = json.loads(texts[0]) if texts else {}
        lines = [json.loads(t) for t in texts[1:]][int(header.get("resumed") or 0):]
        snap = data.parent / f"{data.name}.session-{n}.json"
        journal = [x for x in (json.loads(snap.read_text()) if snap.exists() else [])
                   if "tick" not in x]
        if lines and lines[-1] in journal:
            at = len(journal) - 1 - journal[::-1].index(lines[-1])
            lines += journal[at + 1:]
        elif not lines:  # killed before its first input reached the trace
            lines = journal[int(header.get("resumed") or 0):]
        out += lines
    return out


def inputs_with_ticks(data: Path) -> list[dict[str, Any]]:
    """Returns ``inputs_history`` with the clock ticks the table journaled woven in, each after
    the input it followed in a session's journal (the traces keep no ticks). A table on a
    loaded host runs its clock (a ruling falling due) before it takes edges stamped earlier,
    which then rule the shot again: a replay without those ticks rules once, from all the
    edges, and its rulings differ from what the table published though both are right."""
    after: dict[str, list[dict[str, Any]]] = {}
    n = 1
    while (snap := data.parent / f"{data.name}.session-{n}.json").exists():
        last: str | None = None
        for x in json.loads(snap.read_text()):
            if "tick" not in x:
                last = json.dumps(x, sort_keys=True)
            elif last is not None:
                after.setdefault(last, []).append(x)
        n += 1
    kept = data.parent / f"{data.name}.ticks.json"  # what the harness kept while it ran
    for before, tick in json.loads(kept.read_text()) if kept.exists() else []:
        if tick not in after.setdefault(before, []):
            after[before].append(tick)
    for ticks in after.values():
        ticks.sort(key=lambda x: float(x["t"]))
    # the journal compacts a match's inputs away at the next new match, its ticks with them:
    # a session's snapshot keeps only its last match's. A table's clock acted at each ruling
    # it published (``shot_result``'s ``ts``: the time it ruled at, the journaled inputs
    # never earlier than the last): a tick there, woven in by time, is the one it journaled
    _, published = journal_published(data)
    ruled = sorted({float(p["ts"]) for topic, p in published.values()
                    if topic == "event" and p.get("type") == "shot_result"})
    out: list[dict[str, Any]] = []
    ticked = -math.inf
    for x in inputs_history(data):
        while ruled and ruled[0] <= float(x["t"]):
            at = ruled.pop(0)
            if at > ticked:
                out.append({"t": at, "tick": 1})
                ticked = at
        out.append(x)
        for tick in after.pop(json.dumps(x, sort_keys=True), []):
            out.append(tick)
            ticked = max(ticked, float(tick["t"]))
    return out + [{"t": at, "tick": 1} for at in ruled if at > ticked]
