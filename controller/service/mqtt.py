"""The service's link to the broker: aiomqtt 2 with reconnect, and the outbox it drains.

``MqttLink.run()`` connects, subscribes to ``B/request/+``, tells the service it is
connected (the service then republishes status, state, display and health), hands each
request to the service and publishes the ``Outbox`` in order, one message at a time, each
acknowledged (QoS 1) before the next and before it leaves the outbox. When the connection
drops it connects again after a jittered, growing delay; aiomqtt does not reconnect by
itself. MQTT 5 where the broker speaks it (message expiry, response topic and correlation
data), MQTT 3.1.1 otherwise; TLS for ``mqtts://``. The socket sends at once (TCP_NODELAY): a
PUBACK or a small reply never waits for Nagle's algorithm and the peer's delayed ACK.

Floods are bounded where they come in: a QoS 1 request is acknowledged only once the service
has taken it (``on_request`` returns; it waits while the service is busy), and the broker
sends at most ``RECEIVE_MAX`` unacknowledged ones, so a flood waits at the broker, not in our
memory, and a request taken by nobody (the service stopped or crashed) is sent again on the
next connection. QoS 0 requests past ``QOS0_QUEUED_MAX`` waiting are dropped and counted. An
MQTT 5 client (known by its response topic) may send ``CLIENT_RATE`` requests a second
(``CLIENT_BURST`` at once); past that the first is refused with an error, the rest of the
second dropped and counted (``rate_limited``).

Nothing a request carries reaches a topic unchecked: a request whose name cannot be part of
its reply topic is ignored with a log line; an MQTT 5 response topic that is not a topic one
may publish to (a wildcard, empty, over 65,535 bytes) is not used, and the request is
refused with an error naming it (``Incoming.problem``). A message the client library will
not publish is given up with a log line rather than ending the link. If the link ends other
than by ``close()`` (the service crashed), it drops the connection without a DISCONNECT, so
the broker publishes the Last Will (``offline``).

Errors::

    MqttLinkError                        root of this module's errors
    ├── BrokerRefused (ConnectionError)   the broker refused our credentials at the first try
    └── UntrustedBroker (ConnectionError) its TLS certificate did not verify, at the first try
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.errors import ControllerError
from controller.pipeline.requests import MAX_PAYLOAD, name_error
from controller.service.config import MqttConfig
from controller.service.connection import (
    AckingClient,
    Backoff,
    Broker,
    Pubacks,
    abandon,
    left_behind,
    publish,
    tls_context,
)
from controller.service.journal import Journal, Outgoing

log = logging.getLogger(__name__)

#: CONNACK codes that mean "not with these credentials" (3.1.1: 4, 5; MQTT 5: 134, 135).
_REFUSED = {4, 5, 134, 135}
#: CONNACK codes that mean "not this protocol version" (3.1.1: 1; MQTT 5: 132).
_OLD_BROKER = {1, 132}
#: The longest topic MQTT can carry (a two-byte length, in UTF-8 bytes).
MAX_TOPIC_BYTES = 65535
#: The longest response topic a request may name (a client's reply topic is short; a long one
#: only costs the broker and the outbox).
MAX_REPLY_TOPIC_BYTES = 1024
#: QoS 1 requests the broker may send before we acknowledge one (MQTT 5 Receive Maximum;
#: for MQTT 3.1.1 Mosquitto's ``max_inflight_messages``, 20 by default, does the same).
RECEIVE_MAX = 32
#: Responses waiting in the outbox, at most (past it the oldest is dropped, counted): a
#: flood's replies stay small beside the match's messages.
REPLIES_WAITING = 1000
#: A reply in flight this many times as the connection ended is given up (``Outbox.unsend``).
REPLY_TRIES = 2
#: The largest packet the table takes (MQTT 5 Maximum Packet Size, in its CONNECT): four times
#: a request's largest payload, so that a request a little too large is still answered with
#: its reason. The broker drops a larger message for the table (it never reaches the table's
#: memory); its sender gets no answer.
MAX_PACKET = 4 * MAX_PAYLOAD
#: QoS 0 requests (neither acknowledged nor flow-controlled) waiting in the client, at most.
QOS0_QUEUED_MAX = 256
#: Requests a second one MQTT 5 client (known by its response topic) may send, and in a burst.
CLIENT_RATE = 20.0
CLIENT_BURST = 40.0
#: Clients whose rate is followed (the least recently seen are forgotten).
CLIENTS_FOLLOWED = 1024
#: Send each packet at once: see the module docstring.
_SOCKET_OPTIONS = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


class MqttLinkError(ControllerError):
    """Root of the MQTT link's errors."""


