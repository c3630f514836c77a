"""The firmware's main loop stepped by hand on the ``machine`` shim, with a clock we move."""

from __future__ import annotations

import math

from firmware_bridge import protocol as P
from firmware_bridge.firmware.main import PIEZO_HZ, Firmware
from firmware_bridge.sim import SimClock, SimMachine, SimStore

BEAM = (0, "beam.fl", P.MODE_DIGITAL, 6, 300, 0, 0)
PIEZO = (1, "click", P.MODE_PIEZO, 26, 0, 12000, 30000)


class Bench:
    """One board on the bench: a clock we move, its pins, and the host end of its line."""

    def __init__(self, ring_size: int = 64) -> None:
        self.t = 10.0
        self.clock = SimClock(0, 0.0, monotonic=lambda: self.t)
        self.machine = SimMachine(self.clock, b"\xab")
        self.inbox = bytearray()  # host -> board
        self.host = P.Codec()
        self.board_out = P.Codec()  # decodes what the board wrote
        self.firmware = Firmware(self.machine, self.clock, self, boot_id=7, uid="ab",
                                 channels=(BEAM, PIEZO), ring_size=ring_size, heartbeat_ms=100)
        self.firmware.start()

    # the port the firmware writes to and reads from
    def read(self) -> bytes | None:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data or None

    def write(self, data: bytes) -> None:
        self.board_out.receive_data(data)

    def idle(self) -> None:
        pass

    def say(self, message: P.BoardMessage) -> None:
        self.inbox.extend(self.host.encode(message))

    def run(self, seconds: float, step: float = 100e-6) -> None:
        end = self.t + seconds
        while self.t < end:
            self.machine.run_timers(self.t)
            self.firmware.step()
            self.t += step

    def frames(self) -> list[P.BoardMessage]:
        out = []
        while isinstance(frame := self.board_out.next_frame(), P.Frame):
            out.append(frame.message)
        return out

    def edges(self) -> list[P.Edge]:
        return [e for m in self.frames() if isinstance(m, P.Edges) for e in m.edges]

    def tick(self, t: float) -> int:
        """Returns the board's tick on the wire at ``t``: µs since it booted (at 10.0)."""
        return self.clock.ext_at(t)


def test_the_board_says_hello_at_boot_and_sends_nothing_more_until_a_host_answers() -> None:
    bench = Bench()
    bench.machine.drive(6, 1, bench.t)
    bench.run(0.5)
    [hello] = bench.frames()
    assert isinstance(hello, P.Hello) and hello.boot_id == 7 and hello.uid == "ab"
    assert [c.name for c in hello.channels] == ["beam.fl", "click"]
    bench.say(P.Hello(1, "host", "host", 1))
    bench.run(0.01)
    assert [(e.ch, e.v) for e in bench.edges()] == [(0, 1)]  # kept, then sent


def test_bounces_within_the_debounce_are_ignored_and_the_settled_level_is_restored() -> None:
    bench = Bench()
    bench.say(P.Hello(1, "host", "host", 1))
    bench.run(0.01)
    bench.frames()
    t0 = bench.t
    for dt, v in [(0, 1), (50e-6, 0), (100e-6, 1), (150e-6, 0)]:  # a contact bouncing
        bench.machine.drive(6, v, t0 + dt)
    bench.run(0.002)
    edges = bench.edges()
    assert [(e.v, e.tick) for e in edges[:1]] == [(1, bench.tick(t0))]
    # The pin settled at 0 inside the debounce: the loop sends it once the debounce is over.
    assert [e.v for e in edges] == [1, 0]
    assert 0 < edges[1].tick - edges[0].tick <= 2 * 300 + 200


def test_a_piezo_hit_reports_the_peak_that_follows_the_threshold_crossing() -> None:
    bench = Bench()
    bench.say(P.Hello(1, "host", "host", 1))
    bench.run(0.01)
    bench.frames()
    hit = bench.t + 0.001

    def knock(t: float) -> float:  # rises to 60000 over 0.5 ms, then rings down
        if t < hit:
            return 0.0
        if t < hit + 0.0005:
            return 60000 * (t - hit) / 0.0005
        return 60000 * math.exp(-(t - hit - 0.0005) / 0.005)

    bench.machine.analog[26] = knock
    bench.run(0.05)
    on, off = bench.edges()
    assert (on.ch, on.v, off.ch, off.v) == (1, 1, 1, 0)
    crossing = hit + 0.0005 * 12000 / 60000
    sample = 1e6 / PIEZO_HZ  # µs between the timer's samples
    assert 0 <= on.tick - bench.tick(crossing) <= sample + 1  # the first sample over it
    assert on.level >= 55000  # the peak (sampled every 250 µs), not the first sample (<24000)
    assert 0 <= off.tick - on.tick - 30000 <= sample + 1  # v = 0 once the 30 ms mask is over


