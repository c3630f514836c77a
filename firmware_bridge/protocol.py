"""The serial sensor-board protocol: a sans-I/O frame codec (like h11), no I/O inside.

This one file runs on the host (CPython) and on the board (MicroPython on the RP2040), so it
keeps to the subset both understand: no dataclasses, enums, typing imports or f-strings with
format specs; annotations are only ever builtins or classes of this file.

A frame on the wire is COBS-encoded and ends with one 0x00 byte::

    version:u8 | type:u8 | seq:u16 | body | crc32:u32      (little endian; CRC over the rest)

``Codec.receive_data(bytes)`` buffers bytes; ``Codec.next_frame()`` returns the next good
``Frame`` or ``NEED_DATA``. A frame that is too long, does not COBS-decode, fails its CRC, has
another version or an unknown type, or whose body does not parse is counted in
``bad_frames`` and skipped; decoding resumes after the next delimiter. A frame whose ``seq``
is not the one after the previous frame's counts one ``sequence_gaps``; a ``Hello`` with a
new ``boot_id`` resets that tracking. ``Codec.encode(message)`` returns the bytes of one
frame, numbered with the codec's own outgoing ``seq``.

A frame of another protocol version is not a bad frame: it is counted in
``version_mismatches`` (``peer_version`` says which version the peer speaks, ``foreign_seq``
the frame's seq) and skipped, so that either end can say *why* they do not understand each
other. The header and the ``Error`` body are the same in every version, so an ``Error`` sent
with the peer's version (``encode_frame(seq, message, version)``) reaches an older peer.

Ticks: every tick on the wire is a u64 count of microseconds since the board booted
(``TICK_BITS`` = 64: it never wraps in practice). The RP2040's own ``time.ticks_us()`` is
30 bits wide and wraps every ~17.9 minutes, so the board extends it (it counts wraps in its
main loop) before an edge is sent: an edge kept for an hour while no host listened still
comes out with its own time, never in the future. ``Hello.tick_bits`` announces the width;
the host unwraps ticks with it (a board announcing fewer bits gets unwrapped).

Every ``pack`` checks its fields' ranges explicitly (MicroPython's ``struct.pack`` does
not: ``struct.pack("<H", 70000)`` silently encodes 4464) and raises ValueError.

Messages (``TYPE`` codes):
    Hello      1  both ways: protocol and firmware version, board id, boot id, tick width, channels
    Edges      2  board: several timestamped edges, numbered from ``first``
    Heartbeat  3  board: tick now, edges counted, overflows, next edge to send, the digital
                  channels' levels, and the blind spells (flash writes with interrupts off)
    SyncRequest 4 host: a time-sync probe (nonce)
    SyncReply  5  board: the nonce, tick on receipt, tick on sending
    ChannelConfig 6 host: configure one channel
    Ack        7  both ways: host acknowledges edges below ``edges`` (or asks for them again);
                  board acknowledges a frame
    Error      8  board: a request was refused
    Losses     9  board: per channel, the edges lost to a full buffer and those held back
                  because the channel chattered (sent when they change; a host that does not
                  know the type counts a bad frame and goes on)

A board whose saved configuration was refused at boot runs its default channels and says so:
its ``Hello.firmware`` ends in ``DEFAULTS_MARK``.
"""

import struct

try:
    from binascii import crc32 as _crc32
except ImportError:  # pragma: no cover - a MicroPython build without CRC-32
    _crc32 = None  # type: ignore[assignment]

PROTOCOL_VERSION = 2
TICK_BITS = 64
TICK_MASK = (1 << TICK_BITS) - 1
MIN_TICK_BITS = 16  # a Hello announcing narrower ticks than this is refused
MAX_FRAME = 1024  # largest decoded frame (header + body + CRC) sent or accepted
MAX_EDGES = 32  # edges per Edges frame

MODE_OFF = 0
MODE_DIGITAL = 1
MODE_PIEZO = 2
MODE_NAMES = ("off", "digital", "piezo")

ERR_BAD_CHANNEL = 1
ERR_BAD_PIN = 2
ERR_BAD_REQUEST = 3
ERR_PROTOCOL = 4  # the frame's protocol version is not the receiver's