class BrokerRefused(MqttLinkError, ConnectionError):
    """The broker refused the service's credentials."""


class UntrustedBroker(MqttLinkError, ConnectionError):
    """The broker's TLS certificate does not verify against the configured authorities."""


@dataclass(frozen=True, slots=True)
class Incoming:
    """A request received: its name, raw payload and (MQTT 5) where to answer it; ``problem``
    says why it must be refused whatever it holds (then ``response_topic`` is None)."""

    name: str
    payload: bytes
    response_topic: str | None = None
    correlation: bytes | None = None
    problem: str | None = None
    #: MQTT 5 message expiry: the ``time.monotonic()`` past which it is no longer wanted
    #: (the interval the broker forwards, from when it was received).
    expires: float | None = None


def reply_topic_error(topic: str, base: str) -> str | None:
    """Returns why an MQTT 5 response topic may not carry a reply of the table whose base topic
    is ``base``, or None if it may: a topic one may publish to, not the broker's own (``$SYS``,
    ``$share``), at most ``MAX_REPLY_TOPIC_BYTES``, and none of the table's own topics
    (``B/status``, ``B/state``, ``B/event``, ...) except those under ``B/response/``. (Whether
    the broker lets the table write it is known only from its PUBACK: a refused reply is
    dropped, ``MqttLink._writer``.)"""
    why = topic_error(topic)
    if why is not None:
        return why
    if topic.startswith("$"):
        return "is one of the broker's own topics ($...)"
    if len(topic.encode("utf-8")) > MAX_REPLY_TOPIC_BYTES:
        return f"is over {MAX_REPLY_TOPIC_BYTES} bytes long"
    if (topic == base or topic.startswith(f"{base}/")) and not topic.startswith(f"{base}/response/"):
        return f"is one of the table's own topics (only {base}/response/... may take replies)"
    return None


