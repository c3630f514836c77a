"""The recorder's side of the next match and the waiting list on the broker: it takes the
consoles' waiting-list requests (``controller.record.waiting_desk``) out of the batches it
reads, answers them, and publishes, retained, each table's ``next`` and each venue's
``waiting`` list whenever they changed (``controller.record.offers``): after every batch,
and at least once a second while it is connected (a director's assignment or a join on the
HTTP server reaches the tables that way), everything again on each connection."""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiomqtt

from controller.record import offers, waiting_desk
from controller.record.store import Store
from controller.wire.connection import publish

log = logging.getLogger(__name__)

#: The least time between two looks at the offers when nothing asked for one (seconds).
LOOK_S = 0.5
T = TypeVar("T")
#: Reads the store in a thread, waiting while it is away (the recorder's ``_stored``).
Stored = Callable[[Callable[[], T]], Awaitable[T]]


@dataclass
class Offering:
    """The requests to answer and what was published (module docstring)."""

    prefix: str
    board: offers.Board = field(init=False)
    requests: list[tuple[str, str, bytes]] = field(default_factory=list)
    _looked: float = 0.0

    def __post_init__(self) -> None:
        self.board = offers.Board(self.prefix)

    @property
    def topic(self) -> str:
        """The topic filter of the consoles' requests."""
        return f"{self.prefix}/+/waiting/request/+"

    def take(self, topic: str, payload: bytes) -> bool:
        """Keeps a console's waiting-list request; returns whether ``topic`` was one."""
        parts = topic.split("/")
        if len(parts) != 5 or parts[2] != "waiting" or parts[3] != "request":
            return False
        self.requests.append((parts[1], parts[4], payload))
        return True

    def connected(self) -> None:
        """Everything is published again on this connection."""
        self.board.forget()
        self._looked = 0.0

    async def serve(self, client: aiomqtt.Client, store: Store, stored: Stored[Any]) -> None:
        """Answers the requests taken, then publishes the offers and lists that changed."""
        answered = bool(self.requests)
        while self.requests:
            venue, name, raw = self.requests[0]
            body = await stored(functools.partial(waiting_desk.answer, store, venue, name, raw))
            await publish(client, f"{self.prefix}/{venue}/waiting/response/{name}",
                          _dumps(body), qos=1)
            self.requests.pop(0)
        if not answered and time.monotonic() - self._looked < LOOK_S:
            return
        self._looked = time.monotonic()
        for topic, body in await stored(lambda: self.board.due(store)):
            await publish(client, topic, body, qos=1, retain=True)
            self.board.sent(topic, body)


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()
