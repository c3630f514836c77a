"""Connecting to the broker: what the service (``controller.service.mqtt``) and the display adapters
(``controller.adapters.runner``) share, in one place.

- ``parse_broker(url, username, password)``: where and as whom to connect, from an
  ``mqtt://[user:pass@]host[:port]`` or ``mqtts://…`` URL (credentials percent-encoded; those
  in the URL win over the separate ones).
- ``read_password(path)``: a password kept in a file, or in the systemd credential
  ``mqtt-password`` (``LoadCredential=``): never on a command line.
- ``redact(url)``: the URL with its password hidden. No log line and no error message of
  ours shows a password; ``Broker.address`` has no credentials at all.
- ``tls_context(...)``: the TLS set-up of an ``mqtts://`` broker.
- ``Backoff``: the jittered, doubling delays between reconnections (aiomqtt does not
  reconnect by itself: the caller's loop does).
- ``left_behind(client)``: the messages aiomqtt 2.5 leaves in its queue when the connection
  drops. It reads aiomqtt's private ``_queue``, here and nowhere else; ``AIOMQTT_CHECKED``
  says which aiomqtt it was checked against, and a test fails when aiomqtt changes.
- ``Pubacks(client)``: the reason codes of the broker's PUBACKs, which aiomqtt 2.5 drops
  (a publish the broker refuses, e.g. 0x87 "Not authorized", looks delivered). It wraps
  paho's ``on_publish`` through aiomqtt's private ``_client``, here and nowhere else.
- ``AckingClient``: aiomqtt's client acknowledging a QoS 1 message when the service has
  taken it (paho's manual acknowledgement, through ``_client``), and holding a bounded number
  of QoS 0 messages (its ``_on_message`` wrapped, ``_queue`` read; ``batch``: the venue
  recorder's read of several at once, made of ``next_message``: the next message, waiting
  at most a timeout, never dropping one as ``messages`` under a timeout does; its
  ``_disconnected`` read too); ``abandon(client)`` ends
  a connection without a DISCONNECT, so the broker publishes the Last Will (paho's socket,
  through ``_client``). aiomqtt 2.5 has none of these; here and nowhere else.
- ``publish(client, …)``: aiomqtt's publish, not losing a cancellation on Python 3.11.

The workarounds, each checked against aiomqtt 2.5.1 and paho-mqtt 2.2 on Python 3.11 (the
test of this module fails when aiomqtt's major.minor moves off ``AIOMQTT_CHECKED``), and when
each can go:

- manual acknowledgement (``AckingClient``): empicano/aiomqtt#345 (open; its PR #346 adds
  it); paho has had it since eclipse-paho/paho.mqtt.python#753. Delete it for aiomqtt's own
  once #346 is released.
- the queue left behind (``left_behind``) and the bounded QoS 0 queue: no upstream issue
  found; aiomqtt 2.5.1 ends ``messages`` on a disconnect with its queue unread. Revisit
  with #346 (once acknowledged late, a message left unread is sent again by the broker).
- the message a timed-out wait drops (``AckingClient.next_message``): aiomqtt 2.5.1's
  ``MessagesIterator.__anext__`` cancels its queue getter when its wait is cancelled, too
  late if the getter already took the message. No aiomqtt issue found; the same race was
  fixed in nats-io/nats.py#804. Delete it once ``messages`` keeps such a message.
- PUBACK reason codes (``Pubacks``): aiomqtt 2.5.1's ``publish`` returns nothing of the
  PUBACK (paho reports the code to ``on_publish``; a refusal is otherwise silent, as
  eclipse-paho/paho.mqtt.python#474 shows for ``is_published``). No aiomqtt issue found.
- leaving without DISCONNECT (``abandon``): MQTT has no packet for it; aiomqtt 2.5.1 exposes
  no socket. No upstream issue found.
- a cancellation lost with the PUBACK (``publish``): CPython gh-86296 (``asyncio.wait_for``
  on 3.11, fixed in 3.12): delete it when the project requires Python 3.12.

Errors::

    BadBrokerUrl (ControllerError, ValueError)   a broker URL that cannot be used
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import ssl
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import aiomqtt

from controller.errors import ControllerError

log = logging.getLogger(__name__)

#: The aiomqtt release ``left_behind`` was checked against (major.minor).
AIOMQTT_CHECKED = "2.5"
HIDDEN = "***"


class BadBrokerUrl(ControllerError, ValueError):
    """A broker URL that cannot be used; the message shows it without its password."""


@dataclass(frozen=True, slots=True)
class Broker:
    """The broker's address and credentials, resolved (the password is left out of repr)."""

    host: str
    port: int
    tls: bool
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def address(self) -> str:
        """Returns the URL without credentials, for messages."""
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