def topic_error(topic: str) -> str | None:
    """Returns why ``topic`` cannot be published to, or None if it can."""
    if not topic:
        return "is empty"
    if "+" in topic or "#" in topic:
        return "holds a wildcard (+ or #)"
    if "\0" in topic:
        return "holds a NUL character"
    try:
        size = len(topic.encode("utf-8"))
    except UnicodeEncodeError:
        return "is not valid Unicode"
    if size > MAX_TOPIC_BYTES:
        return f"is {size} bytes long (at most {MAX_TOPIC_BYTES})"
    return None


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
        self._items: deque[Outgoing] = deque()
        self._held: deque[Outgoing] = deque()  # added, not yet released (a suffix of _items)
        self._replies: deque[Outgoing] = deque()  # responses waiting, oldest first (may be dead)
        self._dead: set[int] = set()
        self._retained: dict[str, Outgoing] = {}
        self._released = 0
        self._sending: int | None = None
        self._tries: dict[int, int] = {}  # reply id -> times in flight as the connection ended
        self._ready = asyncio.Event()
        self._empty = asyncio.Event()
        self._empty.set()
        self.dropped = 0
        self.delivered = 0
        self.refused = 0

    def restore(self, items: list[Outgoing]) -> None:
        """Takes the messages a previous run left undelivered (already journaled)."""
        for item in items:
            self._items.append(item)
            self._held.append(item)
            if item.retain:
                self._retained[item.topic] = item
            elif _is_reply(item):
                self._replies.append(item)
        self.release()

    def add(self, item: Outgoing) -> None:
        if item.retain:
            older = self._retained.get(item.topic)
            if older is not None and older.id != self._sending:
                self._kill(older)
            self._retained[item.topic] = item
        self._items.append(item)
        self._held.append(item)
        self._empty.clear()
        if _is_reply(item):
            self._replies.append(item)
            while len(self._replies) > REPLIES_WAITING:  # a flood's replies: the oldest go
                oldest = self._replies.popleft()
                if oldest.id not in self._dead and oldest.id != self._sending:
                    self._drop(oldest)
        while len(self._items) - len(self._dead) > self._limit:
            self._drop(self._victim(item))

    def _drop(self, item: Outgoing) -> None:
        """Drops a waiting message to make room, counted and logged."""
        self._kill(item)
        self.dropped += 1
        if self.dropped == 1 or self.dropped % 1000 == 0:
            log.warning("outbox full (%d messages, %d replies): dropped %s seq %s (%d dropped so"
                        " far)", self._limit, REPLIES_WAITING, item.topic, _seq(item), self.dropped)

    def _victim(self, new: Outgoing) -> Outgoing:
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

    def _kill(self, item: Outgoing) -> None:
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

        def early(item: Outgoing) -> bool:
            return item.id <= upto and (item.early or item.id in self._dead)

        if held and early(held[0]):
            while held and early(held[0]):
                self._released = held.popleft().id
            self._ready.set()

    def __len__(self) -> int:
        return len(self._items) - len(self._dead)

    def newest(self, topic: str) -> Outgoing | None:
        """Returns the waiting retained message of ``topic`` if it may be sent, else None."""
        item = self._retained.get(topic)
        return item if item is not None and item.id <= self._released else None

    async def next(self) -> Outgoing:
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

    def done(self, item: Outgoing) -> None:
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

    def give_up(self, item: Outgoing, reason: str) -> None:
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
        if head is None or head.id != sending or not _is_reply(head):
            return
        self._tries[head.id] = tries = self._tries.get(head.id, 0) + 1
        if tries >= REPLY_TRIES:
            del self._tries[head.id]
            self.give_up(head, f"the connection ended {tries} times as it was sent")

    async def drained(self) -> None:
        """Returns when every message added so far has been delivered."""
        await self._empty.wait()


def _is_reply(item: Outgoing) -> bool:
    """Returns whether ``item`` is a response or an MQTT 5 reply (said to one sender), not an
    event nor a retained message (status, state, display, health)."""
    return not item.retain and not item.topic.endswith("/event")


def _seq(item: Outgoing) -> object:
    try:
        return json.loads(item.payload).get("seq")
    except (ValueError, AttributeError):
        return None


def _first(group: BaseExceptionGroup[aiomqtt.MqttError]) -> aiomqtt.MqttError:
    exc: BaseException = group
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    assert isinstance(exc, aiomqtt.MqttError)
    return exc


def _rc(exc: aiomqtt.MqttError) -> int | None:
    rc = getattr(exc, "rc", None)
    if isinstance(rc, ReasonCode):
        return int(rc.value)
    return rc if isinstance(rc, int) else None


@dataclass(frozen=True, slots=True)
class Refusal:
    """The broker refuses to take a message (a PUBACK reason code of 0x80 or more): the
    message and all behind it wait in the outbox, sent again with backoff, until it takes it."""

    topic: str
    code: int
    reason: str
    since: float  # time.time() of the first refusal
    tries: int

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "code": self.code, "reason": self.reason,
                "since": round(self.since, 3), "tries": self.tries}


