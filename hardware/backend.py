"""The one contract every sensor backend (GPIO, serial boards, simulator) satisfies.

A backend is an async context manager. Inside it, ``events()`` yields every sensor event in
the order it happened at the source, with source times on the host's monotonic timeline,
interleaved with ``LinkChanged`` records when a source disconnects or comes back. Events
that could not be delivered (a full queue) are counted in ``stats()``, never dropped silently.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

from hardware.events import LinkChanged, SensorEvent


@dataclass(slots=True)
class BackendStats:
    """Counters a backend keeps for health reporting.

    ``overflows``: events lost (``lost_by_channel``: those a source could name by channel,
    such as a board's full buffer); the link's trouble (serial boards): ``bad_frames``,
    ``sequence_gaps``, ``resends`` (edges asked for again), ``protocol_errors``,
    ``blind_spells`` (a board had its interrupts off) and ``reconnects``.
    """

    events: int = 0
    overflows: int = 0
    bad_frames: int = 0
    sequence_gaps: int = 0
    reconnects: int = 0
    links: dict[str, bool] = field(default_factory=dict)
    resends: int = 0
    protocol_errors: int = 0
    blind_spells: int = 0
    lost_by_channel: dict[str, int] = field(default_factory=dict)


@runtime_checkable
class SensorBackend(Protocol):
    """What the controller needs of a sensor backend."""

    name: str

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        """Returns the stream of events; it ends when the backend is closed."""
        ...

    def stats(self) -> BackendStats:
        """Returns the backend's counters (a snapshot)."""
        ...