#: The systemd credential a unit hands its broker password in (``LoadCredential=``).
CREDENTIAL = "mqtt-password"


def read_password(path: Path | str | None = None,
                  env: Mapping[str, str] | None = None, credential: str = CREDENTIAL
                  ) -> str | None:
    """Returns the broker password kept in the file ``path``, else in the systemd credential
    ``credential`` (``mqtt-password``: a file in ``$CREDENTIALS_DIRECTORY``), else None: the
    file's first line without its line end; None for an empty file.

    Raises OSError when ``path`` is given and cannot be read.
    """
    if path is None:
        directory = (os.environ if env is None else env).get("CREDENTIALS_DIRECTORY")
        if not directory or not (Path(directory) / credential).is_file():
            return None
        path = Path(directory) / credential
    with open(path, encoding="utf-8") as f:
        line = f.readline().rstrip("\r\n")
    return line or None


def redact(url: str) -> str:
    """Returns ``url`` with its password (if it has one) replaced by ``***``.

    Works on the text, not on a parse: a password with an unencoded ``#``, ``/`` or ``@`` is
    hidden too (everything between the user name and the last ``@``).
    """
    scheme, sep, rest = url.partition("://") if "://" in url else ("", "", url)
    userinfo, at, host = rest.rpartition("@")
    if not at:
        return url
    user, colon, _ = userinfo.partition(":")
    return f"{scheme}{sep}{user}{colon and ':' + HIDDEN}{at}{host}"


_ENCODE = "percent-encode a user name or password's special characters (# as %23, / as %2F, ? as %3F)"


def parse_broker(url: str, username: str | None = None, password: str | None = None) -> Broker:
    """Returns where and as whom to connect; credentials in ``url`` win over the arguments.

    Raises BadBrokerUrl for a scheme other than mqtt/mqtts, no host, a bad port, or a path,
    query or fragment (most likely a password with an unencoded special character).
    """
    shown = redact(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        raise BadBrokerUrl(f"{shown}: not a URL") from None
    if parts.scheme not in ("mqtt", "mqtts"):
        raise BadBrokerUrl(f"{shown}: must be mqtt://[user:pass@]host[:port] or mqtts://…")
    if parts.path not in ("", "/") or parts.query or parts.fragment or "#" in url:
        raise BadBrokerUrl(f"{shown}: a broker URL has no path, query or '#'; {_ENCODE}")
    if not parts.hostname:
        raise BadBrokerUrl(f"{shown}: names no host")
    try:
        port = parts.port
    except ValueError:  # its message may quote part of the password: not shown
        raise BadBrokerUrl(f"{shown}: bad port (a whole number 1-65535); {_ENCODE}") from None
    tls = parts.scheme == "mqtts"
    return Broker(
        host=parts.hostname,
        port=port or (8883 if tls else 1883),
        tls=tls,
        username=unquote(parts.username) if parts.username else username,
        password=unquote(parts.password) if parts.password else password,
    )


def tls_context(broker: Broker, *, ca_file: Path | str | None = None,
                cert_file: Path | str | None = None, key_file: Path | str | None = None,
                insecure: bool = False) -> ssl.SSLContext | None:
    """Returns the TLS context for ``broker`` (None unless it is ``mqtts://``): verified against
    ``ca_file`` (default: the system's authorities), with a client certificate if given;
    ``insecure`` checks neither the certificate nor the host name.

    Raises OSError / ssl.SSLError for a file that cannot be read.
    """
    if not broker.tls:
        return None
    context = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)
    if cert_file:
        context.load_cert_chain(str(cert_file), str(key_file) if key_file else None)
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