NO_LEVEL = -1
DEFAULTS_MARK = "+defaults"  # ends Hello.firmware: the saved configuration was refused

_STRUCT_ERROR = getattr(struct, "error", ValueError)  # MicroPython raises ValueError


def crc32(data: bytes) -> int:
    """Returns the CRC-32 (IEEE 802.3, as zlib) of ``data``."""
    if _crc32 is not None:
        return int(_crc32(data)) & 0xFFFFFFFF
    crc = 0xFFFFFFFF  # pragma: no cover - fallback for boards without binascii.crc32
    for byte in data:  # pragma: no cover
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return crc ^ 0xFFFFFFFF  # pragma: no cover


def cobs_encode(data: bytes) -> bytes:
    """Returns ``data`` COBS-encoded (no zero byte in the result, no delimiter appended)."""
    out = bytearray()
    code_at = 0
    out.append(0)
    code = 1
    for byte in data:
        if byte:
            out.append(byte)
            code += 1
        if not byte or code == 0xFF:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes | None:
    """Returns the decoded bytes, or None if ``data`` is not valid COBS."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if code == 0 or end > n:
            return None
        for j in range(i + 1, end):
            if data[j] == 0:
                return None
            out.append(data[j])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def check(value: int, bits: int, name: str) -> int:
    """Returns ``value`` if it fits an unsigned field of ``bits`` bits; raises ValueError."""
    if not 0 <= value < (1 << bits):
        raise ValueError(name + " out of range: " + str(value))
    return value


def _put_str(out: bytearray, text: str) -> None:
    raw = text.encode()
    if len(raw) > 255:
        raise ValueError("string longer than 255 bytes")
    out.append(len(raw))
    out.extend(raw)


class _Reader:
    """Reads fields from a body; raises ValueError when the body is too short."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.at = 0

    def take(self, fmt: str) -> tuple[int, ...]:
        size = struct.calcsize(fmt)
        if self.at + size > len(self.body):
            raise ValueError("body too short")
        values = struct.unpack(fmt, self.body[self.at : self.at + size])
        self.at += size
        return values

    def string(self) -> str:
        (size,) = self.take("<B")
        if self.at + size > len(self.body):
            raise ValueError("body too short")
        raw = self.body[self.at : self.at + size]
        self.at += size
        return raw.decode()

    def end(self) -> None:
        if self.at != len(self.body):
            raise ValueError("trailing bytes in body")


class BoardMessage:
    """Common behaviour of messages: equality and repr over the fields in ``FIELDS``."""

    TYPE = 0
    FIELDS: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return False
        return all(getattr(self, name) == getattr(other, name) for name in self.FIELDS)

    def __hash__(self) -> int:
        return hash(tuple([getattr(self, name) for name in self.FIELDS]))

    def __repr__(self) -> str:
        parts = [name + "=" + repr(getattr(self, name)) for name in self.FIELDS]
        return type(self).__name__ + "(" + ", ".join(parts) + ")"

    def pack(self) -> bytes:
        """Returns the body bytes."""
        raise NotImplementedError

    @staticmethod
    def unpack(body: bytes) -> "BoardMessage":
        """Returns the message a body encodes; raises ValueError if it does not parse."""
        raise NotImplementedError


class ChannelInfo(BoardMessage):
    """One board channel: its index, its interfaces §2 name, its mode and pin."""

    FIELDS = ("index", "name", "mode", "pin")

    def __init__(self, index: int, name: str, mode: int = MODE_DIGITAL, pin: int = 0) -> None:
        self.index = index
        self.name = name
        self.mode = mode
        self.pin = pin


