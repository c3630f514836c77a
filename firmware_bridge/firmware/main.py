"""Sensor-board firmware: MicroPython for the RP2040 (Raspberry Pi Pico); also runs on CPython.

Flash it with ``protocol.py`` beside it (see ``firmware_bridge/README.md``); on the board it
starts by itself as ``main.py``. Under CPython, ``firmware_bridge.sim`` runs the same
``Firmware`` against a pseudo-terminal with a ``machine`` shim.

- Digital channels: a hard IRQ on both edges reads the tick and the pin and writes them into
  a preallocated ring buffer (no allocation in the handler). Edges closer together than the
  channel's debounce time are ignored; the main loop restores a level the debounce hid.
- Piezo channels: the main loop samples the ADC; a reading over the threshold starts a hit,
  the peak over the next ``PEAK_US`` is sent as ``level`` with ``v = 1`` at the crossing
  tick, and ``v = 0`` follows once the mask time has passed.
- The main loop frames the edges (``Edges``), keeps every edge until the host acknowledges it
  and sends the unacknowledged ones again when a host says ``Hello`` or asks (``Ack`` with
  ``resend``); it sends heartbeats, answers time-sync requests and applies (and stores)
  channel configuration. Ctrl-C is off while it runs; holding BOOTSEL 2 s gives the REPL back.

Everything the firmware touches is injected: ``machine`` (Pin, ADC, unique_id, IRQ masking),
``clock`` (ticks_us, ticks_diff) and ``port`` (read, write, idle).
"""

from array import array

try:
    from firmware_bridge import protocol as P  # CPython: the package
except ImportError:  # pragma: no cover - on the board, protocol.py sits beside main.py
    import protocol as P  # type: ignore[import-not-found,no-redef,unused-ignore]

VERSION = "0.1.0"
RING_SIZE = 512
HEARTBEAT_MS = 250
PEAK_US = 1000  # how long after crossing the threshold a piezo hit's peak is looked for
HOST_TIMEOUT_MS = 3000  # the host is gone when it has said nothing for this long

#: (channel, name, mode, pin, debounce µs, threshold, mask µs): the reference wiring.
DEFAULT_CHANNELS = (
    (0, "beam.hl", P.MODE_DIGITAL, 2, 300, 0, 0),
    (1, "beam.hr", P.MODE_DIGITAL, 3, 300, 0, 0),
    (2, "beam.sl", P.MODE_DIGITAL, 4, 300, 0, 0),
    (3, "beam.sr", P.MODE_DIGITAL, 5, 300, 0, 0),
    (4, "beam.fl", P.MODE_DIGITAL, 6, 300, 0, 0),
    (5, "beam.fr", P.MODE_DIGITAL, 7, 300, 0, 0),
    (6, "cue", P.MODE_DIGITAL, 8, 300, 0, 0),
    (7, "cushion.h", P.MODE_DIGITAL, 9, 300, 0, 0),
    (8, "cushion.f", P.MODE_DIGITAL, 10, 300, 0, 0),
    (9, "cushion.lh", P.MODE_DIGITAL, 11, 300, 0, 0),
    (10, "cushion.lf", P.MODE_DIGITAL, 12, 300, 0, 0),
    (11, "cushion.rh", P.MODE_DIGITAL, 13, 300, 0, 0),
    (12, "cushion.rf", P.MODE_DIGITAL, 14, 300, 0, 0),
    (13, "click", P.MODE_PIEZO, 26, 0, 12000, 30000),
)
MAX_CHANNELS = 32
MAX_NAME = 16
ADC_PINS = (26, 27, 28)


