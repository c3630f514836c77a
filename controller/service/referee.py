"""The referee lane: the table's second MQTT session, for requests no flood can hold up
(issue 39, item 8).

A table's requests on ``B/request/<name>`` share one queue at the broker, whoever sends them,
and so do its answers on its one session: under a flood of junk from a client the ACL lets
write one of them (Home Assistant may write ``B/request/undo``) a referee's request waited
behind the junk at the broker, and its answer behind the table's acknowledgements of the
junk (Mosquitto reads one packet of a socket a pass): 0.44 s median, 3.6 s worst under
100,000 (``benchmarks/results.md``). So the table also keeps a session of its own for the
referees:

- it subscribes there to ``B/referee/request/<name>``, which only the referees may write
  (``referee`` and the browsers' bridge ``web`` in ``deploy/mosquitto/billiards.acl``): the
  broker queues those for that session alone;
- each is applied in the one order of the table's journal, through the same input queue as
  everything else, taken before any other input waiting (``RefereeRequests``), and answered
  as any request is, on ``B/response/<name>`` through the table's one outbox, in order
  (what the record and every other reader follow);
- a copy of that answer goes out on the lane's session too, on ``B/referee/response/<name>``,
  released with the original (once the journal holds it): the referee's console takes
  whichever comes first (the same transaction).

Its user is the table's own with ``/referee`` after it (the venue broker names sessions after
users; the ACL's table patterns then let it read ``billiards/<venue>/<table>/referee/
request/+`` and write ``.../referee/response/+``), with the table's password; its client id
the table's with ``-referee`` after it. Its Will is an empty retained message on
``B/referee/status``: it clears that topic and says nothing (the table's status is the
main session's). A lane that cannot connect (its user not in the broker's password file) is
logged and tried again; the referees' requests on ``B/request/<name>`` are still taken.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace

from controller.service.config import MqttConfig
from controller.service.core import Request
from controller.service.delivery import Delivery
from controller.service.intake import Incoming, reply_topic_error
from controller.service.journal import MEMORY, Journal
from controller.service.mqtt import BrokerRefused, MqttLink, UntrustedBroker
from controller.service.outbox import Outbox
from controller.wire.connection import Broker

log = logging.getLogger(__name__)

#: The lane's topic level below the table's base (``B/referee/request/<name>``), and the
#: suffix of its user and client id.
LANE = "referee"
#: Referee requests waiting for the table, at most (the lane's link then waits: the broker
#: holds the rest for the lane's session alone).
REFEREE_WAITING = 64
#: Copies of answers waiting for the lane's session, at most (the oldest go first; the
#: originals go out in any case).
COPIES_WAITING = 100


def lane_base(base: str) -> str:
    """Returns the lane's base topic for the table whose base is ``base``."""
    return f"{base}/{LANE}"


def lane_broker(broker: Broker) -> Broker:
    """Returns the table's broker with the lane's user (the table's, ``/referee`` after it)."""
    if broker.username is None:
        return broker
    return replace(broker, username=f"{broker.username}/{LANE}")


class RefereeRequests:
    """The referee lane's requests waiting for the table, oldest first, at most
    ``REFEREE_WAITING`` (``put`` then waits)."""

    def __init__(self, limit: int = REFEREE_WAITING) -> None:
        self._waiting: deque[Request] = deque()
        self._room = asyncio.Semaphore(limit)

    def __len__(self) -> int:
        return len(self._waiting)

    async def put(self, request: Request) -> None:
        await self._room.acquire()
        self._waiting.append(request)

    def take(self) -> Request | None:
        """Returns the oldest request waiting, or None."""
        if not self._waiting:
            return None
        self._room.release()
        return self._waiting.popleft()


class RefereeLane:
    """The table's referee lane (see the module docstring): ``link`` takes the requests in
    (``on_request`` is called with each), ``requests`` holds them for the table task,
    ``copy`` keeps copies of their answers until ``release`` says the originals may go."""

    def __init__(self, broker: Broker, settings: MqttConfig, base: str, *, client_id: str,
                 on_request: Callable[[Incoming], Awaitable[None]]) -> None:
        self.base = base
        self.requests = RefereeRequests()
        self._answers = f"{base}/response/"
        self._copies: deque[tuple[int, Delivery]] = deque()  # (the original's id, its copy)
        self._made = 0
        # the copies are not journaled: their own outbox notes deliveries in memory, dropped
        self._memory = Journal(MEMORY)
        self._outbox = Outbox(self._memory, COPIES_WAITING, on_delivered=self._forget)

        async def checked(msg: Incoming) -> None:
            """An MQTT 5 response topic is checked against the table's own topics, as on
            the table's link (the lane's link checks it against the lane's)."""
            why = None if msg.response_topic is None else reply_topic_error(msg.response_topic, base)
            if why is not None:
                msg = Incoming(msg.name, msg.payload, problem=f"the response topic {why}; "
                               "nothing was done")
            await on_request(msg)

        self.link = MqttLink(lane_broker(broker), settings, lane_base(base), self._outbox,
                             client_id=f"{client_id}-{LANE}", will=b"",
                             on_connected=lambda: None, on_request=checked)

    def _forget(self) -> None:
        """A copy was delivered: what its outbox noted of it is dropped."""
        self._memory.take()

    def copy(self, items: list[Delivery]) -> None:
        """Keeps a copy of each answer on ``B/response/<name>`` among ``items`` (what a
        referee's request made), for ``B/referee/response/<name>``."""
        for item in items:
            if item.retain or not item.topic.startswith(self._answers):
                continue
            self._made += 1
            name = item.topic[len(self._answers):]
            self._copies.append((item.id, Delivery(
                self._made, f"{lane_base(self.base)}/response/{name}", item.payload, False,
                item.qos, item.expiry, item.correlation)))

    def release(self, upto: int) -> None:
        """The table's messages up to id ``upto`` may go: so may the copies of those."""
        copies = self._copies
        if copies and copies[0][0] <= upto:
            while copies and copies[0][0] <= upto:
                self._outbox.add(copies.popleft()[1])
            self._outbox.release()

    async def run(self, retry_s: float) -> None:
        """Runs the lane's link until cancelled. A broker that refuses its user (not yet in
        the password file) or its certificate does not stop the table: logged, tried again
        every ``retry_s``."""
        while True:
            try:
                await self.link.run()
            except (BrokerRefused, UntrustedBroker) as exc:
                _unless_cancelled()
                log.error("the referee lane (%s) cannot connect: %s; the referees' requests on"
                          " %s/request/+ wait for it (deploy/README.md: the table's second "
                          "user); trying again in %.0f s", self.link.client_id, exc,
                          self.link.base, retry_s)
                await asyncio.sleep(retry_s)
            _unless_cancelled()


def _unless_cancelled() -> None:
    """Ends the lane's task if it was asked to end: a cancellation that landed while aiomqtt
    connected can be swallowed there (Python 3.11's ``asyncio.wait_for``, as
    ``controller.wire.connection.cancel_and_wait`` says), and the lane would try again for
    ``retry_s`` more, holding up the service's stop (a refused table user: 30 s, not at once)."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError
