"""Scenarios the tests run on MicroPython's own VM: ``micropython scenarios.py NAME``.

Each prints one JSON line of what happened; ``tests/firmware_bridge/test_micropython.py``
judges it. The firmware (``main.py``) and the codec (``protocol.py``) are the real files;
``machine`` is the stub beside this file, the clock is the rp2 port's 30-bit ``ticks_us``
at an instant the scenario sets.
"""

import json
import sys

import machine
import main as fw
import protocol as P

MASK = (1 << 30) - 1
HALF = 1 << 29
BEAM = (0, "beam.fl", P.MODE_DIGITAL, 6, 300, 0, 0)
PIEZO = (1, "click", P.MODE_PIEZO, 26, 0, 12000, 30000)


class Clock:
    """``time.ticks_us`` / ``ticks_diff`` / ``ticks_add`` of the rp2 port (2**30 period) at
    ``t``, the instant in unwrapped µs that the scenario moves."""

    def __init__(self, t):
        self.t = t

    def ticks_us(self):
        return self.t & MASK

    def ticks_diff(self, a, b):
        return ((a - b + HALF) & MASK) - HALF

    def ticks_add(self, a, delta):
        return (a + delta) & MASK


class Port:
    """The USB line: what the host says waits in ``inbox``; what the board writes, in ``out``."""

    def __init__(self):
        self.inbox = bytearray()
        self.out = bytearray()

    def read(self):
        data, self.inbox = bytes(self.inbox), bytearray()
        return data or None

    def write(self, data):
        self.out.extend(data)

    def idle(self):
        pass


def messages(port):
    codec = P.Codec()
    codec.receive_data(bytes(port.out))
    port.out = bytearray()
    out = []
    while True:
        frame = codec.next_frame()
        if not isinstance(frame, P.Frame):
            return out
        out.append(frame.message)


def board(clock, channels, ring_size=64):
    machine.levels.clear()
    machine.pins.clear()
    machine.timers.clear()
    return fw.Firmware(machine, clock, Port(), 7, "ab", channels=channels, ring_size=ring_size)


def irq():
    """Every path of the pin handler and of the piezo timer, each run with the heap locked."""
    clock = Clock(1000)
    f = board(clock, (BEAM, PIEZO), ring_size=8)
    ctl = f.ring.ctl
    clock.t += 5000
    machine.drive(6, 1)  # accepted
    clock.t += 50
    machine.drive(6, 0)  # a bounce: inside the debounce
    clock.t += 1000
    machine.drive(6, 1)  # the level already sent
    for _ in range(10):  # fills the ring of 8: the rest are overflows
        clock.t += 20000  # (5 edges in 100 ms: not throttled)
        machine.drive(6, 1 - machine.levels[6])
    digital = [ctl[0], ctl[3]]
    ctl[1] = ctl[0]  # the host has them all: room again
    for level, dt in ((0, 250), (30000, 250), (40000, 500), (20000, 600), (0, 30000)):
        machine.analog[26] = level
        clock.t += dt
        machine.fire_timers()
    piezo = [[ring_chv >> 1, ring_chv & 1] for ring_chv in
              [f.ring.chv[n % f.ring.size] for n in range(ctl[1], ctl[0])]]
    peak = f.ring.levels[ctl[1] % f.ring.size]

    def closure_of_seven():  # the shape of the old handler: allocates when called
        a, b, c, d, e, g, h = 1, 2, 3, 4, 5, 6, 7

        def handler(pin):
            return a + b + c + d + e + g + h

        return handler

    failures = list(machine.failures)
    machine.failures.clear()
    machine.in_hard_irq(closure_of_seven(), None)
    return {"failures": failures, "digital": digital, "piezo": piezo, "peak": peak,
            "hard": [p.hard for p in machine.pins.values()],
            "timer_hard": [t.hard for t in machine.timers], "control": machine.failures}


def ball(clock, f, boot, truth):
    """A ball through the beam: blocked, clear 20 ms later; notes the true ticks."""
    for v, dt in ((1, 1234), (0, 20000)):
        clock.t += dt
        machine.drive(6, v)
        truth.append([0, v, clock.t - boot])
    f.step()


def quiet(clock, f, seconds):
    """The main loop goes round once a second, with nothing happening."""
    for _ in range(seconds):
        clock.t += 1_000_000
        f.step()


def idle():
    """A ball, a quiet spell of each length, a ball, then a host says Hello."""
    out = []
    for minutes in (1, 5, 9, 10, 17, 18, 20, 30, 40):
        clock = Clock(MASK - 3_000_000)  # the counter wraps 3 s after boot
        boot = clock.t
        f = board(clock, (BEAM,))
        truth = []
        quiet(clock, f, 1)
        ball(clock, f, boot, truth)
        quiet(clock, f, minutes * 60)
        ball(clock, f, boot, truth)
        host = P.Codec()
        f.port.inbox.extend(host.encode(P.Hello(P.PROTOCOL_VERSION, "host", "host", 1)))
        clock.t += 1000
        f.step()
        got = messages(f.port)
        edges = [[e.ch, e.v, e.tick] for m in got if isinstance(m, P.Edges) for e in m.edges]
        beats = [m.tick for m in got if isinstance(m, P.Heartbeat)]
        out.append({"minutes": minutes, "edges": edges, "truth": truth, "beat": beats[-1],
                    "now": clock.t - boot, "failures": machine.failures})
    return out


CUSHION = (1, "cushion.h", P.MODE_DIGITAL, 9, 300, 0, 0)