def test_edges_stay_until_acknowledged_a_full_ring_counts_overflows_and_resend_goes_back() -> None:
    bench = Bench(ring_size=4)
    bench.say(P.Hello(1, "host", "host", 1))
    bench.run(0.01)
    bench.frames()
    for i in range(6):
        bench.machine.drive(6, (i + 1) % 2, bench.t)
        bench.run(0.001)
    bench.run(0.1)
    frames = bench.frames()
    assert [e.v for m in frames if isinstance(m, P.Edges) for e in m.edges] == [1, 0, 1, 0]
    beat = [m for m in frames if isinstance(m, P.Heartbeat)][-1]
    assert (beat.edges, beat.overflows, beat.sent) == (4, 2, 4)
    bench.say(P.Ack(0, 2, resend=1))  # "I have 0 and 1; send the rest again"
    bench.run(0.001)
    again = [m for m in bench.frames() if isinstance(m, P.Edges)]
    assert [(m.first, len(m.edges)) for m in again] == [(2, 2)]
    bench.say(P.Ack(0, 4))
    bench.run(0.001)
    bench.machine.drive(6, 1, bench.t)  # room again
    bench.run(0.001)
    assert [e.v for e in bench.edges()] == [1]


def test_a_sync_request_is_answered_with_the_ticks_of_receipt_and_reply() -> None:
    bench = Bench()
    bench.run(0.001)
    bench.frames()
    bench.say(P.SyncRequest(42))
    at = bench.t
    bench.run(0.0001)
    [reply] = [m for m in bench.frames() if isinstance(m, P.SyncReply)]
    assert reply.nonce == 42 and reply.received == reply.sent == bench.tick(at)


def test_a_configuration_is_applied_and_acknowledged_and_a_bad_one_refused() -> None:
    bench = Bench()
    bench.run(0.001)
    bench.frames()
    bench.say(P.ChannelConfig(0, "beam.sr", P.MODE_DIGITAL, 5, 300))
    bench.say(P.ChannelConfig(1, "click", P.MODE_PIEZO, 5))  # GP5 has no ADC
    bench.say(P.ChannelConfig(1, "click", P.MODE_DIGITAL, 5))  # GP5 is channel 0's now
    bench.say(P.ChannelConfig(40, "click", P.MODE_DIGITAL, 9))  # no channel 40
    bench.say(P.Hello(1, "host", "host", 1))
    bench.run(0.001)
    frames = bench.frames()
    assert P.Ack(0) in frames
    errors = [(m.ref, m.code) for m in frames if isinstance(m, P.Error)]
    assert errors == [(1, P.ERR_BAD_PIN), (2, P.ERR_BAD_PIN), (3, P.ERR_BAD_CHANNEL)]
    [hello] = [m for m in frames if isinstance(m, P.Hello)]
    assert [(c.name, c.pin) for c in hello.channels] == [("beam.sr", 5), ("click", 26)]
    bench.machine.drive(6, 1, bench.t)  # the old pin says nothing any more
    bench.machine.drive(5, 1, bench.t)
    bench.run(0.001)
    assert [(e.ch, e.v) for e in bench.edges()] == [(0, 1)]


def test_a_configuration_is_written_to_flash_only_once_the_table_is_quiet() -> None:
    """Issue 32 §5: writing flash stops every interrupt for ~45 ms; a drop in it came late or
    not at all. A configuration applies at once and is written after 5 s without an edge."""
    bench = Bench()
    store = SimStore((BEAM,))
    bench.firmware.flash.store = store
    bench.say(P.Hello(1, "host", "host", 1))
    bench.run(0.01)
    bench.machine.drive(6, 1, bench.t)  # a shot in play: the beam busy
    bench.run(0.01)
    bench.say(P.ChannelConfig(0, "beam.fl", P.MODE_DIGITAL, 6, 500))
    for v in (0, 1, 0, 1, 0):  # an edge a second: still live
        bench.run(1.0, step=0.001)
        bench.machine.drive(6, v, bench.t)
    assert P.Ack(1) in bench.frames() and bench.firmware.channels[0].debounce_us == 500
    assert store.saves == 0
    bench.run(4.9, step=0.001)
    assert store.saves == 0
    bench.run(0.2, step=0.001)  # 5 s since the last edge
    assert store.saves == 1 and store.specs[0][4] == 500
    bench.say(P.Hello(1, "host", "host", 1))  # (the host went quiet meanwhile)
    bench.run(0.01)
    beat = [m for m in bench.frames() if isinstance(m, P.Heartbeat)][-1]
    assert beat.blind == 1  # the write is reported
