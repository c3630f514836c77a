"""The table's input log: each input noted in the journal at once, and in the trace (the
session's recording) after the journal took it. (Not the venue's recorder,
``controller.record``: that one records what tables publish.)"""

from __future__ import annotations

from typing import Any, Protocol

from controller.service.journal import Journal


class Recording(Protocol):
    """Where the session's inputs are recorded (``controller.pipeline.trace.TraceWriter``)."""

    header: dict[str, Any]

    def write(self, line: dict[str, Any]) -> None: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...


class InputLog:
    """Notes each input in ``journal`` and, once a commit has written it (or could not),
    in ``trace`` (if the session is recorded): a trace holding more than its journal is then
    a damaged journal (``controller.service.rebuild``), never a trace buffer that reached the
    disk first."""

    def __init__(self, journal: Journal, trace: Recording | None) -> None:
        self.journal = journal
        self.trace = trace
        self._waiting: list[dict[str, Any]] = []  # noted, for the trace after the commit
        #: The journal id of the last input noted (0: none yet in this run).
        self.last = 0

    def note(self, line: dict[str, Any]) -> None:
        """Notes an input (its journal id is ``last``)."""
        if self.trace is not None:
            self._waiting.append(line)
        self.last = self.journal.add_input(line)

    def tick(self, now: float) -> None:
        """Notes that the table's clock ran to ``now`` and made it act: journaled (the rebuild
        replays it), not traced (a replay's clock runs by itself)."""
        self.last = self.journal.add_input({"t": round(now, 6), "tick": 1})

    def committed(self) -> None:
        """The journal's commit is done: its inputs go to the trace."""
        if self.trace is not None:
            for line in self._waiting:
                self.trace.write(line)
        self._waiting.clear()

    def flush(self) -> None:
        """Flushes the trace (a convenience, not the journal)."""
        if self.trace is not None:
            self.trace.flush()

    def close(self) -> None:
        """Writes what waits and closes the trace."""
        self.committed()
        if self.trace is not None:
            self.trace.close()