class MqttLink:
    """The connection to the broker (see the module docstring).

    ``on_connected`` is called after each (re)connection and subscription; ``on_request``
    with each request received (retained requests are ignored); ``on_refused`` with the
    ``Refusal`` when the broker starts refusing a message (or refuses another), and with None
    when it takes it. ``will`` is the Last Will
    payload for ``B/status``.
    """

    def __init__(self, broker: Broker, settings: MqttConfig, base: str, outbox: Outbox, *,
                 client_id: str, will: bytes, on_connected: Callable[[], None],
                 on_request: Callable[[Incoming], Awaitable[None]],
                 on_refused: Callable[[Refusal | None], None] | None = None) -> None:
        self.broker = broker
        self.settings = settings
        self.base = base
        self.outbox = outbox
        self.client_id = client_id
        self.will = will
        self.on_connected = on_connected
        #: what the broker refuses to take now (None: it takes everything); health shows it
        self.refused: Refusal | None = None
        self.on_refused = on_refused
        self.on_request = on_request
        self.connected = False
        self.connections = 0
        self.v5 = settings.protocol != "3.1.1"
        self._client: aiomqtt.Client | None = None
        self._closing = False
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self.rate_limited = 0

    def _client_for(self) -> AckingClient:
        will = aiomqtt.Will(f"{self.base}/status", self.will, qos=1, retain=True)
        tls = self.settings.tls
        common = {
            "username": self.broker.username, "password": self.broker.password,
            "identifier": self.client_id, "will": will, "keepalive": self.settings.keepalive,
            "tls_context": tls_context(self.broker, ca_file=tls.ca_file, cert_file=tls.cert_file,
                                       key_file=tls.key_file, insecure=tls.insecure),
            "timeout": 10.0, "socket_options": _SOCKET_OPTIONS,
        }
        if self.v5:
            props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
            props.SessionExpiryInterval = 3600  # requests sent while we restart wait for us
            props.ReceiveMaximum = RECEIVE_MAX
            props.MaximumPacketSize = MAX_PACKET
            return AckingClient(QOS0_QUEUED_MAX, self.broker.host, self.broker.port,
                                protocol=aiomqtt.ProtocolVersion.V5, clean_start=False,
                                properties=props, **common)
        return AckingClient(QOS0_QUEUED_MAX, self.broker.host, self.broker.port,
                            protocol=aiomqtt.ProtocolVersion.V311, clean_session=False, **common)

    async def run(self) -> None:
        """Stays connected until cancelled. Raises BrokerRefused if the first try is refused."""
        backoff = Backoff(self.settings.reconnect_min_s, self.settings.reconnect_max_s)
        exit_on_memory_error(asyncio.get_running_loop())
        first = True
        while True:
            error = aiomqtt.MqttError("the connection ended")
            try:
                async with self._client_for() as client:
                    self._client = client
                    if self.v5:  # see a request's retain flag as published, to ignore it
                        await client.subscribe(f"{self.base}/request/+", options=SubscribeOptions(
                            qos=1, retainAsPublished=True))
                    else:
                        await client.subscribe(f"{self.base}/request/+", qos=1)
                    self.connected = True
                    self.connections += 1
                    first = False
                    backoff.reset()
                    log.info("connected to %s (MQTT %s)", self.broker.address, "5" if self.v5 else "3.1.1")
                    self.on_connected()
                    try:
                        async with asyncio.TaskGroup() as tg:
                            tg.create_task(self._reader(client), name="mqtt-requests")
                            tg.create_task(self._writer(client), name="mqtt-publisher")
                    except asyncio.CancelledError:
                        if not self._closing:  # the service is going down: leave the Will
                            abandon(client)
                        raise
            except aiomqtt.MqttError as exc:
                error = exc
            except ExceptionGroup as group:
                found, rest = group.split(aiomqtt.MqttError)
                if rest is not None or found is None:
                    raise
                error = _first(found)
            finally:
                was_connected = self.connected
                self.connected = False
                self._client = None
                self.outbox.unsend()
            rc = _rc(error)
            if rc in _OLD_BROKER and self.v5 and self.settings.protocol == "auto":
                log.info("%s does not speak MQTT 5; using 3.1.1", self.broker.address)
                self.v5 = False
                continue
            delay = backoff.next()
            if rc in _REFUSED:
                who = f"user {self.broker.username!r}" if self.broker.username else "anonymous clients"
                text = f"the broker at {self.broker.address} refused {who}: {error}"
                if first:
                    raise BrokerRefused(text) from error
                log.error("%s; trying again in %.1f s", text, delay)
            elif "CERTIFICATE_VERIFY_FAILED" in str(error) or "certificate verify failed" in str(error):
                text = f"the broker at {self.broker.address} has a certificate we do not trust: {error}"
                if first:
                    raise UntrustedBroker(text) from error
                log.error("%s; trying again in %.1f s", text, delay)
            elif was_connected:
                log.warning("lost the broker at %s: %s", self.broker.address, error)
            else:
                log.warning("cannot reach the broker at %s: %s; trying again in %.1f s",
                            self.broker.address, error, delay)
            await asyncio.sleep(delay)

    def close(self) -> None:
        """Says that the link is being ended on purpose: it then disconnects cleanly (the
        service publishes ``stopped`` itself), where otherwise the broker publishes the Will."""
        self._closing = True

    async def _reader(self, client: AckingClient) -> None:
        try:
            async for message in client.messages:
                await self._request(message)
                client.ack(message)  # taken: the broker may send the next one
        except aiomqtt.MqttError:
            # what was left in the client's queue: a QoS 1 request not acknowledged is sent
            # again on the next connection; a QoS 0 one never is, so it is taken now
            for message in left_behind(client):
                if message.qos == 0:
                    await self._request(message)
            raise

    async def _request(self, message: aiomqtt.Message) -> None:
        prefix = f"{self.base}/request/"
        topic = str(message.topic)
        if not topic.startswith(prefix):
            return
        if message.retain:
            log.warning("ignored a retained request on %.200s (requests are never retained)", topic)
            return
        name = topic[len(prefix):]
        bad_name = name_error(name)
        if bad_name is not None:
            log.warning("ignored a request on %.200s...: %s", topic, bad_name)
            return
        payload = message.payload
        if not isinstance(payload, bytes | bytearray):
            payload = str(payload).encode() if payload is not None else b""
        props = message.properties
        received = time.monotonic()
        interval = getattr(props, "MessageExpiryInterval", None) if props is not None else None
        expires = received + interval if isinstance(interval, int) else None
        response_topic = getattr(props, "ResponseTopic", None) if props is not None else None
        correlation = getattr(props, "CorrelationData", None) if props is not None else None
        problem = None
        if response_topic is not None:
            why = reply_topic_error(str(response_topic), self.base)
            if why is not None:
                problem = f"the response topic {why}; nothing was done"
                log.warning("refused a request on %s: its response topic %s", topic, why)
                response_topic, correlation = None, None
            elif not self._allowed(str(response_topic)):
                return
            elif self._buckets[str(response_topic)].refused == 1:
                problem = (f"too many requests from this client (over {CLIENT_RATE:.0f} a second);"
                           " nothing was done")
        await self.on_request(Incoming(name, bytes(payload), response_topic or None,
                                       bytes(correlation) if correlation else None, problem,
                                       expires))

    def _allowed(self, client: str) -> bool:
        """Takes a token from ``client``'s bucket. Returns False when the request is to be
        dropped (past the first refused in a row, which is answered)."""
        now = time.monotonic()
        bucket = self._buckets.pop(client, None) or _Bucket(CLIENT_BURST, now)
        self._buckets[client] = bucket
        if len(self._buckets) > CLIENTS_FOLLOWED:
            self._buckets.popitem(last=False)
        bucket.tokens = min(CLIENT_BURST, bucket.tokens + (now - bucket.at) * CLIENT_RATE)
        bucket.at = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.refused = 0
            return True
        bucket.refused += 1
        if bucket.refused > 1:
            self.rate_limited += 1
            if self.rate_limited == 1 or self.rate_limited % 1000 == 0:
                log.warning("dropped requests from %.80s past its rate (%d dropped so far)",
                            client, self.rate_limited)
        return bucket.refused == 1

    async def _writer(self, client: aiomqtt.Client) -> None:
        pubacks = Pubacks(client)
        backoff = Backoff(self.settings.reconnect_min_s, self.settings.reconnect_max_s)
        told = 0  # the health snapshot last sent out of turn
        while True:
            item = await self.outbox.next()
            props = None
            if self.v5 and (item.expiry or item.correlation):
                props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
                if item.expiry:
                    props.MessageExpiryInterval = item.expiry
                if item.correlation:
                    props.CorrelationData = item.correlation
            pubacks.clear()
            try:
                await publish(client, item.topic, item.payload, qos=item.qos,
                              retain=item.retain, properties=props)
            except (ValueError, TypeError) as exc:  # paho checks topics and sizes before sending
                self.outbox.give_up(item, str(exc))
                continue
            code, reason = pubacks.take() if item.qos > 0 else (0, "Success")
            if code >= 0x80 and _is_reply(item):  # a reply to one sender never holds up rulings
                self.outbox.give_up(item, f"the broker refused it: {reason} (0x{code:02X})")
                continue
            if code >= 0x80:  # refused (not authorized, quota, ...): kept, sent again later
                self.outbox.unsend()
                delay = self._refusal(item.topic, code, reason, backoff.next())
                # the newest health (which says so) goes out of turn: a copy, a snapshot that
                # a later one supersedes; it is sent again in its turn
                health = self.outbox.newest(f"{self.base}/health")
                if health is not None and health is not item and health.id != told:
                    told = health.id
                    await publish(client, health.topic, health.payload, qos=1, retain=True)
                await asyncio.sleep(delay)
                continue
            if self.refused is not None:
                log.warning("the broker takes %s again after %d refusals (%s)", item.topic,
                            self.refused.tries, self.refused.reason)
                self.refused = None
                backoff.reset()
                if self.on_refused is not None:
                    self.on_refused(None)
            self.outbox.done(item)

    def _refusal(self, topic: str, code: int, reason: str, delay: float) -> float:
        """Notes and logs a refused publish; returns ``delay``."""
        old = self.refused
        same = old is not None and (old.topic, old.code) == (topic, code)
        self.refused = Refusal(topic, code, reason, old.since if same and old else time.time(),
                               old.tries + 1 if same and old else 1)
        if not same and self.on_refused is not None:
            self.on_refused(self.refused)
        log.error("the broker at %s refused %s: %s (0x%02X), as user %r; it stays in the outbox "
                  "with %d message(s) behind it, sent again in %.1f s (check the broker's ACL)",
                  self.broker.address, topic, reason, code, self.broker.username,
                  len(self.outbox) - 1, delay)
        return delay


