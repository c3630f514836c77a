"""Every byte sequence into ``BoardSession`` is handled or counted as an error (issue 38
item 6): 100,000 fuzzed frames from a seeded generator, sound ones (every message a board
sends, and those it never sends, fields drawn at random: new boot ids, edges far ahead or
behind, ticks anywhere) and broken ones (a byte changed, cut short, noise, an unknown type,
another protocol version), fed in chunks cut anywhere, with the session driven as the link
drives it (a sync exchange, then the gate opened; a restart under the line, a new
connection). Nothing escapes, and every frame is either decoded or counted."""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.session import BoardSession, HelloHeard, SessionEvent, SyncAnswered
from hardware import SensorEvent

FRAMES = 100_000
TICKS = range(P.MIN_TICK_BITS, P.TICK_BITS + 1)  # the tick widths the link accepts
SEED = 38
CHANNELS = (P.ChannelInfo(0, "beam.hl", P.MODE_DIGITAL, 2),
            P.ChannelInfo(1, "beam.hr", P.MODE_DIGITAL, 3),
            P.ChannelInfo(2, "knock", P.MODE_PIEZO, 26),
            P.ChannelInfo(3, "no such channel", 7, 4))


def _hello(rng: random.Random) -> P.Hello:
    channels = rng.choice((CHANNELS, CHANNELS[:2], ()))
    return P.Hello(P.PROTOCOL_VERSION, rng.choice(("0.2.0", "0.2.0+defaults", "")), "board-a",
                   rng.choice((1, 1, 2, rng.getrandbits(32))),
                   rng.choice((P.TICK_BITS, 30, 16, 8, 0, 255)), channels)


def _edges(rng: random.Random, near: int) -> P.Edges:
    first = max(0, min(0xFFFFFFFF, near + rng.choice((0, 0, 0, -3, 1, 5, 1 << 20))))
    first = rng.choice((first, rng.getrandbits(32)))
    edges = tuple(P.Edge(rng.randrange(6), rng.randrange(2),
                         rng.choice((rng.getrandbits(64), rng.getrandbits(24), 0)),
                         rng.choice((P.NO_LEVEL, rng.getrandbits(16))))
                  for _ in range(rng.randrange(P.MAX_EDGES + 1)))
    return P.Edges(first, edges)


def _heartbeat(rng: random.Random, near: int) -> P.Heartbeat:
    def u32() -> int:
        return rng.choice((0, near, near + 1, rng.getrandbits(32)))
    return P.Heartbeat(rng.getrandbits(rng.choice((24, 64))), u32(), u32(), u32(),
                       rng.getrandbits(32), u32(), rng.getrandbits(64), rng.getrandbits(32))


def _message(rng: random.Random, near: int) -> P.BoardMessage:
    kind = rng.randrange(10)
    if kind == 0:
        return _hello(rng)
    if kind in (1, 2, 3):
        return _edges(rng, near)
    if kind in (4, 5):
        return _heartbeat(rng, near)
    if kind == 6:
        return P.SyncReply(rng.getrandbits(32), rng.getrandbits(64), rng.getrandbits(64))
    if kind == 7:
        return P.Losses(tuple(P.Loss(rng.randrange(256), rng.getrandbits(32), rng.getrandbits(32))
                              for _ in range(rng.randrange(4))))
    if kind == 8:
        return rng.choice((P.Ack(rng.getrandbits(16), rng.getrandbits(32), rng.randrange(2)),
                           P.Error(rng.getrandbits(16), rng.randrange(256), "no")))
    # what only a host sends, from the board: handled by ignoring it
    return rng.choice((P.SyncRequest(rng.getrandbits(32)),
                       P.ChannelConfig(rng.randrange(8), "beam.hl", P.MODE_DIGITAL, 2)))


def _nonzero(rng: random.Random, n: int) -> bytes:
    return bytes(rng.randrange(1, 256) for _ in range(n))


def _broken(rng: random.Random, wire: bytes) -> bytes:
    """Returns ``wire`` (one frame, its delimiter last) made into one chunk that is no frame:
    no 0x00 inside, so the codec sees exactly one bad frame."""
    body = wire[:-1]
    how = rng.randrange(5)
    if how == 0:  # a byte changed (CRC-32 catches it)
        i = rng.randrange(len(body))
        body = body[:i] + bytes([body[i] % 255 + 1]) + body[i + 1:]
    elif how == 1:  # cut short
        body = body[:rng.randrange(1, len(body))]
    elif how == 2:  # noise
        body = _nonzero(rng, rng.randrange(1, 64))
    elif how == 3:  # CRC-valid, of a type no one knows
        raw = struct.pack("<BBH", P.PROTOCOL_VERSION, rng.randrange(50, 255), 0) + b"\x01\x02"
        body = P.cobs_encode(raw + struct.pack("<I", P.crc32(raw)))
    else:  # CRC-valid, a body that does not parse (an Edges frame cut in its middle)
        raw = struct.pack("<BBHIB", P.PROTOCOL_VERSION, P.Edges.TYPE, 0, 0, 3) + b"\x00" * 5
        body = P.cobs_encode(raw + struct.pack("<I", P.crc32(raw)))
    return body + b"\x00"


