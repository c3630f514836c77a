"""The frame codec, fed bytes: whole, byte by byte, in random chunks, corrupted and random."""

from __future__ import annotations

import ast
import random
import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol as P

CHANNELS = (P.ChannelInfo(0, "beam.hl", P.MODE_DIGITAL, 2), P.ChannelInfo(13, "click", P.MODE_PIEZO, 26))
SAMPLES: list[P.BoardMessage] = [
    P.Hello(P.PROTOCOL_VERSION, "0.2.0", "e6614103e7000001", 0xDEADBEEF, 64, CHANNELS),
    P.Edges(7, (P.Edge(0, 1, 123, P.NO_LEVEL), P.Edge(13, 1, P.TICK_MASK, 0xFFFF))),
    P.Heartbeat(1 << 40, 12, 0, 11, 0b101, 2, (1 << 40) - 5000, 4321),
    P.SyncRequest(0xFFFFFFFF),
    P.SyncReply(3, 0, P.TICK_MASK),
    P.ChannelConfig(4, "beam.fl", P.MODE_DIGITAL, 6, 300, 0, 0),
    P.Ack(65535, 99, 1),
    P.Error(12, P.ERR_BAD_PIN, "not an ADC pin"),
]


def decode_all(codec: P.Codec) -> list[P.Frame]:
    out = []
    while isinstance(frame := codec.next_frame(), P.Frame):
        out.append(frame)
    return out


def stream(messages: list[P.BoardMessage]) -> bytes:
    codec = P.Codec()
    return b"".join(codec.encode(m) for m in messages)


# -- messages and framing -------------------------------------------------------------------


@pytest.mark.parametrize("message", SAMPLES, ids=lambda m: type(m).__name__)
def test_every_message_type_survives_encode_then_decode(message: P.BoardMessage) -> None:
    codec = P.Codec()
    codec.receive_data(P.Codec().encode(message))
    assert decode_all(codec) == [P.Frame(0, message)]
    assert codec.bad_frames == 0


def test_a_frame_contains_no_zero_byte_but_its_delimiter() -> None:
    for message in SAMPLES:
        wire = P.encode_frame(0, message)
        assert wire[-1] == 0 and 0 not in wire[:-1]


def test_the_frame_layout_is_version_type_seq_body_crc32() -> None:
    wire = P.encode_frame(0x1234, P.SyncRequest(5))
    raw = P.cobs_decode(wire[:-1])
    assert raw is not None
    assert raw[:4] == bytes([P.PROTOCOL_VERSION, P.SyncRequest.TYPE, 0x34, 0x12])
    assert raw[4:-4] == struct.pack("<I", 5)
    assert struct.unpack("<I", raw[-4:])[0] == P.crc32(raw[:-4])


def test_fed_byte_by_byte_the_codec_yields_every_frame_once() -> None:
    codec = P.Codec()
    got: list[P.Frame] = []
    for byte in stream(SAMPLES):
        codec.receive_data(bytes([byte]))
        got.extend(decode_all(codec))
    assert [f.message for f in got] == SAMPLES
    assert [f.seq for f in got] == list(range(len(SAMPLES)))
    assert (codec.bad_frames, codec.sequence_gaps) == (0, 0)


def test_next_frame_says_need_data_until_the_delimiter_arrives() -> None:
    wire = P.Codec().encode(P.Heartbeat(1, 2, 3))
    codec = P.Codec()
    codec.receive_data(wire[:-1])
    assert codec.next_frame() is P.NEED_DATA
    codec.receive_data(wire[-1:])
    assert isinstance(codec.next_frame(), P.Frame)
    assert codec.next_frame() is P.NEED_DATA


