"""The service's link to the broker: aiomqtt 2 with reconnect, draining the outbox.

``MqttLink.run()`` connects, subscribes to ``B/request/+``, tells the service it is
connected (the service then republishes status, state, display and health), hands each
request to the service through the ``RequestIntake`` (``controller.service.intake``: what a
request must pass) and publishes the ``Outbox`` (``controller.service.outbox``) in order, one
message at a time, each acknowledged (QoS 1) before the next and before it leaves the outbox.
When the connection drops it connects again after a jittered, growing delay; aiomqtt does not
reconnect by itself. MQTT 5 where the broker speaks it (message expiry, response topic and
correlation data), MQTT 3.1.1 otherwise; TLS for ``mqtts://``. The socket sends at once
(TCP_NODELAY): a PUBACK or a small reply never waits for Nagle's algorithm and the peer's
delayed ACK.

Floods are bounded where they come in: a QoS 1 request is acknowledged only once the service
has taken it (``on_request`` returns; it waits while the service is busy), and the broker
sends at most ``RECEIVE_MAX`` unacknowledged ones, so a flood waits at the broker, not in our
memory, and a request taken by nobody (the service stopped or crashed) is sent again on the
next connection. QoS 0 requests past ``QOS0_QUEUED_MAX`` waiting are dropped and counted. An
MQTT 5 client past its rate is refused, then dropped (``controller.service.intake``).

A message the client library will not publish is given up with a log line rather than ending
the link. If the link ends other than by ``close()`` (the service crashed), it drops the
connection without a DISCONNECT, so the broker publishes the Last Will (``offline``).

Errors::

    MqttLinkError                        root of this module's errors
    ├── BrokerRefused (ConnectionError)   the broker refused our credentials at the first try
    └── UntrustedBroker (ConnectionError) its TLS certificate did not verify, at the first try
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from controller.errors import ControllerError
from controller.pipeline.requests import MAX_PAYLOAD
from controller.service.config import MqttConfig
from controller.service.intake import Incoming, RequestIntake
from controller.service.outbox import Outbox, is_reply
from controller.wire.connection import (
    AckingClient,
    Backoff,
    Broker,
    Pubacks,
    abandon,
    left_behind,
    publish,
    tls_context,
)

log = logging.getLogger(__name__)

#: CONNACK codes that mean "not with these credentials" (3.1.1: 4, 5; MQTT 5: 134, 135).
_REFUSED = {4, 5, 134, 135}
#: CONNACK codes that mean "not this protocol version" (3.1.1: 1; MQTT 5: 132).
_OLD_BROKER = {1, 132}
#: QoS 1 requests the broker may send before we acknowledge one (MQTT 5 Receive Maximum;
#: for MQTT 3.1.1 Mosquitto's ``max_inflight_messages``, 20 by default, does the same).
RECEIVE_MAX = 32
#: The largest packet the table takes (MQTT 5 Maximum Packet Size, in its CONNECT): four times
#: a request's largest payload, so that a request a little too large is still answered with
#: its reason. The broker drops a larger message for the table (it never reaches the table's
#: memory); its sender gets no answer.
MAX_PACKET = 4 * MAX_PAYLOAD
#: QoS 0 requests (neither acknowledged nor flow-controlled) waiting in the client, at most.
QOS0_QUEUED_MAX = 256
#: Send each packet at once: see the module docstring.
_SOCKET_OPTIONS = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


class MqttLinkError(ControllerError):
    """Root of the MQTT link's errors."""


class BrokerRefused(MqttLinkError, ConnectionError):
    """The broker refused the service's credentials."""


class UntrustedBroker(MqttLinkError, ConnectionError):
    """The broker's TLS certificate does not verify against the configured authorities."""


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
        #: The requests received, checked before the service sees them.
        self.intake = RequestIntake(base, on_request)
        self.connected = False
        self.connections = 0
        self.v5 = settings.protocol != "3.1.1"
        self._client: aiomqtt.Client | None = None
        self._closing = False

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
                await self.intake.take(message)
                client.ack(message)  # taken: the broker may send the next one
        except aiomqtt.MqttError:
            # what was left in the client's queue: a QoS 1 request not acknowledged is sent
            # again on the next connection; a QoS 0 one never is, so it is taken now
            for message in left_behind(client):
                if message.qos == 0:
                    await self.intake.take(message)
            raise

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
            if code >= 0x80 and is_reply(item):  # a reply to one sender never holds up rulings
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