@dataclass(slots=True)
class Driver:
    """Drives a session as ``firmware_bridge.link`` does: a connection says Hello and opens
    the gate once a sync reply has fitted the clock; a restart under the line starts a new
    connection."""

    session: BoardSession
    board: P.Codec
    now: float = 0.0
    heard: bool = False  # a Hello was heard on this connection (the link syncs after it)
    ended: bool = False  # the link would end this connection (once the bytes read are read)

    def feed(self, data: bytes) -> list[SessionEvent]:
        self.now += 0.001
        events = self.session.receive_data(data, self.now)
        self.session.data_to_send()  # acks and resend requests go nowhere here
        for event in events:
            if isinstance(event, HelloHeard):
                if event.restarted_from is not None or event.hello.tick_bits not in TICKS:
                    self.ended = True  # the link ends the connection and starts another
                else:
                    self.heard = True
            elif isinstance(event, SyncAnswered) and self.heard and self.session.clock.fit.ready:
                events += self.session.deliver()
        return events

    def reconnect(self) -> None:
        self.heard = self.ended = False
        self.session.disconnect()
        self.session.connect(self.now)
        self.session.hello(host_boot=1)
        self.session.data_to_send()

    def sync_reply(self, rng: random.Random) -> bytes:
        """Returns the board's reply to a sync request the session has just sent."""
        nonce = self.session.sync(self.now)
        self.session.data_to_send()
        tick = int(self.now * 1e6) + rng.randrange(1000)
        return self.board.encode(P.SyncReply(nonce, tick, tick + 20))


@pytest.mark.untraced  # 100,000 random frames: the example tests cover the session's lines
@pytest.mark.timeout(600)  # CPU alone (6 s quiet): 120 s ran out on a load average of 20
def test_fuzzed_frames_are_handled_or_counted_and_nothing_escapes() -> None:
    rng = random.Random(SEED)
    session, board = BoardSession(max_pending=256), P.Codec()
    driver = Driver(session, board)
    driver.reconnect()
    stream = bytearray()
    sound = broken = foreign = 0
    for _ in range(FRAMES):
        roll = rng.random()
        if roll < 0.05:
            stream += driver.sync_reply(rng)
            sound += 1
            continue
        wire = board.encode(_message(rng, session.counters.edges))
        if roll < 0.70:
            stream += wire
            sound += 1
        elif roll < 0.75:  # sound, in another protocol version: counted apart
            raw = P.cobs_decode(wire[:-1])
            assert raw is not None
            other = bytes([P.PROTOCOL_VERSION + 1]) + raw[1:-4]
            stream += P.cobs_encode(other + struct.pack("<I", P.crc32(other))) + b"\x00"
            foreign += 1
        else:
            stream += _broken(rng, wire)
            broken += 1
        if len(stream) > 4096 or rng.random() < 0.1:
            while stream:  # cut anywhere, fed as the port would hand it over
                cut = rng.randrange(1, 600)
                driver.feed(bytes(stream[:cut]))
                del stream[:cut]
            if driver.ended:  # between frames: no frame is cut in two by the new connection
                driver.reconnect()
    driver.feed(bytes(stream))
    session.disconnect()
    counters = session.counters
    assert counters.frames == sound
    assert counters.bad_frames == broken
    assert foreign > 1000  # (frames of another version: skipped, neither decoded nor bad)
    assert counters.edges > 1000  # the gate was open for much of it: edges went through



def test_edges_of_a_new_boot_before_a_sync_wait_for_the_next_fit() -> None:
    """The fuzz's first find: a restart under a delivering line, then edges before any sync
    (the clock fit was reset) raised LookupError; they wait, and come out with their own
    time once the new connection has fitted the clock."""
    session, board = BoardSession(), P.Codec()
    session.connect(0.0)
    channels = CHANNELS[:1]
    session.receive_data(board.encode(P.Hello(P.PROTOCOL_VERSION, "0.2.0", "a", 1, 64, channels)),
                         0.1)
    nonce = session.sync(0.2)
    session.receive_data(board.encode(P.SyncReply(nonce, 200_000, 200_000)), 0.2)
    assert session.deliver() == []
    reboot = board.encode(P.Hello(P.PROTOCOL_VERSION, "0.2.0", "a", 2, 64, channels))
    kept = board.encode(P.Edges(0, (P.Edge(0, 1, 5_000),)))
    [heard] = session.receive_data(reboot + kept, 0.3)
    assert isinstance(heard, HelloHeard) and heard.restarted_from == 1
    session.disconnect()
    session.connect(0.4)
    nonce = session.sync(0.5)
    session.receive_data(board.encode(P.SyncReply(nonce, 100_000, 100_000)), 0.5)
    [edge] = session.deliver()
    assert isinstance(edge, SensorEvent) and (edge.ch, edge.v) == ("beam.hl", 1)
    assert round(edge.t, 6) == 0.405  # the board's tick 5 000 µs, 95 ms before the sync
