"""The protocol state of one board connection, sans I/O (after h11).

``BoardSession`` is fed the bytes read from the port with the time they arrived
(``receive_data``) and returns what they mean: ``SensorEvent`` s on the host's timeline, and
``HelloHeard``, ``SyncAnswered`` and ``Answered`` for whoever waits on the board. The frames it
must send in reply (acknowledgements, requests to send edges again) and those its caller asks
for (``hello``, ``sync``, ``configure``) wait in ``data_to_send()``. No asyncio, no serial, no
clock: the caller does the I/O and says the time, so a test drives it with bytes alone.

It keeps what outlives one connection to the same board: the boot id, the clock fit (a board's
64-bit ticks keep their rate across an unplug: ``BoardClock``), the edge numbering (nothing
is delivered twice) and the levels last delivered (``EdgeStream``), and the board's losses.
``connect`` starts a connection, ``deliver`` opens the gate once the clock is fitted,
``disconnect`` ends the connection. The module doc of ``firmware_bridge.link`` tells the rules it keeps.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import statistics
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from firmware_bridge import protocol as P
from firmware_bridge.errors import ConfigRejected
from firmware_bridge.timesync import ClockFit, TickUnwrapper, sample
from hardware.events import SensorEvent
from vocabulary import VERSION as HOST_VERSION
from vocabulary import ChannelError, parse_channel

log = logging.getLogger("firmware_bridge.link")


@dataclass(frozen=True, slots=True)
class BoardInfo:
    """What a board said about itself in its ``Hello``."""

    uid: str
    firmware: str
    protocol: int
    boot_id: int
    tick_bits: int
    channels: tuple[tuple[int, str, str, int], ...]  # (index, name, mode, pin)

    @property
    def on_defaults(self) -> bool:
        """Returns whether the board runs its default channels (``+defaults``: it refused the
        configuration saved on it, and no host has configured it since)."""
        return self.firmware.endswith(P.DEFAULTS_MARK)


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

    def quality(self, bad_frames: int, sequence_gaps: int) -> dict[str, float | int]:
        """Returns link quality figures: round trips (ms) and error counters (with the
        current connection's ``bad_frames`` and ``sequence_gaps``)."""
        rtts = self.rtts or [float("nan")]
        return {
            "rtt_min_ms": min(rtts) * 1e3,
            "rtt_median_ms": statistics.median(rtts) * 1e3,
            "frames": self.frames,
            "bad_frames": bad_frames,
            "sequence_gaps": sequence_gaps,
            "overflows": self.overflows,
            "reconnects": self.reconnects,
            "resends": self.resends,
            "protocol_errors": self.protocol_errors,
            "blind_spells": self.blind_spells,
        }


@dataclass(frozen=True, slots=True)
class HelloHeard:
    """The board said Hello; ``restarted_from`` is the boot it had before, when it restarted
    under this connection (a Hello with a new boot id after the first one), else None."""

    hello: P.Hello
    restarted_from: int | None = None


@dataclass(frozen=True, slots=True)
class SyncAnswered:
    """The board answered time-sync request ``nonce``; the clock fit has its sample."""

    nonce: int


@dataclass(frozen=True, slots=True)
class Answered:
    """The board acknowledged frame ``ref`` (``error`` None) or refused it."""

    ref: int
    error: ConfigRejected | None = None


SessionEvent = SensorEvent | HelloHeard | SyncAnswered | Answered


def channel_names(hello: P.Hello, overrides: Mapping[int, str]) -> dict[int, str]:
    """Returns the interfaces §2 name of each channel ``hello`` announces on (``overrides``
    first); a channel off or named otherwise has none (its edges are dropped, and logged)."""
    names = {}
    for c in hello.channels:
        name = overrides.get(c.index, c.name)
        if c.mode == P.MODE_OFF:
            continue
        try:
            parse_channel(name)
        except ChannelError:
            log.warning("board %s: channel %d is named %r, not an interfaces §2 name; "
                        "its edges are dropped", hello.uid, c.index, name)
            continue
        names[c.index] = name
    return names


class BoardClock:
    """The board's ticks on the host's timeline: the unwrapper, the clock fit and the time-sync
    requests in flight."""

    def __init__(self) -> None:
        self.fit = ClockFit()
        self.unwrap = TickUnwrapper(P.TICK_BITS)
        self._asked: dict[int, float] = {}  # nonce -> host time it was sent
        self._nonce = random.getrandbits(32)

    def connect(self) -> None:
        """A new connection: a narrow tick starts over (64-bit ticks keep their rate)."""
        self.unwrap.reset()
        if self.unwrap.bits < P.TICK_BITS:
            self.fit.reset()

    def ask(self, now: float) -> P.SyncRequest:
        """Returns a new time-sync request sent at ``now`` (forgets those older than 2 s)."""
        self._nonce = (self._nonce + 1) & 0xFFFFFFFF
        for old in [n for n, t1 in self._asked.items() if now - t1 > 2.0]:
            del self._asked[old]
        self._asked[self._nonce] = now
        return P.SyncRequest(self._nonce)

    def answer(self, msg: P.SyncReply, t_rx: float) -> float | None:
        """Fits the reply received at ``t_rx``; returns its round trip, None if not asked."""
        t1 = self._asked.pop(msg.nonce, None)
        if t1 is None:
            return None
        s = sample(t1, t_rx, self.unwrap.unwrap(msg.received), self.unwrap.unwrap(msg.sent))
        self.fit.add(s)
        return s.rtt

    def forget(self) -> None:
        """The connection ended: its requests will not be answered."""
        self._asked.clear()


class EdgeStream:
    """One board boot's edges on their way to the host. The board numbers its edges from 0 at
    boot and keeps them until acknowledged: the stream drops the numbers it already delivered
    (after a reconnect nothing is delivered twice), asks again from the first missing one when a
    frame of them was lost, keeps them until the clock is fitted (``delivering``) and then turns
    them into ``SensorEvent`` s on the host's timeline. It remembers the level last delivered per
    channel, which each heartbeat checks (``readings``)."""

    def __init__(self, clock: BoardClock, counters: LinkCounters, *,
                 inverted: Collection[str] = (), max_pending: int = 4096) -> None:
        self.clock = clock
        self.counters = counters
        self.inverted = frozenset(inverted)
        self.max_pending = max_pending
        self.next_edge: int | None = None  # None: not yet known for this boot
        self.delivering = False
        self._resend: tuple[int, float] = (-1, 0.0)
        self._levels: dict[int, int] = {}  # channel index -> the level last delivered
        self._pending: list[tuple[int, P.Edge]] = []

    def restart(self) -> None:
        """A new boot: the numbering, the levels and what was pending start over, and the
        gate closes until the clock is fitted afresh."""
        self.delivering = False
        self.next_edge = None
        self._levels.clear()
        self._pending.clear()

    def take(self, seq: int, msg: P.Edges, t_rx: float, source: str) -> P.Ack | None:
        """Takes frame ``seq`` of edges received at ``t_rx``; returns the Ack to send back:
        every edge below the next one arrived, or (a frame of them was lost) a request to send
        them again from the first missing one; None when that was asked for just now."""
        if self.next_edge is None:
            self.next_edge = msg.first
        for n, edge in enumerate(msg.edges):
            number = msg.first + n
            if number < self.next_edge:
                self.counters.duplicates += 1
                continue
            if number > self.next_edge:  # a frame of edges was lost: have them all again
                return self._resend_from(seq, t_rx, source)
            self.next_edge = number + 1
            if len(self._pending) >= self.max_pending:
                self.counters.pending_overflows += 1
                continue
            self._pending.append((self.clock.unwrap.unwrap(edge.tick), edge))
        return P.Ack(seq, self.next_edge)

    def heard(self, seq: int, sent: int, t_rx: float, source: str) -> P.Ack | None:
        """Takes a heartbeat's ``sent`` (the next edge the board will send); returns a request
        to send again when edges were sent that never arrived, else None."""
        if self.next_edge is None:
            self.next_edge = sent  # what came before went to another host
        elif sent > self.next_edge:
            return self._resend_from(seq, t_rx, source)
        return None

    def settled(self, edges: int) -> bool:
        """Returns whether every edge below ``edges`` has been delivered."""
        return self.delivering and edges == self.next_edge and not self._pending

    def _resend_from(self, seq: int, now: float, source: str) -> P.Ack | None:
        """Returns a request to send every edge from the first missing one again (at most once
        per quarter second for the same edge: the edges in flight will show the gap too)."""
        assert self.next_edge is not None
        last_from, last_at = self._resend
        if last_from == self.next_edge and now - last_at < 0.25:
            return None
        self._resend = (self.next_edge, now)
        self.counters.resends += 1
        log.info("board %s: edges from %d lost, asking again", source, self.next_edge)
        return P.Ack(seq, self.next_edge, resend=1)

    def readings(self, tick: int, levels: int, channels: tuple[tuple[int, str, str, int], ...],
                 names: Mapping[int, str], source: str) -> list[SensorEvent]:
        """Returns a reading at ``tick`` for each digital channel (of ``channels``, as
        ``BoardInfo`` has them) whose level in ``levels`` is not the one delivered."""
        readings: list[SensorEvent] = []
        for index, _, mode, _ in channels:
            name = names.get(index)
            if mode != P.MODE_NAMES[P.MODE_DIGITAL] or name is None:
                continue
            level = ((levels >> index) & 1) ^ (name in self.inverted)
            known = self._levels.get(index)
            self._levels[index] = level
            if known == level or (known is None and not level):
                continue
            log.info("board %s: %s reads %d (a reading, not an edge)", source, name, level)
            self.counters.edges += 1
            readings.append(SensorEvent(t=self.clock.fit.to_host(tick), ch=name, v=level))
        return readings

    def flush(self, names: Mapping[int, str], source: str) -> list[SensorEvent]:
        """Returns the edges kept, as events, once the gate is open (else nothing)."""
        if not self.delivering:
            return []
        events: list[SensorEvent] = []
        pending, self._pending = self._pending, []
        for tick, edge in pending:
            name = names.get(edge.ch)
            if name is None:
                self.counters.unknown_channels += 1
                log.debug("board %s: edge on unnamed channel %d dropped", source, edge.ch)
                continue
            level = None if edge.level < 0 else round(edge.level / 0xFFFF, 4)
            v = edge.v ^ (name in self.inverted)
            self._levels[edge.ch] = v
            self.counters.edges += 1
            events.append(SensorEvent(t=self.clock.fit.to_host(tick), ch=name, v=v, level=level))
        return events


class BoardSession:
    """The protocol state of one board's connection (see module doc)."""

    def __init__(
        self,
        *,
        channel_names: Mapping[int, str] | None = None,
        inverted: Collection[str] = (),
        max_pending: int = 4096,
        name: str = "board",
    ) -> None:
        self.name = name  # for the log until the board says its uid
        self.counters = LinkCounters()
        self.info: BoardInfo | None = None
        self.clock = BoardClock()
        #: per channel name: (edges lost to the board's full buffer, edges it held back)
        self.losses: dict[str, tuple[int, int]] = {}
        self.boot_id: int | None = None
        self.last_rx = 0.0  # host time of the last frame received
        self.names: dict[int, str] = {}  # channel index -> interfaces §2 name
        self.edges = EdgeStream(self.clock, self.counters, inverted=inverted,
                                max_pending=max_pending)
        self._overrides = dict(channel_names or {})
        self._codec = P.Codec()
        self._board: tuple[int, int] = (0, 0)  # the board's overflow and blind-spell counts
        self._heard = False  # a Hello was heard on this connection
        self._out = bytearray()

    @property
    def source(self) -> str:
        return self.info.uid if self.info else self.name

    @property
    def codec(self) -> P.Codec:
        """Returns this connection's frame codec (its counters and peer version)."""
        return self._codec

    def data_to_send(self) -> bytes:
        """Returns the bytes waiting to go to the board, and forgets them."""
        out, self._out = bytes(self._out), bytearray()
        return out

    # -- the connection ----------------------------------------------------------------------

    def connect(self, now: float) -> None:
        """Starts a connection at ``now``: a fresh codec, nothing delivered until ``deliver``."""
        self._codec = P.Codec()
        self._out.clear()
        self.clock.connect()
        self.edges.delivering = self._heard = False
        self.last_rx = now

    def deliver(self) -> list[SessionEvent]:
        """Opens the gate (the clock is fitted); returns the edges kept meanwhile."""
        self.edges.delivering = True
        return list(self.edges.flush(self.names, self.source))

    def disconnect(self) -> None:
        """Ends the connection: its codec's counts are kept, its sync requests forgotten."""
        self.counters.bad_frames += self._codec.bad_frames
        self.counters.sequence_gaps += self._codec.sequence_gaps
        self._codec = P.Codec()
        self._out.clear()
        self.clock.forget()

    def hello(self, host_boot: int, version: int = P.PROTOCOL_VERSION) -> None:
        """Says Hello as host boot ``host_boot`` (in ``version``), a frame delimiter first:
        bytes left in the board's receive buffer (half a frame from before an unplug, noise)
        end there instead of swallowing the Hello, which the board would then not answer."""
        hello = P.Hello(P.PROTOCOL_VERSION, HOST_VERSION, "host", host_boot, 0, ())
        self._out += b"\x00" + self._codec.encode(hello, version=version)

    def sync(self, now: float) -> int:
        """Asks the board for a time-sync sample at ``now``; returns the request's nonce."""
        request = self.clock.ask(now)
        self._out += self._codec.encode(request)
        return request.nonce

    def configure(self, config: P.ChannelConfig) -> int:
        """Sends ``config``; returns the sequence number its ``Answered`` will carry.

        Raises ConfigRejected if the channel's name is not an interfaces §2 name.
        """
        if config.mode != P.MODE_OFF:
            try:
                parse_channel(self._overrides.get(config.ch, config.name))
            except ChannelError as exc:
                raise ConfigRejected(P.ERR_BAD_CHANNEL, str(exc)) from exc
        seq = self._codec.next_seq
        self._out += self._codec.encode(config)
        return seq

    def configured(self, config: P.ChannelConfig) -> None:
        """The board took ``config``: its channel now carries that name, or none (and it runs
        a configuration the host gave it, not its defaults: as its next Hello will say)."""
        if (info := self.info) is not None:
            self.info = dataclasses.replace(info, firmware=info.firmware.removesuffix(P.DEFAULTS_MARK))
        if config.mode == P.MODE_OFF:
            self.names.pop(config.ch, None)
        else:
            self.names[config.ch] = self._overrides.get(config.ch, config.name)

    # -- frames in ---------------------------------------------------------------------------

    def receive_data(self, data: bytes, t_rx: float) -> list[SessionEvent]:
        """Takes bytes that arrived at host time ``t_rx``; returns what they mean."""
        events: list[SessionEvent] = []
        self._codec.receive_data(data)
        while isinstance(frame := self._codec.next_frame(), P.Frame):
            self.last_rx = t_rx
            self.counters.frames += 1
            events += self._on_frame(frame, t_rx)
        return events

    def _on_frame(self, frame: P.Frame, t_rx: float) -> list[SessionEvent]:
        msg = frame.message
        if isinstance(msg, P.Edges):
            return self._on_edges(frame.seq, msg, t_rx)
        if isinstance(msg, P.Heartbeat):
            return self._on_heartbeat(frame.seq, msg, t_rx)
        if isinstance(msg, P.SyncReply):
            if (rtt := self.clock.answer(msg, t_rx)) is None:
                return []
            self.counters.rtts.append(rtt)
            del self.counters.rtts[:-256]
            return [SyncAnswered(msg.nonce)]
        if isinstance(msg, P.Hello):
            return [self._on_hello(msg)]
        if isinstance(msg, P.Losses):
            self._on_losses(msg)
        elif isinstance(msg, P.Ack):
            return [Answered(msg.ref)]
        elif isinstance(msg, P.Error):
            return [Answered(msg.ref, ConfigRejected(msg.code, msg.reason))]
        return []

    def _on_heartbeat(self, seq: int, msg: P.Heartbeat, t_rx: float) -> list[SessionEvent]:
        tick = self.clock.unwrap.unwrap(msg.tick)
        self._send(self.edges.heard(seq, msg.sent, t_rx, self.source))
        overflows, blind = self._board
        if msg.overflows > overflows:
            self.counters.overflows += msg.overflows - overflows
            log.warning("board %s lost %d edges (buffer full)", self.source,
                        msg.overflows - overflows)
        if msg.blind > blind:
            self.counters.blind_spells += msg.blind - blind
            log.warning("board %s had interrupts off for %.1f ms (flash write): edges in that "
                        "spell were timed late", self.source, msg.blind_us / 1e3)
        self._board = (msg.overflows, msg.blind)
        if self.edges.settled(msg.edges):
            assert self.info is not None
            return list(self.edges.readings(tick, msg.levels, self.info.channels, self.names,
                                            self.source))
        return []

    def _on_losses(self, msg: P.Losses) -> None:
        """Notes, per channel, the edges the board lost (full buffer) or held back (chatter)."""
        for loss in msg.losses:
            name = self.names.get(loss.ch, f"channel {loss.ch}")
            now = (loss.overflows, loss.throttled)
            if now != self.losses.get(name, (0, 0)):
                log.warning("board %s: %s lost %d edges (buffer full), %d held back (chatter)",
                            self.source, name, loss.overflows, loss.throttled)
            self.losses[name] = now

    def _on_hello(self, msg: P.Hello) -> HelloHeard:
        self.info = BoardInfo(msg.uid, msg.firmware, msg.protocol, msg.boot_id, msg.tick_bits,
                              tuple((c.index, c.name, P.MODE_NAMES[c.mode]
                                     if c.mode < len(P.MODE_NAMES) else "?", c.pin)
                                    for c in msg.channels))
        self.names = channel_names(msg, self._overrides)
        restarted_from = None
        if self.boot_id != msg.boot_id:
            if self.boot_id is not None and self._heard:
                restarted_from = self.boot_id  # under this very connection
            self.boot_id = msg.boot_id
            self.losses.clear()
            self.clock.fit.reset()  # the ticks start over
            # and the gate closes until a fresh fit: edges of the new boot wait in pending
            # (the link starts the connection over, which fits the clock and opens it again)
            self.edges.restart()
            self._board = (0, 0)
        if msg.tick_bits in range(P.MIN_TICK_BITS, P.TICK_BITS + 1):
            self.clock.unwrap = TickUnwrapper(msg.tick_bits)
        self._heard = True
        return HelloHeard(msg, restarted_from)

    def _on_edges(self, seq: int, msg: P.Edges, t_rx: float) -> list[SessionEvent]:
        self._send(self.edges.take(seq, msg, t_rx, self.source))
        return list(self.edges.flush(self.names, self.source))

    def _send(self, ack: P.Ack | None) -> None:
        """Queues ``ack`` for the board (None: nothing)."""
        if ack is not None:
            self._out += self._codec.encode(ack)