class Ring:
    """Edges between the IRQ (producer) and the main loop (consumer), preallocated.

    Edges are numbered from 0 since boot: ``head`` is the next number, ``acked`` the first
    the host has not acknowledged, ``sent`` the first not yet sent. Numbers ``acked`` to
    ``head`` are kept; when the ring is full a new edge is counted in ``overflows`` and lost.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.ticks = array("L", [0] * size)
        self.levels = array("l", [0] * size)
        self.chv = bytearray(size)  # channel << 1 | value
        self.ctl = array("L", [0, 0, 0, 0])  # head, acked, sent, overflows

    def put(self, ch: int, v: int, tick: int, level: int) -> None:
        """Stores one edge (call from the IRQ or with IRQs disabled); allocates nothing."""
        ctl = self.ctl
        head = ctl[0]
        if head - ctl[1] >= self.size:
            ctl[3] += 1
            return
        i = head % self.size
        self.ticks[i] = tick
        self.levels[i] = level
        self.chv[i] = (ch << 1) | v
        ctl[0] = head + 1


class Channel:
    """One configured channel and its piezo detector state."""

    def __init__(
        self, index: int, name: str, mode: int, pin: int, debounce_us: int, threshold: int,
        mask_us: int,
    ) -> None:
        self.index = index
        self.name = name
        self.mode = mode
        self.pin_no = pin
        self.debounce_us = debounce_us
        self.threshold = threshold
        self.mask_us = mask_us
        self.pin: object = None
        self.adc: object = None
        # piezo: 0 idle, 1 looking for the peak, 2 masked
        self.state = 0
        self.start = 0
        self.peak = 0

    def info(self) -> P.ChannelInfo:
        return P.ChannelInfo(self.index, self.name, self.mode, self.pin_no)


class Firmware:
    """The board: capture, framing, heartbeats, time sync and configuration."""

    def __init__(
        self,
        machine: object,
        clock: object,
        port: object,
        boot_id: int,
        uid: str = "",
        channels: tuple[tuple[int, str, int, int, int, int, int], ...] = DEFAULT_CHANNELS,
        ring_size: int = RING_SIZE,
        heartbeat_ms: int = HEARTBEAT_MS,
        store: object = None,
    ) -> None:
        self.m = machine
        self.store = store  # keeps the channel configuration across reboots (None: no)
        self.clock = clock
        self.port = port
        self.boot_id = boot_id
        self.uid = uid or "".join([f"{b:02x}" for b in machine.unique_id()])  # type: ignore[attr-defined]
        self.heartbeat_us = heartbeat_ms * 1000
        self.ring = Ring(ring_size)
        self.codec = P.Codec()
        self.last_v = bytearray(MAX_CHANNELS)
        self.last_t = array("L", [0] * MAX_CHANNELS)
        self.debounce = array("L", [0] * MAX_CHANNELS)
        self.channels: dict[int, Channel] = {}
        self.host_seen = False
        self.last_rx = 0
        self.next_heartbeat = 0
        for spec in channels:
            self.configure(Channel(*spec))

    # -- capture ---------------------------------------------------------------------------

    def _handler(self, ch: int) -> object:
        """Returns the hard-IRQ handler of channel ``ch`` (made once; it allocates nothing)."""
        ring = self.ring
        ticks_us = self.clock.ticks_us  # type: ignore[attr-defined]
        ticks_diff = self.clock.ticks_diff  # type: ignore[attr-defined]
        last_v = self.last_v
        last_t = self.last_t
        debounce = self.debounce

        def handler(pin: object) -> None:
            t = ticks_us()
            v = pin.value()  # type: ignore[attr-defined]
            if v == last_v[ch] or ticks_diff(t, last_t[ch]) < debounce[ch]:
                return
            last_v[ch] = v
            last_t[ch] = t
            ring.put(ch, v, t, -1)

        return handler

    def configure(self, channel: Channel) -> None:
        """Applies a channel's configuration (replacing the old one).

        Raises ValueError(ERR_* code, reason) for a channel, name or pin it cannot have.
        """
        if not 0 <= channel.index < MAX_CHANNELS:
            raise ValueError(P.ERR_BAD_CHANNEL, "no such channel")
        if len(channel.name.encode()) > MAX_NAME:  # every Hello must fit in one frame
            raise ValueError(P.ERR_BAD_CHANNEL, "name too long")
        if channel.mode == P.MODE_PIEZO and channel.pin_no not in ADC_PINS:
            raise ValueError(P.ERR_BAD_PIN, "not an ADC pin")
        if not 0 <= channel.pin_no <= 29:
            raise ValueError(P.ERR_BAD_PIN, "no such pin")
        for other in self.channels.values():
            if (other.index != channel.index and other.mode != P.MODE_OFF
                    and channel.mode != P.MODE_OFF and other.pin_no == channel.pin_no):
                raise ValueError(P.ERR_BAD_PIN, "pin in use by channel " + str(other.index))
        old = self.channels.get(channel.index)
        if old is not None and old.pin is not None and old.mode == P.MODE_DIGITAL:
            old.pin.irq(handler=None)  # type: ignore[attr-defined]
        Pin = self.m.Pin  # type: ignore[attr-defined]
        i = channel.index
        self.debounce[i] = channel.debounce_us
        if channel.mode == P.MODE_DIGITAL:
            channel.pin = Pin(channel.pin_no, Pin.IN, Pin.PULL_UP)
            state = self.m.disable_irq()  # type: ignore[attr-defined]
            self.last_v[i] = channel.pin.value()  # type: ignore[attr-defined]
            self.last_t[i] = self.clock.ticks_us()  # type: ignore[attr-defined]
            self.m.enable_irq(state)  # type: ignore[attr-defined]
            channel.pin.irq(  # type: ignore[attr-defined]
                handler=self._handler(i), trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING, hard=True
            )
        elif channel.mode == P.MODE_PIEZO:
            channel.adc = self.m.ADC(Pin(channel.pin_no))  # type: ignore[attr-defined]
        self.channels[i] = channel

    def specs(self) -> list[tuple[int, str, int, int, int, int, int]]:
        """Returns the channel configuration, in the form of ``DEFAULT_CHANNELS``."""
        return [
            (c.index, c.name, c.mode, c.pin_no, c.debounce_us, c.threshold, c.mask_us)
            for c in sorted(self.channels.values(), key=lambda c: c.index)
        ]

    def _push(self, ch: int, v: int, tick: int, level: int) -> None:
        state = self.m.disable_irq()  # type: ignore[attr-defined]
        self.ring.put(ch, v, tick, level)
        self.m.enable_irq(state)  # type: ignore[attr-defined]

    def _reconcile(self, now: int) -> None:
        """Sends a level the debounce hid (the pin settled on another value than sent)."""
        ticks_diff = self.clock.ticks_diff  # type: ignore[attr-defined]
        for ch in self.channels.values():
            if ch.mode != P.MODE_DIGITAL:
                continue
            i = ch.index
            state = self.m.disable_irq()  # type: ignore[attr-defined]
            v = ch.pin.value()  # type: ignore[attr-defined]
            if v != self.last_v[i] and ticks_diff(now, self.last_t[i]) >= 2 * self.debounce[i]:
                self.last_v[i] = v
                self.last_t[i] = now
                self.ring.put(i, v, now, -1)
            self.m.enable_irq(state)  # type: ignore[attr-defined]

    def _sample_piezos(self) -> None:
        ticks_us = self.clock.ticks_us  # type: ignore[attr-defined]
        ticks_diff = self.clock.ticks_diff  # type: ignore[attr-defined]
        for ch in self.channels.values():
            if ch.mode != P.MODE_PIEZO:
                continue
            now = ticks_us()
            level = ch.adc.read_u16()  # type: ignore[attr-defined]
            if ch.state == 0:
                if level >= ch.threshold:
                    ch.state, ch.start, ch.peak = 1, now, level
            elif ch.state == 1:
                if level > ch.peak:
                    ch.peak = level
                if ticks_diff(now, ch.start) >= PEAK_US:
                    self._push(ch.index, 1, ch.start, ch.peak)
                    ch.state = 2
            elif ticks_diff(now, ch.start) >= ch.mask_us:
                self._push(ch.index, 0, now, -1)
                ch.state = 0

    # -- link ------------------------------------------------------------------------------

    def hello(self) -> P.Hello:
        return P.Hello(
            P.PROTOCOL_VERSION, VERSION, self.uid, self.boot_id, P.TICK_BITS,
            tuple([c.info() for c in sorted(self.channels.values(), key=lambda c: c.index)]),
        )

    def _send(self, message: P.Message) -> None:
        self.port.write(self.codec.encode(message))  # type: ignore[attr-defined]

    def _handle(self, frame: P.Frame, received: int) -> None:
        msg = frame.message
        if isinstance(msg, P.SyncRequest):
            sent = self.clock.ticks_us()  # type: ignore[attr-defined]
            self._send(P.SyncReply(msg.nonce, received, sent))
        elif isinstance(msg, P.Ack):
            ctl = self.ring.ctl
            if ctl[1] < msg.edges <= ctl[0]:
                ctl[1] = msg.edges
            if ctl[2] < ctl[1] or msg.resend:
                ctl[2] = ctl[1]  # go back to the first edge the host does not have
        elif isinstance(msg, P.Hello):
            self.host_seen = True
            self.ring.ctl[2] = self.ring.ctl[1]  # a new host: send what is unacknowledged again
            self._send(self.hello())
            self._heartbeat(received)
        elif isinstance(msg, P.Config):
            try:
                self.configure(
                    Channel(msg.ch, msg.name, msg.mode, msg.pin, msg.debounce_us, msg.threshold,
                            msg.mask_us)
                )
            except ValueError as exc:
                code, reason = exc.args if len(exc.args) == 2 else (P.ERR_BAD_REQUEST, str(exc))
                self._send(P.Error(frame.seq, code, reason))
            else:
                if self.store is not None:
                    self.store.save(self.specs())  # type: ignore[attr-defined]
                self._send(P.Ack(frame.seq))
        else:
            self._send(P.Error(frame.seq, P.ERR_BAD_REQUEST, "unexpected message"))

    def _heartbeat(self, now: int) -> None:
        ctl = self.ring.ctl
        self._send(P.Heartbeat(now, ctl[0], ctl[3], ctl[2]))
        self.next_heartbeat = self.clock.ticks_add(now, self.heartbeat_us)  # type: ignore[attr-defined]

    def _send_edges(self) -> None:
        ring = self.ring
        ctl = ring.ctl
        while ctl[2] < ctl[0]:
            first = ctl[2]
            count = min(ctl[0] - first, P.MAX_EDGES)
            edges = []
            for n in range(first, first + count):
                i = n % ring.size
                chv = ring.chv[i]
                edges.append(P.Edge(chv >> 1, chv & 1, ring.ticks[i], ring.levels[i]))
            self._send(P.Edges(first, tuple(edges)))
            ctl[2] = first + count

    def step(self) -> None:
        """Does one round of the main loop's work."""
        ticks_us = self.clock.ticks_us  # type: ignore[attr-defined]
        ticks_diff = self.clock.ticks_diff  # type: ignore[attr-defined]
        data = self.port.read()  # type: ignore[attr-defined]
        if data:
            received = ticks_us()
            self.last_rx = received
            self.codec.receive_data(data)
            while True:
                frame = self.codec.next_frame()
                if not isinstance(frame, P.Frame):
                    break
                self._handle(frame, received)
        now = ticks_us()
        self._sample_piezos()
        self._reconcile(now)
        if self.host_seen and ticks_diff(now, self.last_rx) > HOST_TIMEOUT_MS * 1000:
            self.host_seen = False  # keep the edges until a host says hello again
        if self.host_seen:
            self._send_edges()
            if ticks_diff(now, self.next_heartbeat) >= 0:
                self._heartbeat(now)

    def start(self) -> None:
        """Announces the board (a delimiter first, to end any garbage on the line)."""
        self.port.write(b"\x00")  # type: ignore[attr-defined]
        self._send(self.hello())

    def run(self, stop: object = None) -> None:
        """Runs the main loop until ``stop()`` returns true (forever on the board)."""
        self.start()
        idle = self.port.idle  # type: ignore[attr-defined]
        while stop is None or not stop():  # type: ignore[operator]
            self.step()
            idle()


