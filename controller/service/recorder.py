"""Where each input goes: the journal at once, the trace after the journal took it."""

from __future__ import annotations

from typing import Any, Protocol

from controller.service.journal import Journal


class Recording(Protocol):
    """Where the session's inputs are recorded (``controller.pipeline.trace.TraceWriter``)."""

    header: dict[str, Any]

    def write(self, line: dict[str, Any]) -> None: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...


class Recorder:
    """Notes each input in ``journal`` and, once a commit has written it (or could not),
    in ``trace`` (if the session is recorded): a trace holding more than its journal is then
    a damaged journal (``controller.service.rebuild``), never a trace buffer that reached the
    disk first."""

    def __init__(self, journal: Journal, trace: Recording | None) -> None:
        self.journal = journal
        self.trace = trace
        self._waiting: list[dict[str, Any]] = []  # noted, for the trace after the commit

    def note(self, line: dict[str, Any]) -> int:
        """Notes an input; returns its journal id."""
        if self.trace is not None:
            self._waiting.append(line)
        return self.journal.add_input(line)

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
