"""The host's link to one sensor board over USB serial (asyncio, pyserial-asyncio-fast).

``BoardLink`` is the asyncio transport around a ``BoardSession``
(``firmware_bridge.session``: the protocol's state, sans I/O; what follows is what the two
keep together). It is an async context manager owning one background task that keeps the
board connected: it opens the port exclusively (use the stable ``/dev/serial/by-id/…`` path),
says ``Hello``, learns the board's identity and channel map, synchronises clocks with a burst
of time-sync exchanges, and then delivers every edge as a ``SensorEvent`` on the host's
monotonic timeline through the ``emit`` callback. An unplugged cable (a read error, or
silence longer than ``silence_timeout``) emits ``LinkChanged(up=False)``, timed at the last
frame received (the board's data is complete up to there); the link retries the port until
the board is back and emits ``LinkChanged(up=True)``, followed at once by the edges the board
kept meanwhile, each with its own time. Both carry the board's boot id; one back with another
boot id than it went down with (powered by its cable, a watchdog or crash reset) is
``REBOOTED``: what it had not sent before is lost, and the core treats that as a data gap
(``Presence`` says these comings and goings).
Boot ids are kept per board (its uid), not per port: links given the same ``boots`` (a
``SerialBackend``'s) know a board that moved to another port (two boards swapped after a hub
reset) by its boot, and take it for no restart.

Nothing is delivered twice: the board numbers its edges and keeps them until acknowledged;
after a reconnect it sends the unacknowledged ones again and the link drops the numbers it
has already delivered. A board with a new boot id starts its numbering, ticks and clock fit
afresh; the same boot keeps its clock fit across reconnects (its 64-bit ticks never wrap),
so an edge kept through a long unplug is timed at the rate fitted before it. Ticks are
unwrapped at the width the board's ``Hello`` announces.

Levels: each heartbeat carries the board's digital levels after its last counted edge. Once
the link has delivered every edge up to there, a channel whose level differs from what was
delivered (a beam already blocked at connect, edges lost to a full ring) gets a reading
``SensorEvent`` at the heartbeat's time; at the first connect of a boot only readings of 1
are sent, as the GPIO backend does.

Polarity: the board reports a pin's level, high = 1. A channel named in ``inverted`` (a
sensor that drives its pin low while it reads 1: a beam receiver that pulls low while its
beam is broken) has its edges and readings delivered the other way round.

Trouble is counted (``LinkCounters``) and logged: bad frames, sequence gaps, resends,
protocol errors (a board of another protocol version — ``ProtocolMismatch`` —, an ``Error``
nobody asked for) and blind spells (the board wrote its flash with interrupts off: an edge
in that spell was timed late). A board's ``Losses`` (edges its full buffer lost, edges it held
back from a chattering channel) are kept per channel name in ``losses`` and logged.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import serial
import serial_asyncio_fast

from firmware_bridge import protocol as P
from firmware_bridge.errors import (
    LinkError,
    LinkTimeout,
    PortUnavailable,
    ProtocolMismatch,
)
from firmware_bridge.session import (
    Answered,
    BoardInfo,
    BoardSession,
    HelloHeard,
    LinkCounters,
    SessionEvent,
    SyncAnswered,
)
from firmware_bridge.timesync import ClockFit
from hardware.events import LinkChanged, SensorEvent

log = logging.getLogger(__name__)

Emit = Callable[[SensorEvent | LinkChanged], None]
#: ``LinkChanged.reason`` of a board back up with another boot id: it restarted while away.
REBOOTED = "rebooted"

__all__ = ["REBOOTED", "BoardInfo", "BoardLink", "LinkCounters", "LinkTiming"]


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """How a link talks to its port: speed, time-sync pace and patience (seconds)."""

    baudrate: int = 115200
    sync_interval: float = 1.0
    sync_burst: int = 8
    silence_timeout: float = 0.8
    hello_timeout: float = 2.0
    retry_interval: float = 0.2


class _Port(asyncio.Protocol):
    """One connection to the board (asyncio's protocol): hands the session what arrives and
    writes what it has to send, and settles the futures the link waits on: the connection's
    end, the board's Hello, time-sync replies and answers to configuration."""

    def __init__(self, session: BoardSession, emit: Emit, monotonic: Callable[[], float],
                 acks: dict[int, asyncio.Future[None]]) -> None:
        loop = asyncio.get_running_loop()
        self.session = session
        self._emit = emit
        self._monotonic = monotonic
        self._acks = acks  # the link's, by frame sequence number: they outlive a connection
        self._syncs: dict[int, asyncio.Future[None]] = {}
        self.transport: asyncio.BaseTransport | None = None
        self.lost: asyncio.Future[None] = loop.create_future()
        self.hello: asyncio.Future[P.Hello] = loop.create_future()
        self.live_reboot: int | None = None  # the boot before a restart seen on this line

    def data_received(self, data: bytes) -> None:
        events = self.session.receive_data(data, self._monotonic())
        self.write()
        self.handle(events)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            if exc is None:
                self.lost.set_result(None)
            else:
                self.lost.set_exception(LinkError(f"port lost: {exc}"))

    def write(self) -> None:
        """Writes what the session has to send, if the port is open (else drops it)."""
        data = self.session.data_to_send()
        transport = self.transport
        if data and isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(data)

    def close(self) -> None:
        if self.lost.done() and not self.lost.cancelled():
            self.lost.exception()  # seen: the session ended for this or another reason
        if self.transport is not None:
            self.transport.close()
            self.transport = None
        for fut in self._syncs.values():
            fut.cancel()
        self._syncs.clear()

    def raise_if_lost(self) -> None:
        """Raises LinkError (or why the port was lost) if the connection has ended."""
        if self.lost.done():
            self.lost.result()
            raise LinkError("port closed")

    async def wait_hello(self, timeout: float) -> P.Hello:
        """Returns the board's Hello.

        Raises LinkError if the connection ends first, LinkTimeout after ``timeout`` s.
        """
        waiting: set[asyncio.Future[Any]] = {self.hello, self.lost}
        await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        self.raise_if_lost()
        if not self.hello.done():
            raise LinkTimeout("no hello from the board")
        return self.hello.result()

    async def ask_version(self, host_boot: int, timeout: float) -> None:
        """After a Hello went unanswered: says Hello in protocol 1 too (its Hello is ours),
        which a board of that version answers (waiting up to ``timeout`` s, 0.5 at most).

        Raises ProtocolMismatch if frames of another version came back.
        """
        codec = self.session.codec
        if not codec.version_mismatches:
            self.session.hello(host_boot, version=1)
            self.write()
            await asyncio.wait({self.lost}, timeout=min(timeout, 0.5))
        if codec.version_mismatches:
            self.session.counters.protocol_errors += 1
            raise ProtocolMismatch(codec.peer_version, P.PROTOCOL_VERSION)

    async def sync(self, wait: float) -> None:
        """Sends one time-sync request; waits up to ``wait`` s for its reply (0: no wait)."""
        nonce = self.session.sync(self._monotonic())
        self.write()
        if not wait:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._syncs[nonce] = done
        try:
            await asyncio.wait({done}, timeout=wait)
        finally:
            self._syncs.pop(nonce, None)
        await asyncio.sleep(0.005)

    def handle(self, events: list[SessionEvent]) -> None:
        for event in events:
            if isinstance(event, SensorEvent):
                self._emit(event)
            elif isinstance(event, HelloHeard):
                if event.restarted_from is not None and not self.lost.done():
                    # The board rebooted under a live connection: start the session over.
                    self.live_reboot = event.restarted_from
                    self.lost.set_exception(LinkError("board rebooted"))
                if not self.hello.done():
                    self.hello.set_result(event.hello)
            elif isinstance(event, SyncAnswered):
                if (done := self._syncs.get(event.nonce)) is not None and not done.done():
                    done.set_result(None)
            elif isinstance(event, Answered):
                self._answered(event)

    def _answered(self, event: Answered) -> None:
        fut = self._acks.get(event.ref)
        if fut is not None and not fut.done():
            if event.error is None:
                fut.set_result(None)
            else:
                fut.set_exception(event.error)
        elif event.error is not None:
            self.session.counters.protocol_errors += 1
            log.warning("board %s reports error %d: %s", self.session.source, event.error.code,
                        event.error.reason)


class Presence:
    """What a link says of its board's comings and goings (``LinkChanged``): up (connected,
    reconnected, or ``REBOOTED``: back with another boot than it was last seen with), timed
    when it came; down, timed at the last frame received, with the boot it went down with.
    Boot ids are kept per board uid in ``boots``, which links may share (a board that moved to
    another port is known by its boot)."""

    def __init__(self, emit: Emit, boots: dict[str, int] | None) -> None:
        self.up = False
        self.event = asyncio.Event()  # set while up
        #: Per board uid, its boot when last seen on any of the links sharing ``boots``.
        self.boots: dict[str, int] = {} if boots is None else boots
        self._emit = emit
        self._ever_up = False

    def went_up(self, t: float, port: str, session: BoardSession,
                channels: tuple[str, ...]) -> None:
        """The board on ``port`` is up at ``t`` (connected, clock fitted)."""
        self.up = True
        self.event.set()
        if self._ever_up:
            session.counters.reconnects += 1
        source, boot_id = session.source, session.boot_id
        log.info("board %s on %s is up", source, port)
        before = self.boots.get(source)  # this board's boot when last seen, on any port
        if before is None:
            how = "connected"
        elif boot_id != before:
            how = REBOOTED
            log.warning("board %s on %s restarted while it was away (boot %s, was %s): what it "
                        "had not sent is lost", source, port, boot_id, before)
        else:
            how = "reconnected"
        if boot_id is not None:
            self.boots[source] = boot_id
        self._emit(LinkChanged(t, source, True, how, channels, boot_id))
        self._ever_up = True

    def went_down(self, port: str, session: BoardSession, channels: tuple[str, ...],
                  reason: str, live_reboot: int | None) -> None:
        """The connection on ``port`` ended for ``reason``: if the board was up, it is down
        (``live_reboot``: the boot it had before it restarted under the live connection)."""
        if not self.up:
            return
        self.up = False
        self.event.clear()
        source = session.source
        log.warning("board %s on %s is down: %s", source, port, reason)
        # Timed at the last frame received: the board's data is complete up to there (what it
        # saw since, it keeps and sends after the reconnect). The boot it went down with: a
        # board that restarted under a live connection said its new boot already, it went
        # down with the one before.
        down_boot = session.boot_id if live_reboot is None else live_reboot
        if down_boot is not None:
            self.boots[source] = down_boot
        self._emit(LinkChanged(session.last_rx, source, False, reason, channels, down_boot))


class BoardLink:
    """Keeps one board connected and turns its edges into sensor events (see module doc): the
    asyncio transport around a ``BoardSession``, which holds the protocol's state."""

    def __init__(
        self,
        port: str,
        emit: Emit,
        *,
        baudrate: int = 115200,
        sync_interval: float = 1.0,
        sync_burst: int = 8,
        silence_timeout: float = 0.8,
        hello_timeout: float = 2.0,
        retry_interval: float = 0.2,
        channel_names: Mapping[int, str] | None = None,
        inverted: Collection[str] = (),
        max_pending: int = 4096,
        monotonic: Callable[[], float] = time.monotonic,
        boots: dict[str, int] | None = None,
    ) -> None:
        self.port = port
        self._emit = emit
        self._timing = LinkTiming(baudrate, sync_interval, sync_burst, silence_timeout,
                                  hello_timeout, retry_interval)
        self._monotonic = monotonic
        self.session = BoardSession(channel_names=channel_names, inverted=inverted,
                                    max_pending=max_pending, name=port)
        self.presence = Presence(emit, boots)
        self.last_error = ""
        self._port: _Port | None = None  # the connection, while the port is open
        self._acks: dict[int, asyncio.Future[None]] = {}
        self._host_boot = random.getrandbits(32)
        self._task: asyncio.Task[None] | None = None

    # -- lifetime --------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        self._task = asyncio.create_task(self._run(), name=f"board-link {self.port}")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                if (current := asyncio.current_task()) is not None and current.cancelling():
                    raise
        self._close()

    async def wait_up(self, timeout: float) -> None:
        """Waits until the board is connected and its clock synchronised.

        Raises LinkTimeout if that takes longer than ``timeout`` seconds.
        """
        try:
            await asyncio.wait_for(self.presence.event.wait(), timeout)
        except TimeoutError as exc:
            raise LinkTimeout(f"no board answered on {self.port}") from exc

    @property
    def up(self) -> bool:
        """Returns whether the board is connected and its clock synchronised."""
        return self.presence.up

    @property
    def source(self) -> str:
        """Returns the board's name in LinkChanged records (its unique id, else the port)."""
        return self.session.source

    @property
    def info(self) -> BoardInfo | None:
        """Returns what the board said about itself in its last Hello (None: not yet)."""
        return self.session.info

    @property
    def counters(self) -> LinkCounters:
        return self.session.counters

    @property
    def fit(self) -> ClockFit:
        """Returns the fit of the board's ticks to the host's clock."""
        return self.session.clock.fit

    @property
    def losses(self) -> dict[str, tuple[int, int]]:
        """Returns, per channel name, (edges lost to the board's full buffer, held back)."""
        return self.session.losses

    @property
    def channels(self) -> tuple[str, ...]:
        """Returns the interfaces §2 channel names the board carries."""
        return tuple(name for _, name in sorted(self.session.names.items()))

    @property
    def last_tick(self) -> int:
        """Returns the board's newest unwrapped tick seen on this connection."""
        return self.session.clock.unwrap.newest

    @property
    def bad_frames(self) -> int:
        return self.counters.bad_frames + self.session.codec.bad_frames

    @property
    def sequence_gaps(self) -> int:
        return self.counters.sequence_gaps + self.session.codec.sequence_gaps

    # -- the connection loop ---------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            reason = "closed"
            try:
                await self._connection()
            except (LinkError, OSError) as exc:  # SerialException is an OSError
                reason = str(exc) or type(exc).__name__
                self.last_error = reason
            except Exception as exc:  # a bug: say so, but keep the board connected
                log.exception("board link on %s failed", self.port)
                reason = self.last_error = f"internal error: {exc!r}"
            finally:
                live_reboot = self._port.live_reboot if self._port else None
                self._close()
            self.presence.went_down(self.port, self.session, self.channels, reason, live_reboot)
            await asyncio.sleep(self._timing.retry_interval * (0.5 + random.random()))

    async def _connection(self) -> None:
        loop = asyncio.get_running_loop()
        self._port = port = _Port(self.session, self._emit, self._monotonic, self._acks)
        self.session.connect(self._monotonic())
        if not os.path.exists(self.port):
            raise PortUnavailable(f"{self.port} is absent")
        try:
            transport, _ = await serial_asyncio_fast.create_serial_connection(
                loop, lambda: port, self.port, baudrate=self._timing.baudrate, exclusive=True)
        except serial.SerialException as exc:
            raise PortUnavailable(f"cannot open {self.port}: {exc}") from exc
        port.transport = transport
        serial_port = transport.get_extra_info("serial")
        if isinstance(serial_port, serial.Serial):
            serial_port.reset_input_buffer()
        self.session.last_rx = self._monotonic()
        self.session.hello(self._host_boot)
        port.write()
        try:
            hello = await port.wait_hello(self._timing.hello_timeout)
        except LinkTimeout:
            await port.ask_version(self._host_boot, self._timing.hello_timeout)
            raise
        if hello.tick_bits not in range(P.MIN_TICK_BITS, P.TICK_BITS + 1):
            self.counters.protocol_errors += 1
            raise LinkError(f"the board announces {hello.tick_bits}-bit ticks")
        for _ in range(self._timing.sync_burst):
            if port.lost.done():
                break
            await port.sync(wait=0.25)
        port.raise_if_lost()
        if not self.fit.ready:
            raise LinkTimeout("no time-sync reply from the board")
        self.presence.went_up(self._monotonic(), self.port, self.session, self.channels)
        port.handle(self.session.deliver())  # what the board kept meanwhile, now timed
        await self._keep(port)

    async def _keep(self, port: _Port) -> None:
        """Keeps the connection up: time-syncs at its pace, watches for silence and loss."""
        next_sync = self._monotonic() + self._timing.sync_interval
        while True:
            await asyncio.wait({port.lost}, timeout=0.05)
            port.raise_if_lost()
            now = self._monotonic()
            if now - self.session.last_rx > self._timing.silence_timeout:
                raise LinkTimeout(f"board silent for {now - self.session.last_rx:.2f} s")
            if now >= next_sync:
                await port.sync(wait=0)
                next_sync = now + self._timing.sync_interval

    def _close(self) -> None:
        self.session.disconnect()
        if self._port is not None:
            self._port.close()
            self._port = None

    # -- requests --------------------------------------------------------------------------

    async def configure(self, config: P.ChannelConfig, timeout: float = 1.0) -> None:
        """Configures one of the board's channels and waits for its acknowledgement.

        Raises ConfigRejected if the name is not an interfaces §2 channel or the board
        refuses, LinkTimeout if it does not answer.
        """
        seq = self.session.configure(config)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._acks[seq] = fut
        try:
            if self._port is not None:
                self._port.write()
            await asyncio.wait_for(fut, timeout)
        except TimeoutError as exc:
            raise LinkTimeout("the board did not acknowledge the configuration") from exc
        finally:
            self._acks.pop(seq, None)
        self.session.configured(config)

    def quality(self) -> dict[str, float | int]:
        """Returns link quality figures: round trips (ms) and error counters."""
        return self.counters.quality(self.bad_frames, self.sequence_gaps)