class Hello(BoardMessage):
    """Who is talking: versions, board id, boot id, tick width and the channel map."""

    TYPE = 1
    FIELDS = ("protocol", "firmware", "uid", "boot_id", "tick_bits", "channels")

    def __init__(
        self,
        protocol: int,
        firmware: str,
        uid: str,
        boot_id: int,
        tick_bits: int = TICK_BITS,
        channels: tuple[ChannelInfo, ...] = (),
    ) -> None:
        self.protocol = protocol
        self.firmware = firmware
        self.uid = uid
        self.boot_id = boot_id
        self.tick_bits = tick_bits
        self.channels = tuple(channels)

    def pack(self) -> bytes:
        out = bytearray(struct.pack("<B", check(self.protocol, 8, "protocol")))
        _put_str(out, self.firmware)
        _put_str(out, self.uid)
        out.extend(struct.pack("<IBB", check(self.boot_id, 32, "boot_id"),
                               check(self.tick_bits, 8, "tick_bits"),
                               check(len(self.channels), 8, "channel count")))
        for ch in self.channels:
            out.extend(struct.pack("<BBB", check(ch.index, 8, "channel"),
                                   check(ch.mode, 8, "mode"), check(ch.pin, 8, "pin")))
            _put_str(out, ch.name)
        return bytes(out)

    @staticmethod
    def unpack(body: bytes) -> "Hello":
        r = _Reader(body)
        (protocol,) = r.take("<B")
        firmware = r.string()
        uid = r.string()
        boot_id, tick_bits, count = r.take("<IBB")
        channels = []
        for _ in range(count):
            index, mode, pin = r.take("<BBB")
            channels.append(ChannelInfo(index, r.string(), mode, pin))
        r.end()
        return Hello(protocol, firmware, uid, boot_id, tick_bits, tuple(channels))


class Edge(BoardMessage):
    """One timestamped edge: channel index, value 0/1, tick (µs since boot), raw level
    (0–65535) or NO_LEVEL."""

    FIELDS = ("ch", "v", "tick", "level")

    def __init__(self, ch: int, v: int, tick: int, level: int = NO_LEVEL) -> None:
        self.ch = ch
        self.v = v
        self.tick = tick
        self.level = level


class Edges(BoardMessage):
    """Edges numbered ``first``, ``first + 1``, … in the order the board saw them."""

    TYPE = 2
    FIELDS = ("first", "edges")

    def __init__(self, first: int, edges: tuple[Edge, ...]) -> None:
        self.first = first
        self.edges = tuple(edges)

    def pack(self) -> bytes:
        if len(self.edges) > MAX_EDGES:
            raise ValueError("too many edges in one frame")
        out = bytearray(struct.pack("<IB", check(self.first, 32, "first"), len(self.edges)))
        for e in self.edges:
            if e.v not in (0, 1) or e.level < NO_LEVEL:
                raise ValueError("bad edge value or level")
            flags = e.v | (0 if e.level == NO_LEVEL else 2)
            out.extend(struct.pack("<BBQH", check(e.ch, 8, "channel"), flags,
                                   check(e.tick, TICK_BITS, "tick"),
                                   check(max(e.level, 0), 16, "level")))
        return bytes(out)

    @staticmethod
    def unpack(body: bytes) -> "Edges":
        r = _Reader(body)
        first, count = r.take("<IB")
        if count > MAX_EDGES:
            raise ValueError("too many edges")
        edges = []
        for _ in range(count):
            ch, flags, tick, level = r.take("<BBQH")
            if flags & ~3:
                raise ValueError("bad edge")
            edges.append(Edge(ch, flags & 1, tick, level if flags & 2 else NO_LEVEL))
        r.end()
        return Edges(first, tuple(edges))


class Heartbeat(BoardMessage):
    """The board is alive: its tick now, edges counted since boot (``edges``), edges lost to
    overflow, the number of the next edge it will send (every edge below it is on the wire),
    ``levels`` (bit *i*: digital channel *i* reads 1, after edge ``edges - 1``) and its blind
    spells: ``blind`` counted since boot, the latest from ``blind_tick`` for ``blind_us``
    (a configuration written to flash stops every interrupt: an edge in it comes late)."""

    TYPE = 3
    FIELDS = ("tick", "edges", "overflows", "sent", "levels", "blind", "blind_tick", "blind_us")

    def __init__(
        self, tick: int, edges: int, overflows: int, sent: int = 0, levels: int = 0,
        blind: int = 0, blind_tick: int = 0, blind_us: int = 0,
    ) -> None:
        self.tick = tick
        self.edges = edges
        self.overflows = overflows
        self.sent = sent
        self.levels = levels
        self.blind = blind
        self.blind_tick = blind_tick
        self.blind_us = blind_us

    def pack(self) -> bytes:
        return struct.pack(
            "<QIIIIIQI", check(self.tick, TICK_BITS, "tick"), check(self.edges, 32, "edges"),
            check(self.overflows, 32, "overflows"), check(self.sent, 32, "sent"),
            check(self.levels, 32, "levels"), check(self.blind, 32, "blind"),
            check(self.blind_tick, TICK_BITS, "blind_tick"), check(self.blind_us, 32, "blind_us"),
        )

    @staticmethod
    def unpack(body: bytes) -> "Heartbeat":
        r = _Reader(body)
        fields = r.take("<QIIIIIQI")
        r.end()
        return Heartbeat(*fields)