def test_a_frame_with_a_bad_crc_is_counted_and_skipped_and_the_next_decodes() -> None:
    raw = struct.pack("<BBH", P.PROTOCOL_VERSION, P.Heartbeat.TYPE, 0)
    raw += P.Heartbeat(1, 2, 3).pack()
    bad = P.cobs_encode(raw + struct.pack("<I", P.crc32(raw) ^ 1)) + b"\x00"
    good = P.encode_frame(1, P.Heartbeat(4, 5, 6))
    codec = P.Codec()
    codec.receive_data(bad + good)
    assert [f.message for f in decode_all(codec)] == [P.Heartbeat(4, 5, 6)]
    assert codec.bad_frames == 1


def test_a_missing_frame_counts_one_sequence_gap() -> None:
    out = P.Codec()
    wires = [out.encode(P.Heartbeat(i, 0, 0)) for i in range(5)]
    codec = P.Codec()
    codec.receive_data(wires[0] + wires[1] + wires[3] + wires[4])
    assert len(decode_all(codec)) == 4
    assert codec.sequence_gaps == 1


def test_a_hello_with_a_new_boot_id_restarts_sequence_tracking() -> None:
    before = P.Codec()
    for _ in range(10):
        before.encode(P.Heartbeat(0, 0, 0))
    after = P.Codec()  # the board rebooted: its seq starts at 0 again
    codec = P.Codec()
    codec.receive_data(before.encode(P.Hello(1, "x", "b", 1)) + before.encode(P.Heartbeat(0, 0, 0)))
    codec.receive_data(after.encode(P.Hello(1, "x", "b", 2)) + after.encode(P.Heartbeat(0, 0, 0)))
    assert len(decode_all(codec)) == 4
    assert codec.sequence_gaps == 0
    assert codec.boot_id == 2


def test_the_same_boot_id_again_does_not_hide_a_gap() -> None:
    out = P.Codec()
    codec = P.Codec()
    codec.receive_data(out.encode(P.Hello(1, "x", "b", 1)))
    out.encode(P.Heartbeat(0, 0, 0))  # lost
    codec.receive_data(out.encode(P.Hello(1, "x", "b", 1)))
    assert len(decode_all(codec)) == 2
    assert codec.sequence_gaps == 1


def test_garbage_longer_than_a_frame_is_dropped_counted_once_and_memory_stays_bounded() -> None:
    codec = P.Codec()
    for _ in range(100):
        codec.receive_data(b"\x01" * 100)
        assert codec.next_frame() is P.NEED_DATA
    assert codec.bad_frames == 1
    assert len(codec._buf) <= 2 * P.MAX_FRAME
    codec.receive_data(b"\x00" + P.Codec().encode(P.Ack(1, 2)))
    assert [f.message for f in decode_all(codec)] == [P.Ack(1, 2)]


def test_an_unknown_type_is_a_bad_frame_and_another_version_a_mismatch_with_its_version() -> None:
    codec = P.Codec()
    codec.receive_data(P.encode_frame(5, P.Ack(1), version=P.PROTOCOL_VERSION + 1))
    raw = struct.pack("<BBH", P.PROTOCOL_VERSION, 99, 0)
    codec.receive_data(P.cobs_encode(raw + struct.pack("<I", P.crc32(raw))) + b"\x00")
    assert decode_all(codec) == []
    assert codec.bad_frames == 1
    assert (codec.version_mismatches, codec.peer_version, codec.foreign_seq) == (
        1, P.PROTOCOL_VERSION + 1, 5)


def test_an_error_can_be_written_in_the_peers_version_and_keeps_its_layout() -> None:
    old = P.Codec()
    wire = P.Codec().encode(P.Error(7, P.ERR_PROTOCOL, "board speaks protocol 2"), version=1)
    old.receive_data(wire)
    assert decode_all(old) == [] and old.peer_version == 1  # not ours: a mismatch
    raw = P.cobs_decode(wire[:-1])
    assert raw is not None and raw[0] == 1
    assert P.Error.unpack(raw[4:-4]) == P.Error(7, P.ERR_PROTOCOL, "board speaks protocol 2")