@dataclass(slots=True)
class _Bucket:
    """One client's token bucket (``CLIENT_RATE``)."""

    tokens: float
    at: float
    refused: int = 0  # requests refused in a row


def exit_on_memory_error(loop: asyncio.AbstractEventLoop,
                         exit: Callable[[int], object] = os._exit) -> None:
    """Makes a ``MemoryError`` that reaches ``loop``'s exception handler end the process at once
    (status 1, so that systemd restarts the service), where asyncio would log it and go on: an
    exception in a callback, such as paho reading a packet through aiomqtt, is only logged, and
    a table out of memory would stay up answering nothing. Other exceptions go to the handler
    there was before."""
    before = loop.get_exception_handler()
    if getattr(before, "exits_on_memory_error", False):
        return

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if isinstance(context.get("exception"), MemoryError):
            log.critical("out of memory (%s): exiting so that the service is restarted",
                         context.get("message"))
            logging.shutdown()
            exit(1)
            return
        if before is not None:
            before(loop, context)
        else:
            loop.default_exception_handler(context)

    handler.exits_on_memory_error = True  # type: ignore[attr-defined]
    loop.set_exception_handler(handler)


async def cancel_and_wait(task: asyncio.Task[Any]) -> None:
    """Cancels ``task`` and waits for it to end. On Python 3.11, ``asyncio.wait_for`` (inside
    aiomqtt) can swallow a cancellation that lands as its future completes, leaving the task
    running: so it is cancelled again until it ends. (The publishing task's side of the same
    fault: ``controller.service.connection.publish``.)"""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=0.5)
