"""The serial ``SensorBackend``: one ``BoardLink`` per board, their events in one queue."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any, Self

from firmware_bridge.link import BoardLink
from hardware.backend import BackendStats
from hardware.events import LinkChanged, SensorEvent

_CLOSED = object()


class SerialBackend:
    """Sensor boards on USB serial, as a ``hardware.SensorBackend``.

    ``ports`` are the boards' serial paths (``/dev/serial/by-id/…``); ``link_options`` go to
    each ``BoardLink``. Events wait in a queue of ``queue_size``; when it is full an event
    is counted in ``stats().overflows`` and dropped. Events of one board are in source
    order; boards are merged in arrival order.
    """

    name = "serial"

    def __init__(self, ports: Sequence[str], *, queue_size: int = 4096, **link_options: Any):
        self.ports = tuple(ports)
        self._limit = queue_size
        self._queue: asyncio.Queue[object] = asyncio.Queue(maxsize=queue_size + 1)
        self._options = link_options
        self._stack: AsyncExitStack | None = None
        self.links: list[BoardLink] = []
        self._events = 0
        self._overflows = 0
        #: Each board's boot when last seen, by uid, shared by the links: a board that moves
        #: to another port keeps its boot (``BoardLink``).
        self.boots: dict[str, int] = {}

    async def __aenter__(self) -> Self:
        async with AsyncExitStack() as stack:
            for port in self.ports:
                link = BoardLink(port, self._emit, boots=self.boots, **self._options)
                self.links.append(await stack.enter_async_context(link))
            self._stack = stack.pop_all()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None
        if self._queue.full():
            self._queue.get_nowait()
            self._overflows += 1
        self._queue.put_nowait(_CLOSED)

    def _emit(self, item: SensorEvent | LinkChanged) -> None:
        if self._queue.qsize() >= self._limit:
            self._overflows += 1
            return
        self._queue.put_nowait(item)
        if isinstance(item, SensorEvent):
            self._events += 1

    async def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        """Yields every board's events and link changes; ends when the backend is closed."""
        while True:
            item = await self._queue.get()
            if item is _CLOSED:
                self._queue.put_nowait(_CLOSED)
                return
            assert isinstance(item, SensorEvent | LinkChanged)
            yield item

    def stats(self) -> BackendStats:
        """Returns the backend's counters (a snapshot)."""
        return BackendStats(
            events=self._events,
            overflows=self._overflows + sum(
                link.counters.overflows + link.counters.pending_overflows for link in self.links
            ),
            bad_frames=sum(link.bad_frames for link in self.links),
            sequence_gaps=sum(link.sequence_gaps for link in self.links),
            reconnects=sum(link.counters.reconnects for link in self.links),
            links={link.source: link.up for link in self.links},
            resends=sum(link.counters.resends for link in self.links),
            protocol_errors=sum(link.counters.protocol_errors for link in self.links),
            blind_spells=sum(link.counters.blind_spells for link in self.links),
            lost_by_channel={name: overflows for link in self.links
                             for name, (overflows, _) in link.losses.items() if overflows},
        )
