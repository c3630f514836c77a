"""The table's requests as they come in from the broker, checked before the service sees them.

Nothing a request carries reaches a topic unchecked: a retained request is ignored; a request
whose name cannot be part of its reply topic is ignored with a log line; an MQTT 5 response
topic that is not a topic one may publish to (a wildcard, empty, over
``MAX_REPLY_TOPIC_BYTES``, one of the broker's or the table's own) is not used, and the request
is refused with an error naming it (``Incoming.problem``). An MQTT 5 client (known by its
response topic) may send ``CLIENT_RATE`` requests a second (``CLIENT_BURST`` at once); past
that the first is refused with an error, the rest of the second dropped and counted
(``rate_limited``). ``MqttLink`` hands each message received to ``RequestIntake.take``.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiomqtt

from controller.pipeline.requests import name_error

log = logging.getLogger(__name__)

#: The longest topic MQTT can carry (a two-byte length, in UTF-8 bytes).
MAX_TOPIC_BYTES = 65535
#: The longest response topic a request may name (a client's reply topic is short; a long one
#: only costs the broker and the outbox).
MAX_REPLY_TOPIC_BYTES = 1024
#: Requests a second one MQTT 5 client (known by its response topic) may send, and in a burst.
CLIENT_RATE = 20.0
CLIENT_BURST = 40.0
#: Clients whose rate is followed (the least recently seen are forgotten).
CLIENTS_FOLLOWED = 1024


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
    dropped, ``MqttLink``.)"""
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


class RequestIntake:
    """Checks the requests received on ``base``'s request topics and hands each one that
    passes to ``on_request`` (see the module docstring)."""

    def __init__(self, base: str, on_request: Callable[[Incoming], Awaitable[None]]) -> None:
        self.base = base
        self.on_request = on_request
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        #: Requests dropped past their client's rate.
        self.rate_limited = 0

    async def take(self, message: aiomqtt.Message) -> None:
        """Checks one message received on the request topics and hands it to ``on_request``
        (as an ``Incoming``), or ignores it with a log line (see the module docstring)."""
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


@dataclass(slots=True)
class _Bucket:
    """One client's token bucket (``CLIENT_RATE``)."""

    tokens: float
    at: float
    refused: int = 0  # requests refused in a row
