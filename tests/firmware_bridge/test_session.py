"""The board session, sans I/O: fed the bytes a board would send, with the time they came."""

from __future__ import annotations

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.errors import ConfigRejected
from firmware_bridge.session import Answered, BoardSession, HelloHeard, SessionEvent, SyncAnswered
from hardware import SensorEvent

CHANNELS = (P.ChannelInfo(0, "beam.hl", P.MODE_DIGITAL, 2),
            P.ChannelInfo(1, "no such channel", P.MODE_DIGITAL, 3))
US = 1e-6  # host seconds per board tick (the firmware counts microseconds)


class Board:
    """The board's end of the wire: a codec of its own."""

    def __init__(self) -> None:
        self.codec = P.Codec()

    def say(self, *messages: P.BoardMessage) -> bytes:
        return b"".join(self.codec.encode(m) for m in messages)

    def hear(self, data: bytes) -> list[P.BoardMessage]:
        self.codec.receive_data(data)
        heard = []
        while isinstance(frame := self.codec.next_frame(), P.Frame):
            heard.append(frame.message)
        return heard


def seen(events: list[SessionEvent]) -> list[tuple[str, int, float]]:
    """Returns the sensor events as (channel, value, host time to the nanosecond)."""
    return [(e.ch, e.v, round(e.t, 9)) for e in events if isinstance(e, SensorEvent)]


def hello(boot_id: int = 1) -> P.Hello:
    return P.Hello(P.PROTOCOL_VERSION, "1.0", "board-a", boot_id, P.TICK_BITS, CHANNELS)


def fitted(session: BoardSession, board: Board, boot_id: int = 1) -> None:
    """Connects at host time 0, hears the board's Hello and one sync exchange: host 1.001 s
    is the board's tick 1 000 000."""
    session.connect(0.0)
    session.receive_data(board.say(hello(boot_id)), 0.5)
    nonce = session.sync(1.0)
    [request] = board.hear(session.data_to_send())
    assert request == P.SyncRequest(nonce)
    assert session.receive_data(board.say(P.SyncReply(nonce, 1_000_000, 1_000_000)), 1.002) \
        == [SyncAnswered(nonce)]


def test_the_hello_says_the_host_and_the_answer_names_the_channels() -> None:
    session, board = BoardSession(), Board()
    session.connect(0.0)
    session.hello(host_boot=77)
    [said] = board.hear(session.data_to_send())
    assert isinstance(said, P.Hello) and said.boot_id == 77 and said.uid == "host"
    assert session.receive_data(board.say(hello()), 0.3) == [HelloHeard(hello(), None)]
    assert session.info is not None and session.info.uid == session.source == "board-a"
    assert session.names == {0: "beam.hl"}  # the channel without an interfaces §2 name: none
    assert session.last_rx == 0.3


def test_edges_wait_for_the_clock_and_come_out_on_the_hosts_timeline() -> None:
    session, board = BoardSession(), Board()
    fitted(session, board)
    kept = board.say(P.Edges(0, (P.Edge(0, 1, 1_000_500),)))
    assert session.receive_data(kept, 1.1) == []  # not delivering yet
    assert board.hear(session.data_to_send()) == [P.Ack(2, 1)]  # seq 2: after Hello and SyncReply
    assert seen(session.deliver()) == [("beam.hl", 1, round(1.001 + 500 * US, 9))]
    late = board.say(P.Edges(1, (P.Edge(0, 0, 1_002_000), P.Edge(1, 1, 1_002_001))))
    assert seen(session.receive_data(late, 1.2)) == [("beam.hl", 0, round(1.003, 9))]
    assert session.counters.unknown_channels == 1


def test_an_inverted_channel_is_delivered_the_other_way_round() -> None:
    session, board = BoardSession(inverted={"beam.hl"}), Board()
    fitted(session, board)
    session.deliver()
    [event] = session.receive_data(board.say(P.Edges(0, (P.Edge(0, 1, 1_000_000),))), 1.1)
    assert isinstance(event, SensorEvent) and event.v == 0


