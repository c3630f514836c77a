"""A commissioning session: the steps walked through on a live backend, and its record.

``run_session`` asks an ``Installer`` to do each step (a person at a terminal, or a simulated
table in tests and try-outs) and captures every sensor event that arrives meanwhile; an
installer may ask to do a step again (``REDO``), and only the last try is kept. A step is
over when the installer says so and the table has been quiet for ``settle_s``, or, where the
installer knows how many edges it caused (a simulation), once they have all arrived.

``save`` writes the session as a trace (interfaces §2: a header and the sensor lines, which
``replay`` reads) and ``session.json`` (the steps and which lines each one captured), and
``load`` reads them back, so a support person can analyse a session again elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.commission.analysis import Capture
from controller.commission.steps import Step
from controller.pipeline.trace import BadLine, read_trace
from hardware.backend import SensorBackend
from hardware.events import LinkChanged, SensorEvent


class Redo:
    """An installer's answer to a step: do it again, what it heard so far forgotten."""


#: The one ``Redo``.
REDO = Redo()


class Installer(Protocol):
    """Whoever does the steps."""

    async def do(self, step: Step) -> int | Redo | None:
        """Returns once the step is done: the number of sensor edges it caused where that is
        known (a simulation), else None (then the session waits for the table to settle);
        ``REDO`` to do the step again from its start."""
        ...


@dataclass(slots=True)
class Session:
    """What a session captured, step by step, and what the backend said of its links."""

    captures: list[Capture] = field(default_factory=list)
    links: list[LinkChanged] = field(default_factory=list)


async def run_session(backend: SensorBackend, steps: list[Step], installer: Installer, *,
                      settle_s: float = 1.0, timeout_s: float = 300.0,
                      heard: Callable[[SensorEvent], None] | None = None) -> Session:
    """Returns the session of ``steps`` on ``backend`` (entered by the caller); ``heard`` is
    told of each sensor event as it arrives."""
    session = Session()
    levels: dict[str, int] = {}
    current: list[SensorEvent] = []
    arrived = asyncio.Event()

    async def read() -> None:
        async for item in backend.events():
            if isinstance(item, SensorEvent):
                current.append(item)
                levels[item.ch] = item.v
                if heard is not None:
                    heard(item)
            else:
                session.links.append(item)
            arrived.set()

    reader = asyncio.create_task(read(), name="commission-reader")
    try:
        # a backend reports the levels it finds at connect first: they are no step's edges
        await _settle(arrived, settle_s, reader)
        current.clear()
        for step in steps:
            start = dict(levels)
            current.clear()
            while isinstance(caused := await installer.do(step), Redo):
                start = dict(levels)  # the step again, from where the table is now
                current.clear()
            async with asyncio.timeout(timeout_s):
                if caused is not None:
                    while len(current) < caused and not reader.done():
                        arrived.clear()
                        await arrived.wait()
                else:
                    await _settle(arrived, settle_s, reader)
            session.captures.append(Capture(step, tuple(current), start))
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    return session


async def _settle(arrived: asyncio.Event, settle_s: float, reader: asyncio.Task[None]) -> None:
    """Returns once nothing has arrived for ``settle_s`` (the table is at rest)."""
    while not reader.done():
        arrived.clear()
        try:
            async with asyncio.timeout(settle_s):
                await arrived.wait()
        except TimeoutError:
            return


def save(session: Session, directory: Path, header: dict[str, Any]) -> Path:
    """Writes the session under ``directory`` (trace.jsonl, session.json); returns the trace."""
    directory.mkdir(parents=True, exist_ok=True)
    trace = directory / "trace.jsonl"
    steps: list[dict[str, Any]] = []
    n = 1  # the header is line 1
    with trace.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"trace": 1, "commission": 1, **header}, ensure_ascii=False) + "\n")
        for cap in session.captures:
            steps.append({"id": cap.step.id, "kind": str(cap.step.kind), "target": cap.step.target,
                          "first_line": n + 1, "lines": len(cap.events),
                          "levels": dict(cap.levels)})
            for ev in cap.events:
                f.write(json.dumps(ev.to_json(), ensure_ascii=False) + "\n")
                n += 1
    (directory / "session.json").write_text(json.dumps({"steps": steps}, indent=1) + "\n",
                                            encoding="utf-8")
    return trace


def load_session(directory: Path) -> tuple[dict[str, Any], Session]:
    """Returns the header and the session saved under ``directory``.

    Raises ValueError for a line of the trace that cannot be read.
    """
    header: dict[str, Any] = {}
    events: dict[int, SensorEvent] = {}
    with (directory / "trace.jsonl").open(encoding="utf-8") as f:
        for n, item in enumerate(read_trace(f), start=1):
            if isinstance(item, BadLine):
                raise ValueError(f"trace line {item.line}: {item.reason}")
            if isinstance(item, SensorEvent):
                events[n] = item
            elif n == 1 and hasattr(item, "fields"):
                header = dict(item.fields)
    meta = json.loads((directory / "session.json").read_text(encoding="utf-8"))
    session = Session()
    for s in meta["steps"]:
        step = Step.of(s["id"], s["kind"], s["target"])
        first = s["first_line"]
        captured = tuple(events[i] for i in range(first, first + s["lines"]))
        session.captures.append(Capture(step, captured, dict(s["levels"])))
    return header, session
