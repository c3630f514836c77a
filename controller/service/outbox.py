"""The outbox: the table's deliveries waiting for the broker, in order (a message's third
stage, *waiting*: ``controller.service.delivery`` tells its whole life). Bounded, and mirrored
in the journal's ``outbox`` table; ``MqttLink`` drains it, one message at a time, each
acknowledged before it leaves."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Callable

from controller.service.delivery import Delivery
from controller.service.journal import Journal

log = logging.getLogger(__name__)

#: Responses waiting in the outbox, at most (past it the oldest is dropped, counted): a
#: flood's replies stay small beside the match's messages.
REPLIES_WAITING = 1000
#: A reply in flight this many times as the connection ended is given up (``Outbox.unsend``).
REPLY_TRIES = 2


class Outbox:
    """Messages waiting for the broker, in order; bounded, and mirrored in the journal.

    A message is ``add``-ed when produced and becomes sendable once ``release()``-d (after
    the journal batch holding it is synced); ``release_early()`` releases the messages
    marked ``early`` at the head of those waiting, once their batch is written (a live event
    need not wait for the disk; nothing overtakes a message still waiting). Messages leave
    in the order they were added. A retained message supersedes an older one of
    the same topic still waiting. At most ``REPLIES_WAITING`` responses wait (the oldest is
    dropped, counted). Past ``limit`` the oldest response is dropped (and counted),
    else the oldest retained message (republished after every reconnect anyway), and an
    event only when nothing else is left: a flood of junk requests never costs a match event.
    """

    def __init__(self, journal: Journal, limit: int,
                 on_delivered: Callable[[], None] | None = None) -> None:
        self._journal = journal
        self._on_delivered = on_delivered
        self._limit = limit
        self._items: deque[Delivery] = deque()
        self._held: deque[Delivery] = deque()  # added, not yet released (a suffix of _items)
        self._replies: deque[Delivery] = deque()  # responses waiting, oldest first (may be dead)
        self._dead: set[int] = set()
        self._retained: dict[str, Delivery] = {}
        self._released = 0
        self._sending: int | None = None
        self._tries: dict[int, int] = {}  # reply id -> times in flight as the connection ended
        self._ready = asyncio.Event()
        self._empty = asyncio.Event()
        self._empty.set()
        self.dropped = 0
        self.delivered = 0
        self.refused = 0

    def restore(self, items: list[Delivery]) -> None:
        """Takes the messages a previous run left undelivered (already journaled)."""
        for item in items:
            self._items.append(item)
            self._held.append(item)
            if item.retain:
                self._retained[item.topic] = item
            elif is_reply(item):
                self._replies.append(item)
        self.release()

    def add(self, item: Delivery) -> None:
        if item.retain:
            older = self._retained.get(item.topic)
            if older is not None and older.id != self._sending:
                self._kill(older)
            self._retained[item.topic] = item
        self._items.append(item)
        self._held.append(item)
        self._empty.clear()
        if is_reply(item):
            self._replies.append(item)
            while len(self._replies) > REPLIES_WAITING:  # a flood's replies: the oldest go
                oldest = self._replies.popleft()
                if oldest.id not in self._dead and oldest.id != self._sending:
                    self._drop(oldest)
        while len(self._items) - len(self._dead) > self._limit:
            self._drop(self._victim(item))

    def _drop(self, item: Delivery) -> None:
        """Drops a waiting message to make room, counted and logged."""
        self._kill(item)
        self.dropped += 1
        if self.dropped == 1 or self.dropped % 1000 == 0:
            log.warning("outbox full (%d messages, %d replies): dropped %s seq %s (%d dropped so"
                        " far)", self._limit, REPLIES_WAITING, item.topic, _seq(item), self.dropped)

    def _victim(self, new: Delivery) -> Delivery:
        """Returns the message to drop when the outbox is full: the oldest reply (a response
        to one sender: under a flood of junk requests, that is what piles up), else the
        oldest retained message other than ``new`` (the service republishes its topic after
        reconnecting), else the oldest message: an event is dropped only when nothing else
        is left."""
        replies = self._replies
        while replies and (replies[0].id in self._dead or replies[0].id == self._sending):
            replies.popleft()
        if replies:
            return replies.popleft()
        waiting = [i for i in self._retained.values() if i.id != self._sending and i is not new]
        if waiting:
            return min(waiting, key=lambda i: i.id)
        return next(i for i in self._items if i.id not in self._dead and i.id != self._sending)

    def _kill(self, item: Delivery) -> None:
        self._dead.add(item.id)
        self._journal.drop_outgoing(item.id)
        if self._retained.get(item.topic) is item:
            del self._retained[item.topic]

    def release(self, upto: int | None = None) -> None:
        """Makes every message added so far (or every one up to id ``upto``) sendable."""
        held = self._held
        if held and (upto is None or held[0].id <= upto):
            while held and (upto is None or held[0].id <= upto):
                self._released = held.popleft().id
            self._ready.set()

    def release_early(self, upto: int) -> None:
        """Makes the waiting messages marked ``early`` up to id ``upto`` sendable, up to the
        first one that is not ``early``."""
        held = self._held

        def early(item: Delivery) -> bool:
            return item.id <= upto and (item.early or item.id in self._dead)

        if held and early(held[0]):
            while held and early(held[0]):
                self._released = held.popleft().id
            self._ready.set()

    def __len__(self) -> int:
        return len(self._items) - len(self._dead)

    def newest(self, topic: str) -> Delivery | None:
        """Returns the waiting retained message of ``topic`` if it may be sent, else None."""
        item = self._retained.get(topic)
        return item if item is not None and item.id <= self._released else None

    async def next(self) -> Delivery:
        """Returns the oldest sendable message (it stays in the outbox until ``done``)."""
        while True:
            while self._items and self._items[0].id in self._dead:
                self._dead.discard(self._items.popleft().id)
            if self._items and self._items[0].id <= self._released:
                self._sending = self._items[0].id
                return self._items[0]
            if not self._items:
                self._empty.set()
            self._ready.clear()
            await self._ready.wait()

    def done(self, item: Delivery) -> None:
        """Removes a delivered message."""
        self._sending = None
        self._tries.pop(item.id, None)
        if self._items and self._items[0] is item:
            self._items.popleft()
        if self._retained.get(item.topic) is item:
            del self._retained[item.topic]
        while self._replies and self._replies[0].id <= item.id:  # they leave in order
            self._replies.popleft()
        self._journal.drop_outgoing(item.id)
        self.delivered += 1
        if self._on_delivered is not None:
            self._on_delivered()
        if not self:
            self._empty.set()

    def give_up(self, item: Delivery, reason: str) -> None:
        """Removes a message that can never be published (the client library refused it)."""
        log.error("cannot publish to %.80s (%d bytes): %s; given up", item.topic,
                  len(item.payload), reason)
        self.refused += 1
        self._kill(item)
        self._sending = None
        if self._items and self._items[0] is item:
            self._dead.discard(self._items.popleft().id)
        if not self:
            self._empty.set()

    def unsend(self) -> None:
        """The message being sent was not acknowledged; it will be sent again, unless it is a
        reply that was in flight ``REPLY_TRIES`` times as the connection ended (a reply the
        broker answers by closing the connection must not hold up what follows): given up."""
        sending, self._sending = self._sending, None
        head = self._items[0] if self._items else None
        if head is None or head.id != sending or not is_reply(head):
            return
        self._tries[head.id] = tries = self._tries.get(head.id, 0) + 1
        if tries >= REPLY_TRIES:
            del self._tries[head.id]
            self.give_up(head, f"the connection ended {tries} times as it was sent")

    async def drained(self) -> None:
        """Returns when every message added so far has been delivered."""
        await self._empty.wait()


def is_reply(item: Delivery) -> bool:
    """Returns whether ``item`` is a response or an MQTT 5 reply (said to one sender), not an
    event nor a retained message (status, state, display, health)."""
    return not item.retain and not item.topic.endswith("/event")


def _seq(item: Delivery) -> object:
    try:
        return json.loads(item.payload).get("seq")
    except (ValueError, AttributeError):
        return None