def test_edges_sent_again_after_a_reconnect_are_delivered_once() -> None:
    session, board = BoardSession(), Board()
    fitted(session, board)
    session.deliver()
    first = P.Edges(0, (P.Edge(0, 1, 1_000_100), P.Edge(0, 0, 1_000_200)))
    assert len(session.receive_data(board.say(first), 1.1)) == 2
    session.disconnect()
    board = Board()  # the board's codec starts over on the new connection
    fitted(session, board)
    session.deliver()
    again = P.Edges(0, (P.Edge(0, 1, 1_000_100), P.Edge(0, 0, 1_000_200), P.Edge(0, 1, 1_000_300)))
    assert seen(session.receive_data(board.say(again), 1.1)) ==\
        [("beam.hl", 1, round(1.001 + 300 * US, 9))]
    assert session.counters.duplicates == 2


def test_a_lost_frame_of_edges_is_asked_for_again_once_a_quarter_second() -> None:
    session, board = BoardSession(), Board()
    fitted(session, board)
    session.deliver()
    session.receive_data(board.say(P.Edges(0, (P.Edge(0, 1, 1_000_100),))), 1.1)
    board.hear(session.data_to_send())
    board.say(P.Edges(1, (P.Edge(0, 0, 1_000_200),)))  # lost on the wire
    assert session.receive_data(board.say(P.Edges(2, (P.Edge(0, 1, 1_000_300),))), 1.2) == []
    [resend] = board.hear(session.data_to_send())
    assert isinstance(resend, P.Ack) and (resend.edges, resend.resend) == (1, 1)
    session.receive_data(board.say(P.Heartbeat(1_000_400, 3, 0, sent=3)), 1.3)
    assert board.hear(session.data_to_send()) == []  # within the quarter second: asked already
    session.receive_data(board.say(P.Heartbeat(1_000_500, 3, 0, sent=3)), 1.5)
    assert [m.resend for m in board.hear(session.data_to_send()) if isinstance(m, P.Ack)] == [1]
    assert session.counters.resends == 2


def test_a_heartbeat_level_not_delivered_becomes_a_reading() -> None:
    session, board = BoardSession(), Board()
    fitted(session, board)
    session.deliver()
    beat = board.say(P.Heartbeat(1_001_000, 0, 0, sent=0, levels=0b1))
    assert seen(session.receive_data(beat, 1.1)) == [("beam.hl", 1, round(1.002, 9))]
    again = board.say(P.Heartbeat(1_002_000, 0, 0, sent=0, levels=0b1))
    assert session.receive_data(again, 1.2) == []  # delivered already


def test_a_new_boot_under_the_same_connection_is_a_restart() -> None:
    session, board = BoardSession(), Board()
    fitted(session, board)
    assert session.receive_data(board.say(hello(boot_id=2)), 1.5) == [HelloHeard(hello(2), 1)]
    assert session.boot_id == 2 and not session.clock.fit.ready  # its ticks start over


def test_a_board_of_a_new_boot_after_a_reconnect_is_not_a_restart_under_the_line() -> None:
    session, board = BoardSession(), Board()
    fitted(session, board)
    session.disconnect()
    session.connect(2.0)
    assert session.receive_data(Board().say(hello(boot_id=2)), 2.1) == [HelloHeard(hello(2), None)]


def test_answers_to_configuration_carry_the_frames_seq() -> None:
    session, board = BoardSession(), Board()
    fitted(session, board)
    seq = session.configure(P.ChannelConfig(0, "beam.hr"))
    [config] = board.hear(session.data_to_send())
    assert isinstance(config, P.ChannelConfig) and config.name == "beam.hr"
    [answer] = session.receive_data(board.say(P.Error(seq, P.ERR_BAD_CHANNEL, "no")), 1.1)
    assert isinstance(answer, Answered) and answer.ref == seq
    assert isinstance(answer.error, ConfigRejected) and answer.error.code == P.ERR_BAD_CHANNEL
    assert session.receive_data(board.say(P.Ack(seq)), 1.2) == [Answered(seq)]
    session.configured(P.ChannelConfig(0, "beam.hr"))
    assert session.names == {0: "beam.hr"}


def test_a_configuration_with_no_interfaces_name_is_refused_unsent() -> None:
    session = BoardSession()
    session.connect(0.0)
    with pytest.raises(ConfigRejected):
        session.configure(P.ChannelConfig(0, "no such channel"))
    assert session.data_to_send() == b""


def test_bytes_split_anywhere_decode_the_same() -> None:
    session, board = BoardSession(), Board()
    session.connect(0.0)
    data = board.say(hello())
    events = [e for i in range(len(data)) for e in session.receive_data(data[i:i + 1], 0.1)]
    assert events == [HelloHeard(hello(), None)]