def chatter():
    """A cushion sensor chattering every 1 ms while no host listens (the cable out), and a
    ball through the beam every 180 ms (11 of them, 20 ms each) in the last 2 s of 2 s and of
    60 s; the main loop goes round every 10 ms. Each run notes the beam edges kept, the counts
    per channel and the Losses sent."""
    out = []
    for seconds in (2, 60):
        clock = Clock(1000)
        boot = clock.t
        f = board(clock, (BEAM, CUSHION), ring_size=fw.RING_SIZE)
        truth = []
        for ms in range(seconds * 1000):
            clock.t += 1000
            machine.drive(9, 1 - machine.levels.get(9, 0))
            phase = (ms - seconds * 1000 + 2000) % 180  # in the last 2 s
            if ms >= seconds * 1000 - 2000 and phase in (50, 70) and len(truth) < 22:
                v = 1 if phase == 50 else 0
                machine.drive(6, v)
                truth.append([0, v, clock.t - boot])
            if ms % 10 == 9:
                f.step()
        host = P.Codec()
        f.port.inbox.extend(host.encode(P.Hello(P.PROTOCOL_VERSION, "host", "host", 1)))
        clock.t += 1000
        f.step()
        got = messages(f.port)
        edges = [[e.ch, e.v, e.tick] for m in got if isinstance(m, P.Edges) for e in m.edges]
        losses = [[[x.ch, x.overflows, x.throttled] for x in m.losses] for m in got
                  if isinstance(m, P.Losses)]
        out.append({"seconds": seconds, "beam": [e for e in edges if e[0] == 0],
                    "truth": truth, "cushion": len([e for e in edges if e[0] == 1]),
                    "lost": [f.ring.lost[0], f.ring.lost[1]],
                    "throttled": [f.gate.throttled[0], f.gate.throttled[1]],
                    "losses": losses, "failures": machine.failures})
    return out


class BlindStore:
    """Flash that takes 45 ms to write with interrupts off; a ball drops through the beam
    inside that spell (20 ms) when ``drop`` is set."""

    def __init__(self, clock):
        self.clock = clock
        self.drop = True
        self.saves = 0

    def load(self):
        return (BEAM,)

    def save(self, specs):
        self.saves += 1
        state = machine.mask()
        self.clock.t += 10000
        if self.drop:
            machine.drive(6, 1)
        self.clock.t += 20000
        if self.drop:
            machine.drive(6, 0)
        self.clock.t += 15000
        machine.unmask(state)


def blind():
    """A configuration is applied; its flash write hides a whole drop (interrupts off)."""
    clock = Clock(1000)
    machine.levels.clear()
    machine.pins.clear()
    machine.timers.clear()
    store = BlindStore(clock)
    f = fw.Firmware(machine, clock, Port(), 7, "ab", channels=store.load(), store=store)
    host = P.Codec()
    f.port.inbox.extend(host.encode(P.Hello(P.PROTOCOL_VERSION, "host", "host", 1)))
    f.port.inbox.extend(host.encode(P.ChannelConfig(0, "beam.fl", P.MODE_DIGITAL, 6, 500)))
    clock.t += 1000
    f.step()
    for _ in range(3):
        clock.t += 100_000
        f.step()
    got = messages(f.port)
    edges = [[e.ch, e.v] for m in got if isinstance(m, P.Edges) for e in m.edges]
    beats = [m for m in got if isinstance(m, P.Heartbeat)]
    return {"saves": store.saves, "edges": edges, "blind": beats[-1].blind if beats else None,
            "failures": machine.failures}


def heartbeat():
    """The heartbeat and the main loop's other work with interrupts off, the heap locked
    (the stub's ``disable_irq`` locks it): every channel of the reference wiring."""
    clock = Clock(1000)
    f = board(clock, fw.DEFAULT_CHANNELS)
    host = P.Codec()
    f.port.inbox.extend(host.encode(P.Hello(P.PROTOCOL_VERSION, "host", "host", 1)))
    machine.drive(6, 1)
    errors = []
    for _ in range(5):
        clock.t += 300_000
        try:
            f.step()
        except MemoryError as exc:
            errors.append(repr(exc))
    got = messages(f.port)
    beats = [m.levels for m in got if isinstance(m, P.Heartbeat)]
    return {"errors": errors, "levels": beats, "failures": machine.failures}


def codec():
    """Decodes the frames given as hex lines on stdin; re-encodes them; refuses bad fields."""
    c = P.Codec()
    for line in sys.stdin:
        c.receive_data(bytes.fromhex(line.strip()))
    decoded = []
    while True:
        frame = c.next_frame()
        if not isinstance(frame, P.Frame):
            break
        m = frame.message
        fields = {}
        for name in m.FIELDS:
            value = getattr(m, name)
            if isinstance(value, tuple):  # of ChannelInfo or Edge
                value = [[getattr(x, k) for k in x.FIELDS] for x in value]
            fields[name] = value
        decoded.append({"type": type(m).__name__, "fields": fields,
                        "wire": P.encode_frame(frame.seq, m).hex()})
    accepted = []
    for bad in (P.Ack(70000), P.Ack(1, 1 << 32), P.Heartbeat(1 << 64, 0, 0),
                P.Edges(0, (P.Edge(0, 1, 0, 70000),)), P.ChannelConfig(0, "cue", P.MODE_DIGITAL, 300),
                P.Error(1, 256, "x"), P.SyncReply(0, -1, 0)):
        try:
            P.Codec().encode(bad)
            accepted.append(repr(bad))
        except ValueError:
            pass
    return {"decoded": decoded, "bad_frames": c.bad_frames, "accepted_out_of_range": accepted}


SCENARIOS = {"irq": irq, "idle": idle, "codec": codec, "chatter": chatter, "blind": blind,
             "heartbeat": heartbeat}
print(json.dumps(SCENARIOS[sys.argv[1]]()))