@pytest.mark.parametrize("message", [
    P.Ack(70000), P.Ack(1, 1 << 32), P.Ack(1, 0, 2), P.SyncRequest(-1),
    P.Heartbeat(1 << 64, 0, 0), P.Heartbeat(0, 0, 0, 0, 1 << 32), P.SyncReply(0, -1, 0),
    P.Edges(0, (P.Edge(256, 1, 0),)), P.Edges(0, (P.Edge(0, 2, 0),)),
    P.Edges(0, (P.Edge(0, 1, 0, 70000),)), P.ChannelConfig(0, "cue", P.MODE_DIGITAL, 300),
    P.ChannelConfig(0, "cue", threshold=70000), P.Error(1, 256, "x"),
    P.Hello(1, "x", "y", 1 << 32), P.Hello(1, "x", "y", 1, 300),
], ids=repr)
def test_a_field_out_of_range_is_refused_not_truncated(message: P.BoardMessage) -> None:
    with pytest.raises(ValueError, match="out of range|bad edge"):
        P.Codec().encode(message)


def test_a_body_that_does_not_parse_is_a_bad_frame_even_with_a_good_crc() -> None:
    raw = struct.pack("<BBH", P.PROTOCOL_VERSION, P.Heartbeat.TYPE, 0) + b"\x01\x02"
    codec = P.Codec()
    codec.receive_data(P.cobs_encode(raw + struct.pack("<I", P.crc32(raw))) + b"\x00")
    assert decode_all(codec) == []
    assert codec.bad_frames == 1


def test_a_hello_with_every_channel_named_fits_in_a_frame() -> None:
    channels = tuple(P.ChannelInfo(i, f"cushion.{i:02}-long-name", P.MODE_DIGITAL, i)
                     for i in range(32))
    hello = P.Hello(1, "0.1.0", "e6614103e7000001", 1, 30, channels)
    codec = P.Codec()
    codec.receive_data(P.Codec().encode(hello))
    assert [f.message for f in decode_all(codec)] == [hello]


def test_encoding_an_out_of_range_field_raises_value_error() -> None:
    with pytest.raises(ValueError):
        P.Codec().encode(P.Ack(70000))
    with pytest.raises(ValueError):
        P.Codec().encode(P.Edges(0, tuple(P.Edge(0, 1, 0) for _ in range(P.MAX_EDGES + 1))))
    with pytest.raises(ValueError):
        P.Codec().encode(P.Hello(1, "x", "y", 1, 30, tuple(
            P.ChannelInfo(i, "n" * 200, 1, 0) for i in range(8))))


# -- properties ----------------------------------------------------------------------------

ticks = st.integers(0, P.TICK_MASK)
u32 = st.integers(0, 0xFFFFFFFF)
names = st.text(max_size=20).filter(lambda s: len(s.encode()) <= 255)
edges = st.builds(P.Edge, st.integers(0, 255), st.integers(0, 1), ticks,
                  st.one_of(st.just(P.NO_LEVEL), st.integers(0, 0xFFFF)))
messages = st.one_of(
    st.builds(P.Hello, st.integers(0, 255), names, names, u32, st.integers(0, 255),
              st.lists(st.builds(P.ChannelInfo, st.integers(0, 255), names,
                                 st.integers(0, 255), st.integers(0, 255)),
                       max_size=8).map(tuple)),
    st.builds(P.Edges, u32, st.lists(edges, max_size=P.MAX_EDGES).map(tuple)),
    st.builds(P.Heartbeat, ticks, u32, u32, u32),
    st.builds(P.SyncRequest, u32),
    st.builds(P.SyncReply, u32, ticks, ticks),
    st.builds(P.ChannelConfig, st.integers(0, 255), names, st.integers(0, 255), st.integers(0, 255),
              u32, st.integers(0, 0xFFFF), u32),
    st.builds(P.Ack, st.integers(0, 0xFFFF), u32, st.integers(0, 1)),
    st.builds(P.Error, st.integers(0, 0xFFFF), st.integers(0, 255), names),
)