class SyncRequest(BoardMessage):
    """A time-sync probe from the host."""

    TYPE = 4
    FIELDS = ("nonce",)

    def __init__(self, nonce: int) -> None:
        self.nonce = nonce

    def pack(self) -> bytes:
        return struct.pack("<I", check(self.nonce, 32, "nonce"))

    @staticmethod
    def unpack(body: bytes) -> "SyncRequest":
        r = _Reader(body)
        (nonce,) = r.take("<I")
        r.end()
        return SyncRequest(nonce)


class SyncReply(BoardMessage):
    """The board's answer to a probe: tick when it was received, tick when this was sent."""

    TYPE = 5
    FIELDS = ("nonce", "received", "sent")

    def __init__(self, nonce: int, received: int, sent: int) -> None:
        self.nonce = nonce
        self.received = received
        self.sent = sent

    def pack(self) -> bytes:
        return struct.pack("<IQQ", check(self.nonce, 32, "nonce"),
                           check(self.received, TICK_BITS, "received"),
                           check(self.sent, TICK_BITS, "sent"))

    @staticmethod
    def unpack(body: bytes) -> "SyncReply":
        r = _Reader(body)
        nonce, received, sent = r.take("<IQQ")
        r.end()
        return SyncReply(nonce, received, sent)


class ChannelConfig(BoardMessage):
    """Configure one channel: its name, mode, pin, debounce, piezo threshold and mask time."""

    TYPE = 6
    FIELDS = ("ch", "name", "mode", "pin", "debounce_us", "threshold", "mask_us")

    def __init__(
        self,
        ch: int,
        name: str,
        mode: int = MODE_DIGITAL,
        pin: int = 0,
        debounce_us: int = 0,
        threshold: int = 0,
        mask_us: int = 0,
    ) -> None:
        self.ch = ch
        self.name = name
        self.mode = mode
        self.pin = pin
        self.debounce_us = debounce_us
        self.threshold = threshold
        self.mask_us = mask_us

    def pack(self) -> bytes:
        out = bytearray(struct.pack("<BBB", check(self.ch, 8, "channel"),
                                    check(self.mode, 8, "mode"), check(self.pin, 8, "pin")))
        out.extend(struct.pack("<IHI", check(self.debounce_us, 32, "debounce_us"),
                               check(self.threshold, 16, "threshold"),
                               check(self.mask_us, 32, "mask_us")))
        _put_str(out, self.name)
        return bytes(out)

    @staticmethod
    def unpack(body: bytes) -> "ChannelConfig":
        r = _Reader(body)
        ch, mode, pin = r.take("<BBB")
        debounce_us, threshold, mask_us = r.take("<IHI")
        name = r.string()
        r.end()
        return ChannelConfig(ch, name, mode, pin, debounce_us, threshold, mask_us)


class Ack(BoardMessage):
    """Acknowledges frame ``ref`` and, from the host, every edge numbered below ``edges``;
    with ``resend`` the host also asks for every edge from ``edges`` on again (some were lost)."""

    TYPE = 7
    FIELDS = ("ref", "edges", "resend")

    def __init__(self, ref: int, edges: int = 0, resend: int = 0) -> None:
        self.ref = ref
        self.edges = edges
        self.resend = resend

    def pack(self) -> bytes:
        return struct.pack("<HIB", check(self.ref, 16, "ref"), check(self.edges, 32, "edges"),
                           check(self.resend, 1, "resend"))

    @staticmethod
    def unpack(body: bytes) -> "Ack":
        r = _Reader(body)
        ref, edges, resend = r.take("<HIB")
        r.end()
        if resend > 1:
            raise ValueError("bad flag")
        return Ack(ref, edges, resend)


