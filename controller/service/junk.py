"""Requests refused whatever the table holds: answered apart, at a bounded rate (issue 39,
item 8).

A flood of malformed requests from one client (Home Assistant's user may publish undo
requests) held up the referee: each was answered, and on a broker that saves its database
after every change (deploy/mosquitto/billiards.conf) the table's answers competed with its
acknowledgements, so the broker's queue for the table filled (``max_queued_messages``) and a
referee's request waited behind the flood or was dropped by the broker (``python -m
benchmarks.flood_referee``; the figures in benchmarks/results.md).

A request that the table refuses whatever its state — one that is not a request
(``requests.parse_request`` refuses it) or one the link already refused (``Request.problem``)
— changes nothing and need not keep its order: it is taken at once from the link
(acknowledged, so the broker's queue drains as fast as the broker sends) and answered only
when no other input waits, and only ``JUNK_RATE`` a second (``JUNK_BURST`` at once), at
most ``JUNK_WAITING`` waiting: past that it is dropped unanswered, counted and logged (its
sender is the flood; a client that sends one malformed request still gets its answer).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable

from controller.pipeline.requests import BadRequest, parse_request
from controller.service.core import Request

log = logging.getLogger(__name__)

#: Requests refused whatever the table holds that wait to be answered, at most.
JUNK_WAITING = 256
#: Such requests answered a second, and at once.
JUNK_RATE = 1.0
JUNK_BURST = 30.0
#: One drop in this many is logged (the first of a flood too).
LOG_EVERY = 10_000


def refused_anyway(request: Request) -> bool:
    """Returns whether the table refuses ``request`` whatever it holds."""
    if request.problem is not None:
        return True
    try:
        parse_request(request.name, request.payload)
    except BadRequest:
        return True
    return False


class JunkLane:
    """The requests refused whatever the table holds, waiting (see the module docstring);
    ``dropped`` counts those dropped unanswered."""

    def __init__(self, clock: Callable[[], float], limit: int = JUNK_WAITING) -> None:
        self._waiting: deque[Request] = deque()
        self._limit = limit
        self._clock = clock
        self._tokens = JUNK_BURST
        self._at = clock()
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._waiting)

    def put(self, request: Request) -> bool:
        """Keeps ``request`` to answer later (dropped past the rate or the bound). Returns
        whether it is the only one waiting (the table is to be woken)."""
        now = self._clock()
        self._tokens = min(JUNK_BURST, self._tokens + (now - self._at) * JUNK_RATE)
        self._at = now
        if self._tokens < 1 or len(self._waiting) >= self._limit:
            if self.dropped % LOG_EVERY == 0:
                log.warning("a flood of malformed requests: %d waiting, %d dropped unanswered"
                            " so far (the referee's requests go first)",
                            len(self._waiting), self.dropped + 1)
            self.dropped += 1
            return False
        self._tokens -= 1
        self._waiting.append(request)
        return len(self._waiting) == 1

    def take(self) -> Request | None:
        """Returns the oldest request waiting, or None."""
        return self._waiting.popleft() if self._waiting else None