def chunked(data: bytes, rnd: random.Random) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        n = rnd.randint(1, 64)
        out.append(data[i : i + n])
        i += n
    return out


@given(st.lists(messages, max_size=20), st.randoms(use_true_random=False))
def test_any_messages_in_random_chunks_decode_to_themselves(
    msgs: list[P.BoardMessage], rnd: random.Random
) -> None:
    codec = P.Codec()
    got: list[P.Frame] = []
    for piece in chunked(stream(msgs), rnd):
        codec.receive_data(piece)
        got.extend(decode_all(codec))
    assert [f.message for f in got] == msgs
    assert (codec.bad_frames, codec.sequence_gaps) == (0, 0)


@given(st.binary(max_size=4000))
@settings(max_examples=300)
def test_random_bytes_never_crash_the_codec_nor_yield_a_frame(data: bytes) -> None:
    codec = P.Codec()
    codec.receive_data(data)
    # Random bytes pass a CRC-32 by chance once in 4e9 frames: any frame here is a bug.
    assert decode_all(codec) == []


@given(st.binary(min_size=1, max_size=300))
def test_any_payload_survives_cobs(data: bytes) -> None:
    encoded = P.cobs_encode(data)
    assert 0 not in encoded
    assert P.cobs_decode(encoded) == data


@given(st.lists(messages, min_size=1, max_size=12), st.randoms(use_true_random=False),
       st.integers(1, 6))
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_corrupted_streams_yield_only_frames_that_were_sent_and_lose_only_touched_ones(
    msgs: list[P.BoardMessage], rnd: random.Random, hits: int
) -> None:
    sender = P.Codec()
    wires = [sender.encode(m) for m in msgs]
    data = bytearray(b"".join(wires))
    touched = set()
    for _ in range(hits):
        i = rnd.randrange(len(data))
        data[i] = rnd.choice([0, rnd.randrange(256), data[i] ^ (1 << rnd.randrange(8))])
        touched.add(i)
    sent = {(seq, m) for seq, m in enumerate(msgs)}
    codec = P.Codec()
    got: list[P.Frame] = []
    for piece in chunked(bytes(data) + b"\x00", rnd):  # a later frame's delimiter ends it all
        codec.receive_data(piece)
        got.extend(decode_all(codec))
    assert all((f.seq, f.message) in sent for f in got)  # nothing the CRC rejected leaks out
    # A frame whose bytes (and the delimiter before it) are untouched still arrives.
    start = 0
    got_seqs = {f.seq for f in got}
    for seq, wire in enumerate(wires):
        span = set(range(max(start - 1, 0), start + len(wire)))
        if not span & touched:
            assert seq in got_seqs, (seq, sorted(touched))
        start += len(wire)
    if touched and len(got) < len(msgs):
        assert codec.bad_frames >= 1


# -- the shared file stays in MicroPython's subset ------------------------------------------

MICROPYTHON_MODULES = {"struct", "binascii", "array", "micropython", "machine", "time", "os",
                       "select", "sys", "json", "rp2", "protocol", "firmware_bridge"}


@pytest.mark.parametrize("path", ["protocol.py", "firmware/main.py"])
def test_board_code_imports_only_what_micropython_has(path: str) -> None:
    file = Path(P.__file__).parent / path
    tree = ast.parse(file.read_text())
    # what sits under ``if TYPE_CHECKING:`` is for mypy only: the board never runs it
    typing_only = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                   for inner in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            modules = {alias.name.split(".")[0] for alias in node.names}
            assert modules <= MICROPYTHON_MODULES, modules
        elif isinstance(node, ast.ImportFrom):
            assert node.module and node.module.split(".")[0] in MICROPYTHON_MODULES, node.module
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            for deco in node.decorator_list:
                assert isinstance(deco, ast.Name) and deco.id in {"staticmethod", "property"}
