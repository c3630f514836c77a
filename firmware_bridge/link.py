"""The host's link to one sensor board over USB serial (asyncio, pyserial-asyncio-fast).

``BoardLink`` is an async context manager owning one background task that keeps the board
connected: it opens the port exclusively (use the stable ``/dev/serial/by-id/…`` path), says
``Hello``, learns the board's identity and channel map, synchronises clocks with a burst of
time-sync exchanges, and then delivers every edge as a ``SensorEvent`` on the host's
monotonic timeline through the ``emit`` callback. An unplugged cable (a read error, or
silence longer than ``silence_timeout``) emits ``LinkChanged(up=False)``, timed at the last
frame received (the board's data is complete up to there); the link retries the port until
the board is back and emits ``LinkChanged(up=True)``, followed at once by the edges the
board kept meanwhile, each with its own time. Both carry the board's boot id; one back with
another boot id than it went down with (powered by its cable, a watchdog or crash reset) is
``REBOOTED``: what it had not sent before is lost, and the core treats that as a data gap.

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
import statistics
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import serial
import serial_asyncio_fast

from firmware_bridge import protocol as P
from firmware_bridge.errors import (
    ConfigRejected,
    LinkError,
    LinkTimeout,
    PortUnavailable,
    ProtocolMismatch,
)
from firmware_bridge.timesync import ClockFit, TickUnwrapper, sample
from hardware.events import LinkChanged, SensorEvent
from vocabulary import VERSION as HOST_VERSION
from vocabulary import ChannelError, parse_channel

log = logging.getLogger(__name__)

Emit = Callable[[SensorEvent | LinkChanged], None]
#: ``LinkChanged.reason`` of a board back up with another boot id: it restarted while away.
REBOOTED = "rebooted"


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """What a board said about itself in its ``Hello``."""

    uid: str
    firmware: str
    protocol: int
    boot_id: int
    tick_bits: int
    channels: tuple[tuple[int, str, str, int], ...]  # (index, name, mode, pin)


@dataclass(slots=True)
class LinkCounters:
    """Counters of one link, across reconnections."""

    frames: int = 0
    bad_frames: int = 0
    sequence_gaps: int = 0
    reconnects: int = 0
    overflows: int = 0  # edges the board lost (its ring was full)
    duplicates: int = 0  # edges received again after a reconnect, dropped
    resends: int = 0  # times edges were asked for again (a frame of them was lost)
    protocol_errors: int = 0  # frames of another version, Errors nobody asked for, bad Hellos
    blind_spells: int = 0  # the board had interrupts off (a flash write): edges timed late
    unknown_channels: int = 0  # edges on a channel with no interfaces §2 name
    edges: int = 0  # edges delivered
    pending_overflows: int = 0  # edges dropped while waiting for the first clock fit
    rtts: list[float] = field(default_factory=list)


class _SerialProtocol(asyncio.Protocol):
    def __init__(self, link: BoardLink) -> None:
        self._link = link

    def data_received(self, data: bytes) -> None:
        self._link._received(data, self._link._monotonic())

    def connection_lost(self, exc: Exception | None) -> None:
        self._link._connection_lost(exc)


class BoardLink:
    """Keeps one board connected and turns its edges into sensor events (see module doc)."""

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
    ) -> None:
        self.port = port
        self._emit = emit
        self._baudrate = baudrate
        self._sync_interval = sync_interval
        self._sync_burst = sync_burst
        self._silence_timeout = silence_timeout
        self._hello_timeout = hello_timeout
        self._retry_interval = retry_interval
        self._overrides = dict(channel_names or {})
        self._inverted = frozenset(inverted)
        self._max_pending = max_pending
        self._monotonic = monotonic
        self.counters = LinkCounters()
        self.info: BoardInfo | None = None
        self.fit = ClockFit()
        self.up = False
        self.last_error = ""
        self._unwrap = TickUnwrapper(P.TICK_BITS)
        self._names: dict[int, str] = {}
        self._next_edge: int | None = None  # None: not yet known for this boot
        self._resend: tuple[int, float] = (-1, 0.0)
        self._board_overflows = 0
        self._board_blind = 0
        self._levels: dict[int, int] = {}  # channel index -> the level last delivered
        self._boot_id: int | None = None
        self._down_boot: int | None = None  # the boot id the board had when it went down
        self._live_reboot: int | None = None  # the boot before a restart seen on a live line
        #: per channel name: (edges lost to the board's full buffer, edges it held back)
        self.losses: dict[str, tuple[int, int]] = {}
        self._codec = P.Codec()
        self._transport: asyncio.BaseTransport | None = None
        self._lost: asyncio.Future[None] | None = None
        self._hello: asyncio.Future[P.Hello] | None = None
        self._syncs: dict[int, tuple[float, asyncio.Future[None]]] = {}
        self._acks: dict[int, asyncio.Future[None]] = {}
        self._pending: list[tuple[int, P.Edge]] = []
        self._delivering = False
        self._last_rx = 0.0
        self._ever_up = False
        self._nonce = random.getrandbits(32)
        self._host_boot = random.getrandbits(32)
        self._task: asyncio.Task[None] | None = None
        self._up_event = asyncio.Event()

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
            await asyncio.wait_for(self._up_event.wait(), timeout)
        except TimeoutError as exc:
            raise LinkTimeout(f"no board answered on {self.port}") from exc

    @property
    def source(self) -> str:
        """Returns the board's name in LinkChanged records (its unique id, else the port)."""
        return self.info.uid if self.info else self.port

    @property
    def channels(self) -> tuple[str, ...]:
        """Returns the interfaces §2 channel names the board carries."""
        return tuple(name for _, name in sorted(self._names.items()))

    @property
    def last_tick(self) -> int:
        """Returns the board's newest unwrapped tick seen on this connection."""
        return self._unwrap.newest

    @property
    def bad_frames(self) -> int:
        return self.counters.bad_frames + self._codec.bad_frames

    @property
    def sequence_gaps(self) -> int:
        return self.counters.sequence_gaps + self._codec.sequence_gaps

    # -- the connection loop ---------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            reason = "closed"
            try:
                await self._session()
            except (LinkError, OSError) as exc:  # SerialException is an OSError
                reason = str(exc) or type(exc).__name__
                self.last_error = reason
            except Exception as exc:  # a bug: say so, but keep the board connected
                log.exception("board link on %s failed", self.port)
                reason = self.last_error = f"internal error: {exc!r}"
            finally:
                self._close()
            if self.up:
                self.up = False
                self._up_event.clear()
                log.warning("board %s on %s is down: %s", self.source, self.port, reason)
                # Timed at the last frame received: the board's data is complete up to there
                # (what it saw since, it keeps and sends after the reconnect).
                # the boot it went down with (a board that restarted under a live connection
                # said its new boot already: it went down with the one before)
                self._down_boot = self._boot_id if self._live_reboot is None else self._live_reboot
                self._emit(LinkChanged(self._last_rx, self.source, False, reason, self.channels,
                                       self._down_boot))
            self._live_reboot = None
            await asyncio.sleep(self._retry_interval * (0.5 + random.random()))

    async def _session(self) -> None:
        loop = asyncio.get_running_loop()
        self._lost = loop.create_future()
        self._hello = loop.create_future()
        self._codec = P.Codec()
        self._unwrap.reset()
        if self._unwrap.bits < P.TICK_BITS:  # a narrow tick starts over on each connection;
            self.fit.reset()  # the board's own 64-bit ticks keep their rate for its boot
        self._delivering = False
        if not os.path.exists(self.port):
            raise PortUnavailable(f"{self.port} is absent")
        try:
            transport, _ = await serial_asyncio_fast.create_serial_connection(
                loop, lambda: _SerialProtocol(self), self.port, baudrate=self._baudrate,
                exclusive=True,
            )
        except serial.SerialException as exc:
            raise PortUnavailable(f"cannot open {self.port}: {exc}") from exc
        self._transport = transport
        serial_port = transport.get_extra_info("serial")
        if isinstance(serial_port, serial.Serial):
            serial_port.reset_input_buffer()
        self._last_rx = self._monotonic()
        self._say_hello()
        try:
            await self._wait_or_lost(self._hello, self._hello_timeout, "no hello from the board")
        except LinkTimeout:
            await self._ask_version()
            raise
        if self._hello.result().tick_bits not in range(P.MIN_TICK_BITS, P.TICK_BITS + 1):
            self.counters.protocol_errors += 1
            raise LinkError(f"the board announces {self._hello.result().tick_bits}-bit ticks")
        for _ in range(self._sync_burst):
            if self._lost.done():
                break
            await self._sync(wait=0.25)
        if self._lost.done():
            self._lost.result()
            raise LinkError("port closed")
        if not self.fit.ready:
            raise LinkTimeout("no time-sync reply from the board")
        self.up = True
        self._up_event.set()
        if self._ever_up:
            self.counters.reconnects += 1
        log.info("board %s on %s is up", self.source, self.port)
        if not self._ever_up:
            how = "connected"
        elif self._boot_id != self._down_boot:
            how = REBOOTED
            log.warning("board %s on %s restarted while it was away (boot %s, was %s): what it "
                        "had not sent is lost", self.source, self.port, self._boot_id,
                        self._down_boot)
        else:
            how = "reconnected"
        self._emit(LinkChanged(self._monotonic(), self.source, True, how, self.channels,
                               self._boot_id))
        self._ever_up = True
        self._delivering = True
        self._flush()  # what the board kept while we were away, now that times are known
        next_sync = self._monotonic() + self._sync_interval
        while True:
            await asyncio.wait({self._lost}, timeout=0.05)
            if self._lost.done():
                self._lost.result()
                raise LinkError("port closed")
            now = self._monotonic()
            if now - self._last_rx > self._silence_timeout:
                raise LinkTimeout(f"board silent for {now - self._last_rx:.2f} s")
            if now >= next_sync:
                await self._sync(wait=0)
                next_sync = now + self._sync_interval

    async def _ask_version(self) -> None:
        """After a Hello went unanswered: says Hello in protocol 1 too (its Hello is ours),
        which a board of that version answers.

        Raises ProtocolMismatch if frames of another version came back.
        """
        assert self._lost is not None
        if not self._codec.version_mismatches:
            self._say_hello(version=1)
            await asyncio.wait({self._lost}, timeout=min(self._hello_timeout, 0.5))
        if self._codec.version_mismatches:
            self.counters.protocol_errors += 1
            raise ProtocolMismatch(self._codec.peer_version, P.PROTOCOL_VERSION)

    async def _wait_or_lost(self, fut: asyncio.Future[P.Hello], timeout: float, what: str) -> None:
        assert self._lost is not None
        waiting: set[asyncio.Future[Any]] = {fut, self._lost}
        await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if self._lost.done():
            self._lost.result()
            raise LinkError("port closed")
        if not fut.done():
            raise LinkTimeout(what)

    async def _sync(self, wait: float) -> None:
        """Sends one time-sync request; waits up to ``wait`` s for its reply (0: no wait)."""
        loop = asyncio.get_running_loop()
        self._nonce = (self._nonce + 1) & 0xFFFFFFFF
        nonce = self._nonce
        done: asyncio.Future[None] = loop.create_future()
        now = self._monotonic()
        for old in [n for n, (t1, _) in self._syncs.items() if now - t1 > 2.0]:
            del self._syncs[old]
        self._syncs[nonce] = (now, done)
        self._send(P.SyncRequest(nonce))
        if wait:
            await asyncio.wait({done}, timeout=wait)
            await asyncio.sleep(0.005)

    def _say_hello(self, version: int = P.PROTOCOL_VERSION) -> None:
        """Says Hello (in ``version``), a frame delimiter first: bytes left in the board's
        receive buffer (half a frame from before an unplug, noise) end there instead of
        swallowing the Hello, which the board would then not answer."""
        hello = P.Hello(P.PROTOCOL_VERSION, HOST_VERSION, "host", self._host_boot, 0, ())
        transport = self._transport
        if isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(b"\x00" + self._codec.encode(hello, version=version))

    def _send(self, message: P.Message) -> None:
        transport = self._transport
        if isinstance(transport, asyncio.WriteTransport) and not transport.is_closing():
            transport.write(self._codec.encode(message))

    def _close(self) -> None:
        if self._lost is not None and self._lost.done() and not self._lost.cancelled():
            self._lost.exception()  # seen: the session ended for this or another reason
        self.counters.bad_frames += self._codec.bad_frames
        self.counters.sequence_gaps += self._codec.sequence_gaps
        self._codec = P.Codec()
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        for _, fut in self._syncs.values():
            fut.cancel()
        self._syncs.clear()

    def _connection_lost(self, exc: Exception | None) -> None:
        if self._lost is not None and not self._lost.done():
            if exc is None:
                self._lost.set_result(None)
            else:
                self._lost.set_exception(LinkError(f"port lost: {exc}"))

    # -- frames in -------------------------------------------------------------------------

    def _received(self, data: bytes, t_rx: float) -> None:
        codec = self._codec
        codec.receive_data(data)
        while isinstance(frame := codec.next_frame(), P.Frame):
            self._last_rx = t_rx
            self.counters.frames += 1
            self._on_frame(frame, t_rx)

    def _on_frame(self, frame: P.Frame, t_rx: float) -> None:
        msg = frame.message
        if isinstance(msg, P.Edges):
            self._on_edges(frame.seq, msg)
        elif isinstance(msg, P.Heartbeat):
            self._on_heartbeat(frame.seq, msg)
        elif isinstance(msg, P.SyncReply):
            entry = self._syncs.pop(msg.nonce, None)
            if entry is None:
                return
            t1, done = entry
            k2 = self._unwrap.unwrap(msg.received)
            k3 = self._unwrap.unwrap(msg.sent)
            s = sample(t1, t_rx, k2, k3)
            self.fit.add(s)
            self.counters.rtts.append(s.rtt)
            del self.counters.rtts[:-256]
            if not done.done():
                done.set_result(None)
        elif isinstance(msg, P.Hello):
            self._on_hello(msg)
        elif isinstance(msg, P.Losses):
            self._on_losses(msg)
        elif isinstance(msg, P.Ack):
            fut = self._acks.get(msg.ref)
            if fut is not None and not fut.done():
                fut.set_result(None)
        elif isinstance(msg, P.Error):
            fut = self._acks.get(msg.ref)
            if fut is not None and not fut.done():
                fut.set_exception(ConfigRejected(msg.code, msg.reason))
            else:
                self.counters.protocol_errors += 1
                log.warning("board %s reports error %d: %s", self.source, msg.code, msg.reason)

    def _on_heartbeat(self, seq: int, msg: P.Heartbeat) -> None:
        tick = self._unwrap.unwrap(msg.tick)
        if self._next_edge is None:
            self._next_edge = msg.sent  # what came before went to another host
        elif msg.sent > self._next_edge:
            self._request_resend(seq)  # edges were sent that never arrived
        if msg.overflows > self._board_overflows:
            self.counters.overflows += msg.overflows - self._board_overflows
            log.warning("board %s lost %d edges (buffer full)", self.source,
                        msg.overflows - self._board_overflows)
        self._board_overflows = msg.overflows
        if msg.blind > self._board_blind:
            self.counters.blind_spells += msg.blind - self._board_blind
            log.warning("board %s had interrupts off for %.1f ms (flash write): edges in that "
                        "spell were timed late", self.source, msg.blind_us / 1e3)
        self._board_blind = msg.blind
        if self._delivering and msg.edges == self._next_edge and not self._pending:
            self._check_levels(tick, msg.levels)

    def _on_losses(self, msg: P.Losses) -> None:
        """Notes, per channel, the edges the board lost (full buffer) or held back (chatter)."""
        for loss in msg.losses:
            name = self._names.get(loss.ch, f"channel {loss.ch}")
            was = self.losses.get(name, (0, 0))
            now = (loss.overflows, loss.throttled)
            if now != was:
                log.warning("board %s: %s lost %d edges (buffer full), %d held back (chatter)",
                            self.source, name, loss.overflows, loss.throttled)
            self.losses[name] = now

    def _check_levels(self, tick: int, levels: int) -> None:
        """Sends a reading for each digital channel whose level is not the one delivered."""
        assert self.info is not None
        for index, _, mode, _ in self.info.channels:
            name = self._names.get(index)
            if mode != P.MODE_NAMES[P.MODE_DIGITAL] or name is None:
                continue
            level = ((levels >> index) & 1) ^ (name in self._inverted)
            known = self._levels.get(index)
            self._levels[index] = level
            if known == level or (known is None and not level):
                continue
            log.info("board %s: %s reads %d (a reading, not an edge)", self.source, name, level)
            self.counters.edges += 1
            self._emit(SensorEvent(t=self.fit.to_host(tick), ch=name, v=level))

    def _on_hello(self, msg: P.Hello) -> None:
        channels = tuple(
            (c.index, c.name, P.MODE_NAMES[c.mode] if c.mode < len(P.MODE_NAMES) else "?", c.pin)
            for c in msg.channels
        )
        self.info = BoardInfo(msg.uid, msg.firmware, msg.protocol, msg.boot_id, msg.tick_bits,
                              channels)
        self._names = {}
        for c in msg.channels:
            name = self._overrides.get(c.index, c.name)
            if c.mode == P.MODE_OFF:
                continue
            try:
                parse_channel(name)
            except ChannelError:
                log.warning("board %s: channel %d is named %r, not an interfaces §2 name; "
                            "its edges are dropped", msg.uid, c.index, name)
                continue
            self._names[c.index] = name
        if self._boot_id != msg.boot_id:
            live = self._hello is not None and self._hello.done()
            if self._boot_id is not None and live and self._lost and not self._lost.done():
                # The board rebooted under a live connection: start the session over.
                self._live_reboot = self._boot_id
                self._lost.set_exception(LinkError("board rebooted"))
            self._boot_id = msg.boot_id
            self.losses.clear()
            self.fit.reset()  # the ticks start over
            self._next_edge = None
            self._board_overflows = 0
            self._board_blind = 0
            self._levels.clear()
            self._pending.clear()
        if msg.tick_bits in range(P.MIN_TICK_BITS, P.TICK_BITS + 1):
            self._unwrap = TickUnwrapper(msg.tick_bits)
        if self._hello is not None and not self._hello.done():
            self._hello.set_result(msg)

    def _on_edges(self, seq: int, msg: P.Edges) -> None:
        if self._next_edge is None:
            self._next_edge = msg.first
        for n, edge in enumerate(msg.edges):
            number = msg.first + n
            if number < self._next_edge:
                self.counters.duplicates += 1
                continue
            if number > self._next_edge:  # a frame of edges was lost: have them all again
                self._request_resend(seq)
                break
            self._next_edge = number + 1
            if len(self._pending) >= self._max_pending:
                self.counters.pending_overflows += 1
                continue
            self._pending.append((self._unwrap.unwrap(edge.tick), edge))
        else:
            self._send(P.Ack(seq, self._next_edge))
        self._flush()

    def _request_resend(self, seq: int) -> None:
        """Asks the board to send every edge from the first missing one again (at most once
        per quarter second for the same edge: the edges in flight will show the gap too)."""
        assert self._next_edge is not None
        now = self._monotonic()
        last_from, last_at = self._resend
        if last_from == self._next_edge and now - last_at < 0.25:
            return
        self._resend = (self._next_edge, now)
        self.counters.resends += 1
        log.info("board %s: edges from %d lost, asking again", self.source, self._next_edge)
        self._send(P.Ack(seq, self._next_edge, resend=1))

    def _flush(self) -> None:
        if not self._delivering:
            return
        pending, self._pending = self._pending, []
        for tick, edge in pending:
            name = self._names.get(edge.ch)
            if name is None:
                self.counters.unknown_channels += 1
                log.debug("board %s: edge on unnamed channel %d dropped", self.source, edge.ch)
                continue
            level = None if edge.level < 0 else round(edge.level / 0xFFFF, 4)
            v = edge.v ^ (name in self._inverted)
            self._levels[edge.ch] = v
            self.counters.edges += 1
            self._emit(SensorEvent(t=self.fit.to_host(tick), ch=name, v=v, level=level))

    # -- requests --------------------------------------------------------------------------

    async def configure(self, config: P.Config, timeout: float = 1.0) -> None:
        """Configures one of the board's channels and waits for its acknowledgement.

        Raises ConfigRejected if the name is not an interfaces §2 channel or the board
        refuses, LinkTimeout if it does not answer.
        """
        name = self._overrides.get(config.ch, config.name)
        if config.mode != P.MODE_OFF:
            try:
                parse_channel(name)
            except ChannelError as exc:
                raise ConfigRejected(P.ERR_BAD_CHANNEL, str(exc)) from exc
        seq = self._codec.next_seq
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._acks[seq] = fut
        try:
            self._send(config)
            await asyncio.wait_for(fut, timeout)
        except TimeoutError as exc:
            raise LinkTimeout("the board did not acknowledge the configuration") from exc
        finally:
            self._acks.pop(seq, None)
        if config.mode == P.MODE_OFF:
            self._names.pop(config.ch, None)
        else:
            self._names[config.ch] = name

    def quality(self) -> dict[str, float | int]:
        """Returns link quality figures: round trips (ms) and error counters."""
        rtts = self.counters.rtts or [float("nan")]
        return {
            "rtt_min_ms": min(rtts) * 1e3,
            "rtt_median_ms": statistics.median(rtts) * 1e3,
            "frames": self.counters.frames,
            "bad_frames": self.bad_frames,
            "sequence_gaps": self.sequence_gaps,
            "overflows": self.counters.overflows,
            "reconnects": self.counters.reconnects,
            "resends": self.counters.resends,
            "protocol_errors": self.counters.protocol_errors,
            "blind_spells": self.counters.blind_spells,
        }