class Error(BoardMessage):
    """A request (frame ``ref``) was refused: an ``ERR_*`` code and a reason."""

    TYPE = 8
    FIELDS = ("ref", "code", "reason")

    def __init__(self, ref: int, code: int, reason: str) -> None:
        self.ref = ref
        self.code = code
        self.reason = reason

    def pack(self) -> bytes:
        out = bytearray(struct.pack("<HB", check(self.ref, 16, "ref"), check(self.code, 8, "code")))
        _put_str(out, self.reason)
        return bytes(out)

    @staticmethod
    def unpack(body: bytes) -> "Error":
        r = _Reader(body)
        ref, code = r.take("<HB")
        reason = r.string()
        r.end()
        return Error(ref, code, reason)


class Loss(BoardMessage):
    """One channel's losses since boot: edges lost to a full buffer (``overflows``) and
    edges held back because the channel chattered (``throttled``)."""

    FIELDS = ("ch", "overflows", "throttled")

    def __init__(self, ch: int, overflows: int = 0, throttled: int = 0) -> None:
        self.ch = ch
        self.overflows = overflows
        self.throttled = throttled


class Losses(BoardMessage):
    """The channels that lost edges or had them held back, since boot (at most 32)."""

    TYPE = 9
    FIELDS = ("losses",)

    def __init__(self, losses: tuple[Loss, ...]) -> None:
        self.losses = tuple(losses)

    def pack(self) -> bytes:
        if len(self.losses) > 32:
            raise ValueError("too many channels")
        out = bytearray(struct.pack("<B", len(self.losses)))
        for x in self.losses:
            out.extend(struct.pack("<BII", check(x.ch, 8, "channel"),
                                   check(x.overflows, 32, "overflows"),
                                   check(x.throttled, 32, "throttled")))
        return bytes(out)

    @staticmethod
    def unpack(body: bytes) -> "Losses":
        r = _Reader(body)
        (count,) = r.take("<B")
        if count > 32:
            raise ValueError("too many channels")
        losses = []
        for _ in range(count):
            ch, overflows, throttled = r.take("<BII")
            losses.append(Loss(ch, overflows, throttled))
        r.end()
        return Losses(tuple(losses))


#: Every message type by its code: the one table the decoder consults.
MESSAGES: dict[int, type[BoardMessage]] = {
    Hello.TYPE: Hello,
    Edges.TYPE: Edges,
    Heartbeat.TYPE: Heartbeat,
    SyncRequest.TYPE: SyncRequest,
    SyncReply.TYPE: SyncReply,
    ChannelConfig.TYPE: ChannelConfig,
    Ack.TYPE: Ack,
    Error.TYPE: Error,
    Losses.TYPE: Losses,
}


class Frame:
    """One decoded frame: its sequence number and its message."""

    def __init__(self, seq: int, message: BoardMessage) -> None:
        self.seq = seq
        self.message = message

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Frame) and other.seq == self.seq and other.message == self.message

    def __hash__(self) -> int:
        return hash((self.seq, self.message))

    def __repr__(self) -> str:
        return "Frame(seq=" + str(self.seq) + ", message=" + repr(self.message) + ")"


class NeedData:
    """The sentinel type of ``NEED_DATA``: no complete frame is buffered yet."""

    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA = NeedData()


def _find_zero(buf: bytearray, start: int) -> int:
    try:
        return buf.find(b"\x00", start)
    except AttributeError:  # pragma: no cover - MicroPython without bytearray.find
        for i in range(start, len(buf)):
            if buf[i] == 0:
                return i
        return -1


