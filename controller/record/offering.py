"""The recorder's side of the next match and the waiting list on the broker: it takes the
consoles' waiting-list requests (``controller.record.waiting_desk``) out of the batches it
reads, answers them, and publishes, retained, each table's ``next`` and each venue's
``waiting`` list whenever they changed (``controller.record.offers``): after every batch,
and at least once a second while it is connected (a director's assignment or a join on the
HTTP server reaches the tables that way), everything again on each connection. A request is
acknowledged to the broker only once answered: a recorder killed, or a store away, before
then gets it again (a join twice is one, by its transaction)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
from sqlalchemy.exc import SQLAlchemyError

from controller.record import offers, waiting_desk
from controller.record.store import Store, StoreError
from controller.wire.connection import AckingClient, publish

log = logging.getLogger(__name__)

#: The least time between two looks at the offers when nothing asked for one (seconds).
LOOK_S = 0.5


@dataclass
class Offering:
    """The requests to answer and what was published (module docstring)."""

    prefix: str
    board: offers.Board = field(init=False)
    #: ``(venue, name, body, message)``: each acknowledged once it is answered
    requests: list[tuple[str, str, bytes, aiomqtt.Message]] = field(default_factory=list)
    _looked: float = 0.0

    def __post_init__(self) -> None:
        self.board = offers.Board(self.prefix)

    @property
    def topic(self) -> str:
        """The topic filter of the consoles' requests."""
        return f"{self.prefix}/+/waiting/request/+"

    def take(self, topic: str, payload: bytes, message: aiomqtt.Message) -> bool:
        """Keeps a console's waiting-list request (``message``, acknowledged once answered);
        returns whether ``topic`` was one."""
        parts = topic.split("/")
        if len(parts) != 5 or parts[2] != "waiting" or parts[3] != "request":
            return False
        self.requests.append((parts[1], parts[4], payload, message))
        return True

    def holds(self, message: aiomqtt.Message) -> bool:
        """Whether ``message`` is a request not answered yet (not to be acknowledged)."""
        return any(kept is message for *_, kept in self.requests)

    def connected(self) -> None:
        """Everything is published again on this connection; the requests not answered on
        the last one come again (never acknowledged: the broker keeps them for the session)."""
        self.requests.clear()
        self.board.forget()
        self._looked = 0.0

    async def serve(self, client: AckingClient, store: Store,
                    batch: list[aiomqtt.Message]) -> None:
        """Answers the requests taken, then publishes the offers and lists that changed. A
        store away leaves them to the next call (the requests kept in order): the recorder's
        loop goes on, and its batches say the store is away. A request of an earlier batch is
        acknowledged once answered; one of ``batch`` with the batch, in its order."""
        answered = bool(self.requests)
        try:
            while self.requests:
                venue, name, raw, message = self.requests[0]
                answer = await asyncio.to_thread(waiting_desk.answer, store, venue, name, raw)
                await publish(client, f"{self.prefix}/{venue}/waiting/response/{name}",
                              _dumps(answer), qos=1)
                self.requests.pop(0)
                if not any(message is m for m in batch):
                    client.ack(message)
            if not answered and time.monotonic() - self._looked < LOOK_S:
                return
            self._looked = time.monotonic()
            due = await asyncio.to_thread(self.board.due, store)
        except (SQLAlchemyError, StoreError) as exc:
            log.warning("the next matches and the waiting list wait for the store: %s",
                        str(exc).splitlines()[0][:300])
            return
        for topic, body in due:
            await publish(client, topic, body, qos=1, retain=True)
            self.board.sent(topic, body)


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode()
