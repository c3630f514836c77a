"""``python -m controller replay TRACE``: a trace through the pipeline, no broker.

Prints every message the table would publish, one JSON object a line; reports each trace
line it cannot read (with its number) on standard error and goes on. Time is the trace's:
at its end the clock runs on until every open shot has settled. Each line is fed as the
live service's core feeds its journal back on a restart (``controller.pipeline.table.feed``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from controller.pipeline.fusion import FusionConfig, fusion_config
from controller.pipeline.table import Message, Table, feed
from controller.pipeline.trace import BadLine, Header, read_trace
from controller.words.texts import LANGUAGES


def replay(lines: Iterable[str], publish: Callable[[Message], None],
           errors: Callable[[BadLine], None], fusion: FusionConfig | None = None) -> Table:
    """Feeds a trace through a new Table; returns it, settled."""
    table: Table | None = None
    prefix = "m-replay"
    language = "en"
    for item in read_trace(lines):
        if isinstance(item, Header):
            recorded = str(item.fields.get("recorded", ""))[:10].replace("-", "")
            prefix = f"m-{recorded}" if recorded else prefix
            if item.fields.get("language") in LANGUAGES:  # the questions' words, as recorded
                language = str(item.fields["language"])
            if fusion is None and isinstance(item.fields.get("fusion"), dict):
                try:
                    fusion = fusion_config(item.fields["fusion"])
                except ValueError as exc:
                    errors(BadLine(1, str(exc)))
            continue
        if isinstance(item, BadLine):
            errors(item)
            continue
        if table is None:
            table = _table(publish, prefix, fusion, item.t, language)
        for msg in feed(table, item):
            publish(msg)
    if table is None:
        table = _table(publish, prefix, fusion, 0.0, language)
    for msg in table.settle():
        publish(msg)
    return table


def _table(publish: Callable[[Message], None], prefix: str, fusion: FusionConfig | None,
           t: float, language: str = "en") -> Table:
    table = Table(fusion=fusion, match_id=lambda n: f"{prefix}-{n}", language=language)
    for msg in table.start(t):
        publish(msg)
    return table


def main(path: str, out: TextIO = sys.stdout, err: TextIO = sys.stderr,
         fusion: FusionConfig | None = None) -> int:
    """Runs a replay; returns the exit status (1 when any line could not be read)."""
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    write = out.write
    bad = 0

    def publish(msg: Message) -> None:
        write(dumps(msg.to_json()))
        write("\n")

    def report(line: BadLine) -> None:
        nonlocal bad
        bad += 1
        err.write(f"{path}:{line.line}: {line.reason}\n")

    try:
        handle: Any = sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        err.write(f"cannot read {path}: {exc.strerror}\n")
        return 2
    with handle:
        replay(handle, publish, report, fusion)
    return 1 if bad else 0


def cli(args: Any) -> int:
    """The ``replay`` command."""
    return main(args.trace)