class UsbPort:  # pragma: no cover - MicroPython only
    """The board's USB CDC serial line (MicroPython's stdin / stdout), raw and non-blocking.

    Ctrl-C is disabled (0x03 occurs inside frames), so to get the REPL back for ``mpremote``
    hold the BOOTSEL button for two seconds: the firmware stops and Ctrl-C works again.
    """

    def __init__(self) -> None:
        import select
        import sys
        import time

        import micropython  # type: ignore[import-not-found,unused-ignore]

        try:
            import rp2  # type: ignore[import-not-found,unused-ignore]

            self._bootsel = rp2.bootsel_button
        except (ImportError, AttributeError):
            self._bootsel = None
        self._micropython = micropython
        self._time = time
        micropython.kbd_intr(-1)  # 0x03 in a frame must not interrupt the firmware
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._next_check = time.ticks_ms()  # type: ignore[attr-defined]
        self._held = 0

    def read(self) -> bytes | None:
        data = bytearray()
        while len(data) < 256 and self._poll.poll(0):
            data.extend(self._in.read(1))
        return bytes(data) if data else None

    def write(self, data: bytes) -> None:
        self._out.write(data)

    def idle(self) -> None:
        # bootsel_button() masks interrupts for some µs: look only twice a second.
        clock: object = self._time
        now = clock.ticks_ms()  # type: ignore[attr-defined]
        if self._bootsel is None or clock.ticks_diff(now, self._next_check) < 0:  # type: ignore[attr-defined]
            return
        self._next_check = clock.ticks_add(now, 500)  # type: ignore[attr-defined]
        self._held = self._held + 1 if self._bootsel() else 0
        if self._held >= 4:
            self._micropython.kbd_intr(3)
            raise SystemExit("BOOTSEL held: back to the REPL")


class FlashStore:  # pragma: no cover - MicroPython only
    """The channel configuration in ``channels.json`` on the board's flash."""

    PATH = "channels.json"

    def load(self) -> tuple[tuple[int, str, int, int, int, int, int], ...]:
        import json

        try:
            with open(self.PATH) as f:
                return tuple([tuple(spec) for spec in json.load(f)])
        except (OSError, ValueError):
            return DEFAULT_CHANNELS

    def save(self, specs: list[tuple[int, str, int, int, int, int, int]]) -> None:
        import json

        with open(self.PATH, "w") as f:
            json.dump([list(spec) for spec in specs], f)


def main() -> None:  # pragma: no cover - MicroPython only
    """Starts the firmware on the board."""
    import os
    import struct
    import time

    import machine  # type: ignore[import-not-found,unused-ignore]
    import micropython  # type: ignore[import-not-found,unused-ignore]

    micropython.alloc_emergency_exception_buf(100)  # a report if an IRQ handler fails
    store = FlashStore()
    boot_id = struct.unpack("<I", os.urandom(4))[0]
    Firmware(machine, time, UsbPort(), boot_id, channels=store.load(), store=store).run()


if __name__ == "__main__":  # pragma: no cover
    main()