class Backoff:
    """Delays between reconnections: from ``minimum`` doubling up to ``maximum``, each drawn
    from the upper half of its step (jitter: tables that lost the broker together do not all
    come back at the same moment)."""

    def __init__(self, minimum: float, maximum: float,
                 uniform: Callable[[float, float], float] = random.uniform) -> None:
        if not 0 < minimum <= maximum:
            raise ValueError(f"need 0 < minimum <= maximum, not {minimum}, {maximum}")
        self.minimum = minimum
        self.maximum = maximum
        self._uniform = uniform
        self._step = minimum

    def next(self) -> float:
        """Returns how long to wait before the next try, and doubles the step."""
        delay = self._uniform(self._step / 2, self._step)
        self._step = min(self._step * 2, self.maximum)
        return delay

    def reset(self) -> None:
        """Starts again from ``minimum`` (after a connection that worked)."""
        self._step = self.minimum


class Pubacks:
    """The reason codes (MQTT 5) of the PUBACKs ``client`` receives, in order of arrival.

    Installs itself in front of aiomqtt's own ``on_publish`` (which it still calls). A QoS 1
    publish's code is ``take()``-n once ``client.publish`` has returned; MQTT 3.1.1 PUBACKs
    carry none (0, success: a 3.1.1 broker cannot say it refused).
    """

    def __init__(self, client: aiomqtt.Client) -> None:
        self._codes: deque[tuple[int, str]] = deque(maxlen=64)
        paho = paho_of(client)
        original = getattr(paho, "on_publish", None)
        if paho is None or original is None:
            log.error("aiomqtt %s has no paho client to hear PUBACKs from (checked against %s): "
                      "a publish the broker refuses will look delivered", version("aiomqtt"),
                      AIOMQTT_CHECKED)
            return

        def on_publish(c: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
            value = getattr(reason, "value", reason)
            code = value if isinstance(value, int) else 0
            name = reason.getName() if hasattr(reason, "getName") else str(code)
            self._codes.append((code, str(name)))
            original(c, userdata, mid, reason, properties)

        paho.on_publish = on_publish

    def clear(self) -> None:
        """Forgets the codes received so far (before a publish whose code is wanted)."""
        self._codes.clear()

    def take(self) -> tuple[int, str]:
        """Returns the last PUBACK's (reason code, its name); (0, "Success") if none came."""
        return self._codes.pop() if self._codes else (0, "Success")


def left_behind(client: aiomqtt.Client) -> list[aiomqtt.Message]:
    """Returns (and takes) the messages received but not yet read when the connection dropped.

    aiomqtt 2.5 stops iterating ``client.messages`` as soon as the connection drops, leaving
    behind messages paho has already acknowledged (QoS 1: the broker will not send them
    again); there is no public way to read them. When aiomqtt no longer has that queue, logs
    an error and returns nothing (the test of this module fails first).
    """
    queue = getattr(client, "_queue", None)
    if not isinstance(queue, asyncio.Queue):
        log.error("aiomqtt %s has no message queue to drain (checked against %s): messages "
                  "received as the connection dropped may be lost", version("aiomqtt"),
                  AIOMQTT_CHECKED)
        return []
    found: list[aiomqtt.Message] = []
    while not queue.empty():
        found.append(queue.get_nowait())
    return found


class AckingClient(aiomqtt.Client):
    """aiomqtt's client, acknowledging QoS 1 messages when told (``ack``) rather than on
    arrival, and holding at most ``qos0_max`` QoS 0 messages (more are dropped and counted in
    ``qos0_dropped``). aiomqtt 2.5 has neither: paho's manual acknowledgement is switched on,
    and its message callback wrapped."""

    def __init__(self, qos0_max: int, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._client.manual_ack_set(True)
        self.qos0_max = qos0_max
        self.qos0_dropped = 0

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if message.qos == 0 and self._queue.qsize() >= self.qos0_max:
            self.qos0_dropped += 1
            if self.qos0_dropped == 1 or self.qos0_dropped % 1000 == 0:
                log.warning("dropped QoS 0 requests past %d waiting (%d so far)",
                            self.qos0_max, self.qos0_dropped)
            return
        super()._on_message(client, userdata, message)

    async def next_message(self, timeout: float) -> aiomqtt.Message | None:
        """Returns the next message received, or None if none comes within ``timeout``
        seconds; raises MqttError once the connection is lost (as ``messages`` does: a lost
        connection does not end the queue, and a reader waiting on the queue alone never
        learns of it).

        Not aiomqtt 2.5's ``messages`` under a timeout: its wait, cancelled in the turn the
        queue's getter took the message, cancels a getter already done and drops the message
        (a QoS 1 one the broker then sends again only on the next connection, if it was not
        acknowledged: the recorder's batches left a console's request unanswered). The getter
        here is always waited for: a message it took is returned, else it is left in the
        queue. Reads aiomqtt's queue and disconnection future (``AIOMQTT_CHECKED``)."""
        get = asyncio.ensure_future(self._queue.get())
        try:
            await asyncio.wait((get, self._disconnected), timeout=timeout,
                               return_when=asyncio.FIRST_COMPLETED)
        finally:
            get.cancel()  # (nothing if it is done)
        await asyncio.wait((get,))
        if not get.cancelled():
            return get.result()
        if self._disconnected.done():
            raise aiomqtt.MqttError("Disconnected during message iteration") \
                from self._disconnected.exception()
        return None

    async def batch(self, limit: int, timeout: float) -> list[aiomqtt.Message]:
        """Returns the messages received, at most ``limit``, waiting up to ``timeout`` seconds
        for the first (none then; ``next_message``). Raises MqttError once the connection is
        lost. aiomqtt 2.5's ``messages`` yields one at a time: a batch is read from its queue,
        here and nowhere else."""
        first = await self.next_message(timeout)
        if first is None:
            return []
        found = [first]
        while len(found) < limit and not self._queue.empty():
            found.append(self._queue.get_nowait())
        return found

    def ack(self, message: aiomqtt.Message) -> None:
        """Acknowledges a QoS 1 message (nothing for QoS 0)."""
        if message.qos > 0:
            self._client.ack(message.mid, message.qos)


async def publish(client: aiomqtt.Client, topic: str, payload: bytes | str, **kw: Any) -> None:
    """``client.publish(topic, payload, **kw)``, keeping a cancellation that comes with the
    broker's PUBACK. aiomqtt 2.5 waits for the PUBACK with ``asyncio.wait_for``, which on
    Python 3.11 returns the result and drops the cancellation when both come in the same
    turn of the loop (CPython gh-86296, fixed in 3.12): the cancelled task would go on as if
    never cancelled and wait for ever at its next ``await``. Raises CancelledError then. (The
    canceller's side of the same fault: ``cancel_and_wait``.)"""
    await client.publish(topic, payload, **kw)
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def paho_of(client: aiomqtt.Client) -> Any:
    """Returns the paho client under ``client`` (aiomqtt 2.5's private ``_client``; None if
    that aiomqtt has none): the one seam the workarounds above take to paho, from outside
    the client (``AckingClient`` reaches it as its own)."""
    return getattr(client, "_client", None)


def abandon(client: aiomqtt.Client) -> None:
    """Ends the connection without a DISCONNECT packet: the broker then publishes the Will
    (MQTT 3.1.1 and 5 alike). aiomqtt 2.5 has no public way: paho's socket is shut down."""
    paho = paho_of(client)
    sock = None if paho is None else paho.socket()
    if isinstance(sock, socket.socket):  # also an SSLSocket; not a websocket wrapper
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        log.error("left the broker without disconnecting: it publishes the Last Will")


async def cancel_and_wait(task: asyncio.Task[Any]) -> None:
    """Cancels ``task`` and waits for it to end. On Python 3.11, ``asyncio.wait_for`` (inside
    aiomqtt) can swallow a cancellation that lands as its future completes, leaving the task
    running: so it is cancelled again until it ends. (The publishing task's side of the same
    fault: ``publish``.)"""
    while not task.done():
        task.cancel()
        await asyncio.wait([task], timeout=0.5)