class Codec:
    """One end of a link: decodes received bytes into frames and encodes outgoing messages.

    Counters: ``frames`` (good frames decoded), ``bad_frames``, ``sequence_gaps``,
    ``version_mismatches`` (sound frames of another protocol version: ``peer_version`` is
    that version, ``foreign_seq`` the last one's seq). ``boot_id`` is the peer's, from its
    last ``Hello``.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buf = bytearray()
        self._scanned = 0
        self._max_encoded = max_frame + max_frame // 254 + 2
        self._dropping = False
        self._tx_seq = 0
        self._rx_seq = -1
        self.boot_id = -1
        self.frames = 0
        self.bad_frames = 0
        self.sequence_gaps = 0
        self.version_mismatches = 0
        self.peer_version = PROTOCOL_VERSION
        self.foreign_seq = 0

    def receive_data(self, data: bytes) -> None:
        """Buffers received bytes; decode them with ``next_frame``."""
        self._buf.extend(data)

    def next_frame(self) -> Frame | NeedData:
        """Returns the next good frame, or NEED_DATA when no complete frame is buffered."""
        while True:
            end = _find_zero(self._buf, self._scanned)
            if end < 0:
                if len(self._buf) > self._max_encoded:
                    # Too long to be a frame: drop it and everything up to the next delimiter.
                    if not self._dropping:
                        self.bad_frames += 1
                        self._dropping = True
                    self._buf = bytearray()
                self._scanned = len(self._buf)
                return NEED_DATA
            chunk = bytes(self._buf[:end])
            self._buf = self._buf[end + 1 :]
            self._scanned = 0
            if self._dropping:
                self._dropping = False
                continue
            if not chunk:
                continue  # an empty frame: a delimiter sent to resync the line
            frame = self._decode(chunk)
            if frame is None:
                self.bad_frames += 1
                continue
            if isinstance(frame, Frame):
                return frame

    def _decode(self, chunk: bytes) -> Frame | NeedData | None:
        """Returns the frame, NEED_DATA for a frame of another version (counted), None if
        the chunk is not a frame."""
        if len(chunk) > self._max_encoded:
            return None
        raw = cobs_decode(chunk)
        if raw is None or len(raw) < 8:
            return None
        if crc32(raw[:-4]) != struct.unpack("<I", raw[-4:])[0]:
            return None
        version, kind, seq = struct.unpack("<BBH", raw[:4])
        if version != PROTOCOL_VERSION:
            # Sound (its CRC holds) but in another version: not noise, a peer to update.
            self.version_mismatches += 1
            self.peer_version = version
            self.foreign_seq = seq
            return NEED_DATA
        cls = MESSAGES.get(kind)
        if cls is None:
            return None
        try:
            message = cls.unpack(raw[4:-4])
        except (ValueError, UnicodeError):
            return None
        if isinstance(message, Hello) and message.boot_id != self.boot_id:
            self.boot_id = message.boot_id
            self._rx_seq = -1
        if self._rx_seq >= 0 and seq != (self._rx_seq + 1) & 0xFFFF:
            self.sequence_gaps += 1
        self._rx_seq = seq
        self.frames += 1
        return Frame(seq, message)

    def encode(self, message: BoardMessage, version: int = PROTOCOL_VERSION) -> bytes:
        """Returns the wire bytes of one frame carrying ``message`` (delimiter included);
        ``version`` other than ours only for an ``Error`` to a peer of another version.

        Raises ValueError if the message cannot be encoded (a field out of range).
        """
        wire = encode_frame(self._tx_seq, message, version)
        self._tx_seq = (self._tx_seq + 1) & 0xFFFF
        return wire

    @property
    def next_seq(self) -> int:
        """Returns the seq the next encoded frame will carry."""
        return self._tx_seq


def encode_frame(seq: int, message: BoardMessage, version: int = PROTOCOL_VERSION) -> bytes:
    """Returns the wire bytes of one frame (delimiter included).

    Raises ValueError if a field is out of range.
    """
    try:
        raw = struct.pack("<BBH", check(version, 8, "version"), message.TYPE,
                          check(seq, 16, "seq")) + message.pack()
    except (OverflowError, _STRUCT_ERROR) as exc:
        raise ValueError(str(exc)) from exc
    raw = raw + struct.pack("<I", crc32(raw))
    if len(raw) > MAX_FRAME:
        raise ValueError("frame longer than MAX_FRAME")
    return cobs_encode(raw) + b"\x00"
