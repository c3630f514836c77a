"""Sensor-board firmware: MicroPython for the RP2040 (Raspberry Pi Pico); also runs on CPython.

Flash it with ``protocol.py`` beside it (see ``firmware_bridge/README.md``); on the board it
starts by itself as ``main.py``. Under CPython, ``firmware_bridge.sim`` runs the same
``Firmware`` against a pseudo-terminal with a ``machine`` shim; the tests also run it on
MicroPython's own VM with the heap locked, as the rp2 port runs a hard IRQ.

- Digital channels: a hard IRQ on both edges calls the channel's bound method ``catch``,
  which reads the tick and the pin and writes them into a preallocated ring buffer. It
  allocates nothing (a closure over more than four names would: MicroPython raises
  MemoryError in a hard IRQ and switches the pin's IRQ off). Edges closer together than the
  channel's debounce time are ignored; the main loop restores a level the debounce hid, and
  keeps every channel's reference time younger than ``STALE_US``, so that a channel quiet
  for longer than half the 2**30 µs tick period still accepts its next edge.
- Ticks: ``time.ticks_us()`` wraps every ~17.9 minutes. The main loop extends it into µs
  since boot (``BootTicks.ext``) and stamps every new edge in the ring with its extended tick
  within one loop round; the wire carries only extended ticks, so an edge kept for an hour
  while no host listened still has its own time.
- Piezo channels (off by default: an unconnected ADC pin floats): a ``machine.Timer`` at
  ``PIEZO_HZ`` samples the ADC (a hard timer where the port has one; allocation-free either
  way); a reading over the threshold starts a hit, the peak over the next ``PEAK_US`` is sent
  as ``level`` with ``v = 1`` at the crossing tick, and ``v = 0`` follows once the mask time
  has passed.
- The main loop frames the edges (``Edges``), keeps every edge until the host acknowledges it
  and sends the unacknowledged ones again when a host says ``Hello`` or asks (``Ack`` with
  ``resend``); it sends heartbeats (with the digital channels' levels and the blind spells),
  answers time-sync requests and applies (and stores) channel configuration. Writing the
  configuration to flash stops every interrupt: the spell is counted and reported in the
  heartbeat. A frame of another protocol version is answered with an ``Error`` in that version.
- ``main()`` (on the board): the hardware watchdog is fed by every loop round; an uncaught
  exception is written to ``crash.txt`` and the board resets. Holding BOOTSEL for 2 s while
  it runs restarts the board into the REPL (the watchdog cannot be stopped, so the firmware
  leaves a ``repl`` flag file and resets; at boot the flag is removed and ``main`` returns
  before the watchdog starts).

Everything the firmware touches is injected: ``machine`` (Pin, ADC, Timer, unique_id, IRQ
masking), ``clock`` (ticks_us, ticks_diff, ticks_add) and ``port`` (read, write, idle). Each is
typed by a protocol below (``Machine``, ``Clock``, ``Port``), for mypy only: the board never
runs that block. ``main()`` binds the board's own ``machine`` and ``time`` modules to them,
and a check of that binding (``sys.platform == "rp2"``, what the tests' mypy run against the
RP2040 stubs says) holds each protocol to the board's real API: a misspelt name fails there.
"""

import sys
from array import array

try:
    from firmware_bridge import protocol as P  # CPython: the package
except ImportError:  # pragma: no cover - on the board, protocol.py sits beside main.py
    import protocol as P  # type: ignore[import-not-found,no-redef,unused-ignore]

TYPE_CHECKING = False  # mypy takes it as true; MicroPython has no typing module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

    class Irq(Protocol):
        """A pin's IRQ object."""

        def flags(self) -> int: ...

    class Pin(Protocol):
        """``machine.Pin``, an instance."""

        def value(self) -> int: ...

        def irq(self, handler: Callable[[Any], None] | None = ..., trigger: int = ..., *,
                hard: bool = ...) -> Any: ...

    class PinClass(Protocol):
        """``machine.Pin``, the class."""

        @property
        def IN(self) -> int: ...  # noqa: N802 - the machine module's names
        @property
        def PULL_UP(self) -> int: ...  # noqa: N802
        @property
        def IRQ_RISING(self) -> int: ...  # noqa: N802
        @property
        def IRQ_FALLING(self) -> int: ...  # noqa: N802

        def __call__(self, id: int, mode: int = ..., pull: int = ...) -> Pin: ...

    class Adc(Protocol):
        """``machine.ADC``, an instance."""

        def read_u16(self) -> int: ...

    class Timer(Protocol):
        """``machine.Timer``, an instance."""

        def deinit(self) -> None: ...

    class TimerClass(Protocol):
        """``machine.Timer``, the class."""

        @property
        def PERIODIC(self) -> int: ...  # noqa: N802

        def __call__(self, __id: int, *, mode: int = ..., freq: int = ...,
                     callback: Callable[[Any], None], hard: bool = ...) -> Timer: ...

    class Machine(Protocol):
        """The ``machine`` module, as far as the firmware uses it."""

        @property
        def Pin(self) -> PinClass: ...  # noqa: N802
        @property
        def Timer(self) -> TimerClass: ...  # noqa: N802

        def ADC(self, pin: Any) -> Adc: ...  # noqa: N802

        def disable_irq(self) -> int: ...

        def enable_irq(self, __state: int) -> None: ...

        def unique_id(self) -> bytes: ...

    class Clock(Protocol):
        """``time``'s microsecond ticks (the rp2 port's wrap at 2**30)."""

        def ticks_us(self) -> Any: ...

        def ticks_diff(self, __a: Any, __b: Any) -> int: ...

        def ticks_add(self, __ticks: Any, __delta: int) -> Any: ...

    class MsClock(Protocol):
        """``time``'s millisecond ticks."""

        def ticks_ms(self) -> Any: ...

        def ticks_diff(self, __a: Any, __b: Any) -> int: ...

        def ticks_add(self, __ticks: Any, __delta: int) -> Any: ...

    class Port(Protocol):
        """The board's line to the host."""

        def read(self) -> bytes | None: ...

        def write(self, data: bytes) -> Any: ...

        def idle(self) -> None: ...

    class Store(Protocol):
        """Where the channel configuration is kept across reboots."""

        def save(self, specs: list[tuple[int, str, int, int, int, int, int]]) -> None: ...

    if sys.platform == "rp2":  # mypy --platform rp2 with the RP2040 stubs: the real API
        import time as _time

        import machine as _machine

        _c: Clock = _time
        _ms: MsClock = _time
        # machine's classes cannot be matched to a protocol as a whole (their constants are
        # Final: instance variables to mypy), so each name Machine, PinClass and TimerClass
        # declare is read here from the real module. A name added there is added here.
        _pin: Callable[[int, int, int], Pin] = _machine.Pin
        _pin_names: tuple[int, ...] = (_machine.Pin.IN, _machine.Pin.PULL_UP,
                                       _machine.Pin.IRQ_RISING, _machine.Pin.IRQ_FALLING)
        from _mpy_shed.IRQs import _IRQ_GENERIC  # the rp2 port's IRQ object (the stubs'
        _irq: Irq = _IRQ_GENERIC()  # Pin.irq() returns "a class": a fault of the stubs)
        _irq_any: Any = _machine.Pin(0).irq(handler=None, trigger=0, hard=True)
        _timer: Timer = _machine.Timer(-1, mode=_machine.Timer.PERIODIC, freq=1,
                                       callback=lambda t: None, hard=True)
        _adc: Callable[[Any], Adc] = _machine.ADC
        _disable: Callable[[], int] = _machine.disable_irq
        _enable: Callable[[int], None] = _machine.enable_irq
        _uid: Callable[[], bytes] = _machine.unique_id

VERSION = "0.2.0"
RING_SIZE = 512
BEAM_RESERVE = 8  # a ring's last 1/8 is kept for beam edges: a chattering cushion cannot fill it
THROTTLE_US = 100_000  # a channel passes at most THROTTLE_EDGES edges in this window ...
THROTTLE_EDGES = 8  # ... the rest are counted as throttled, and the settled level follows
SAVE_QUIET_US = 5_000_000  # a configuration is written to flash once no edge came for this long
HEARTBEAT_MS = 250
PEAK_US = 1000  # how long after crossing the threshold a piezo hit's peak is looked for
PIEZO_HZ = 4000  # piezo ADC samples a second (one timer for every piezo channel)
HOST_TIMEOUT_MS = 3000  # the host is gone when it has said nothing for this long
STALE_US = 1_000_000  # a channel's reference time is kept younger than this
MAX_DEBOUNCE_US = 100_000  # a longer debounce would outlive the reference time
MAX_MASK_US = 10_000_000
WDT_MS = 5000  # the watchdog resets the board when the main loop stalls this long
BOOTSEL_HOLD_MS = 2000  # holding BOOTSEL this long while running restarts into the REPL
REPL_FLAG = "repl"  # on flash: the next boot returns to the REPL (and removes it)
CRASH_FILE = "crash.txt"  # on flash: the last uncaught exception, before the reset
_LOW = 1 << 30  # an extended tick is kept as two array entries of 30 bits

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
    (13, "click", P.MODE_OFF, 26, 0, 12000, 30000),  # on once a piezo is wired (README)
)
MAX_CHANNELS = 32
MAX_NAME = 16
ADC_PINS = (26, 27, 28)


class Ring:
    """Edges between the IRQs (producers) and the main loop (consumer), preallocated.

    Edges are numbered from 0 since boot; ``ctl`` holds ``head`` (the next number),
    ``acked`` (the first the host has not acknowledged), ``sent`` (the first not yet sent),
    ``overflows`` and ``stamped`` (the first whose extended tick is not yet known). Numbers
    ``acked`` to ``head`` are kept. The last ``size // BEAM_RESERVE`` places are kept for
    the channels marked in ``beams``: an edge of another channel that would take one, and any
    edge once the ring is full, is counted in ``overflows`` and in ``lost`` (per channel).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.ticks = array("L", [0] * size)  # raw ticks_us(), written by the IRQ
        self.levels = array("l", [0] * size)
        self.chv = bytearray(size)  # channel << 1 | value
        self.ext_hi = array("L", [0] * size)  # extended tick // 2**30, by the main loop
        self.ext_lo = array("L", [0] * size)  # extended tick % 2**30
        self.ctl = array("L", [0, 0, 0, 0, 0])  # head, acked, sent, overflows, stamped
        self.others = size - size // BEAM_RESERVE  # places an edge of a non-beam channel may take
        self.beams = bytearray(MAX_CHANNELS)  # 1: a beam channel, the reserve is its
        self.lost = array("L", [0] * MAX_CHANNELS)  # overflows per channel

    def put(self, ch: int, v: int, tick: int, level: int) -> None:
        """Stores one edge (call from an IRQ or with IRQs disabled); allocates nothing."""
        ctl = self.ctl
        head = ctl[0]
        used = head - ctl[1]
        if used >= self.size or (used >= self.others and not self.beams[ch]):
            ctl[3] += 1
            self.lost[ch] += 1
            return
        i = head % self.size
        self.ticks[i] = tick
        self.levels[i] = level
        self.chv[i] = (ch << 1) | v
        ctl[0] = head + 1

    def ext_tick(self, n: int) -> int:
        """Returns the extended tick of edge number ``n`` (stamped)."""
        i = n % self.size
        return self.ext_hi[i] * _LOW + self.ext_lo[i]


class Gate:
    """What every digital channel's IRQ handler keeps, per channel index, preallocated.

    ``last_v`` / ``last_t``: the level last stored and its tick; ``debounce``: µs within
    which a change is a bounce; ``win_t`` / ``win_n``: the start of the channel's throttling
    window and the edges it passed in it; ``throttled``: edges held back, counted. A channel
    that chatters (a cushion sensor gone bad) passes ``THROTTLE_EDGES`` edges a window, as
    ESPHome's ``throttle`` filter does: it cannot flood the ring or the line.
    """

    def __init__(self) -> None:
        self.last_v = bytearray(MAX_CHANNELS)
        self.last_t = array("L", [0] * MAX_CHANNELS)
        self.debounce = array("L", [0] * MAX_CHANNELS)
        self.win_t = array("L", [0] * MAX_CHANNELS)
        self.win_n = bytearray(MAX_CHANNELS)
        self.throttled = array("L", [0] * MAX_CHANNELS)

    def admit(self, clock: "Clock", i: int, t: int) -> bool:
        """Returns whether channel ``i`` may store an edge at tick ``t`` (counting it), else
        counts it as throttled; allocates nothing."""
        age = clock.ticks_diff(t, self.win_t[i])
        if age < 0 or age >= THROTTLE_US:
            self.win_t[i] = t
            self.win_n[i] = 0
        if self.win_n[i] >= THROTTLE_EDGES:
            self.throttled[i] += 1
            return False
        self.win_n[i] += 1
        return True


class Channel:
    """One configured channel, its hard-IRQ handler ``catch`` and its piezo detector state."""

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
        self.pin: Pin | None = None
        self.irq: Irq | None = None  # the pin's IRQ object: its flags() say which edges came
        self.adc: Adc = None  # type: ignore[assignment]  # (a piezo's, set by configure)
        # What catch() needs, set by Capture.configure (attribute reads allocate nothing).
        self.ring: Ring = None  # type: ignore[assignment]
        self.clock: Clock = None  # type: ignore[assignment]
        self.gate: Gate = None  # type: ignore[assignment]
        self.rising = 0  # Pin.IRQ_RISING and Pin.IRQ_FALLING of the port
        self.falling = 0
        # piezo: 0 idle, 1 looking for the peak, 2 masked
        self.state = 0
        self.start = 0
        self.peak = 0

    def info(self) -> P.ChannelInfo:
        return P.ChannelInfo(self.index, self.name, self.mode, self.pin_no)

    def catch(self, pin: "Pin") -> None:
        """The hard-IRQ handler of a digital channel: allocates nothing.

        The edges come from the IRQ's latched flags, not only from the level read now: when
        interrupts were off (a flash write), a pulse that came and went in that spell has
        both flags set and the level back where it was; it is stored as its two edges (timed
        now, late: the blind spell is reported).
        """
        clock = self.clock
        gate = self.gate
        t = clock.ticks_us()
        v = pin.value()
        irq = self.irq
        flags = irq.flags() if irq is not None else 0
        i = self.index
        if clock.ticks_diff(t, gate.last_t[i]) < gate.debounce[i]:
            return
        both = (flags & self.rising) and (flags & self.falling)
        if v == gate.last_v[i] and not both:
            return
        if not gate.admit(clock, i, t):
            return  # the main loop restores the level once the window is over
        ring = self.ring
        if v == gate.last_v[i]:
            ring.put(i, 1 - v, t, -1)
        gate.last_v[i] = v
        gate.last_t[i] = t
        ring.put(i, v, t, -1)


def check(channel: Channel, channels: dict[int, Channel]) -> None:
    """Raises ValueError(ERR_* code, reason) for a channel, name, pin or time it cannot have
    beside ``channels`` (index -> channel)."""
    if not 0 <= channel.index < MAX_CHANNELS:
        raise ValueError(P.ERR_BAD_CHANNEL, "no such channel")
    if len(channel.name.encode()) > MAX_NAME:  # every Hello must fit in one frame
        raise ValueError(P.ERR_BAD_CHANNEL, "name too long")
    if channel.mode not in (P.MODE_OFF, P.MODE_DIGITAL, P.MODE_PIEZO):
        raise ValueError(P.ERR_BAD_REQUEST, "no such mode")
    if channel.mode == P.MODE_PIEZO and channel.pin_no not in ADC_PINS:
        raise ValueError(P.ERR_BAD_PIN, "not an ADC pin")
    if not 0 <= channel.pin_no <= 29:
        raise ValueError(P.ERR_BAD_PIN, "no such pin")
    if not 0 <= channel.debounce_us <= MAX_DEBOUNCE_US:
        raise ValueError(P.ERR_BAD_REQUEST, "debounce over " + str(MAX_DEBOUNCE_US) + " us")
    if not 0 <= channel.mask_us <= MAX_MASK_US or not 0 <= channel.threshold <= 0xFFFF:
        raise ValueError(P.ERR_BAD_REQUEST, "mask or threshold out of range")
    for other in channels.values():
        if (other.index != channel.index and other.mode != P.MODE_OFF
                and channel.mode != P.MODE_OFF and other.pin_no == channel.pin_no):
            raise ValueError(P.ERR_BAD_PIN, "pin in use by channel " + str(other.index))


class Flash:
    """The channel configuration's way to flash (``store``; None: not kept). An applied
    configuration (``unsaved``) is written once no edge has come for ``SAVE_QUIET_US``:
    interrupts are off while flash is written, never in a live shot. Each write is a blind
    spell, counted (``spells``) and timed (the latest from ``spell_tick`` for ``spell_us``)."""

    def __init__(self, store: "Store | None") -> None:
        self.store = store
        self.unsaved = False
        self.last_edge = 0  # the extended tick when the ring last took an edge
        self.last_head = 0
        self.spells = 0
        self.spell_tick = 0
        self.spell_us = 0

    def due(self, head: int, now: int) -> bool:
        """Returns whether to write now, given the ring's ``head`` at extended tick ``now``."""
        if head != self.last_head:
            self.last_head = head
            self.last_edge = now
        return self.unsaved and (head == 0 or now - self.last_edge >= SAVE_QUIET_US)

    def write(self, specs: list[tuple[int, str, int, int, int, int, int]],
              advance: "Callable[[], int]") -> None:
        """Writes ``specs``, timing the spell with ``advance`` (the extended tick now)."""
        self.unsaved = False
        if self.store is None:
            return
        start = advance()
        self.store.save(specs)
        self.spells += 1
        self.spell_tick = start
        self.spell_us = advance() - start


class BootTicks:
    """The board's time: ``time.ticks_us()`` extended past its wraps into µs since boot
    (``ext``), and the extended tick of each edge the IRQs stored (``stamp``).

    ``advance`` is called at least every few seconds (the watchdog sees to it), far more often
    than the half tick period.
    """

    def __init__(self, clock: "Clock") -> None:
        self.clock = clock
        self.raw = clock.ticks_us()
        self.ext = 0  # µs since boot at the last advance

    def advance(self) -> int:
        """Reads the clock and returns the extended tick now (µs since boot)."""
        raw = self.clock.ticks_us()
        self.ext += self.clock.ticks_diff(raw, self.raw)
        self.raw = raw
        return self.ext

    def stamp(self, ring: Ring) -> None:
        """Gives every edge that arrived in ``ring`` since the last call its extended tick,
        counted back from the last ``advance``."""
        ctl = ring.ctl
        ticks_diff = self.clock.ticks_diff
        head = ctl[0]
        n = ctl[4]
        while n < head:
            i = n % ring.size
            ext = max(0, self.ext - ticks_diff(self.raw, ring.ticks[i]))
            ring.ext_hi[i] = ext // _LOW
            ring.ext_lo[i] = ext % _LOW
            n += 1
        ctl[4] = head


class Capture:
    """The channels and the capture of their edges into ``ring``: each channel's
    configuration, its pin's hard IRQ (digital; ``gate`` holds what the handlers keep) or its
    place in the piezo sampling timer, and the main loop's repair of what the debounce hid."""

    def __init__(self, machine: "Machine", clock: "Clock", ring: Ring) -> None:
        self.m = machine
        self.clock = clock
        self.ring = ring
        self.gate = Gate()
        self.digital = bytearray(MAX_CHANNELS)  # 1: a digital channel (levels() reads these)
        self.snapshot = bytearray(MAX_CHANNELS)  # the levels, copied with interrupts off
        self.channels: dict[int, Channel] = {}
        self.piezos: list[Channel] = []  # read by the sampling timer: replaced, never changed
        self.timer: Timer | None = None

    def boot(self, channels: object) -> str:
        """Applies the saved channel configuration if every spec in it is one this firmware
        accepts, else ``DEFAULT_CHANNELS``; returns why the saved one was refused ("": it
        was not). A board updated from an older firmware must boot, not reset for ever."""
        try:
            specs = [tuple(spec) for spec in channels]  # type: ignore[attr-defined]
            seen: dict[int, Channel] = {}
            for spec in specs:
                if len(spec) != 7 or not isinstance(spec[1], str) or not all(
                        [isinstance(x, int) for x in spec[:1] + spec[2:]]):
                    raise ValueError(P.ERR_BAD_REQUEST, "malformed spec")
                channel = Channel(*spec)
                check(channel, seen)
                seen[channel.index] = channel
        except (ValueError, TypeError) as exc:
            for spec in DEFAULT_CHANNELS:
                self.configure(Channel(*spec))
            return str(exc.args[-1]) if exc.args else "refused"
        for spec in specs:
            self.configure(Channel(*spec))
        return ""

    def configure(self, channel: Channel) -> None:
        """Applies a channel's configuration (replacing the old one).

        Raises ValueError(ERR_* code, reason) for a channel, name, pin or time it cannot have.
        """
        check(channel, self.channels)
        old = self.channels.get(channel.index)
        if old is not None and old.pin is not None and old.mode == P.MODE_DIGITAL:
            old.pin.irq(handler=None)
        Pin = self.m.Pin
        i = channel.index
        gate = self.gate
        channel.ring, channel.clock, channel.gate = self.ring, self.clock, gate
        channel.rising, channel.falling = Pin.IRQ_RISING, Pin.IRQ_FALLING
        gate.debounce[i] = channel.debounce_us
        self.ring.beams[i] = 1 if channel.name.startswith("beam.") else 0
        self.digital[i] = 1 if channel.mode == P.MODE_DIGITAL else 0
        if channel.mode == P.MODE_DIGITAL:
            channel.pin = Pin(channel.pin_no, Pin.IN, Pin.PULL_UP)
            state = self.m.disable_irq()
            gate.last_v[i] = channel.pin.value()
            gate.last_t[i] = gate.win_t[i] = self.clock.ticks_add(
                self.clock.ticks_us(), -STALE_US)
            self.m.enable_irq(state)
            channel.irq = channel.pin.irq(
                handler=channel.catch, trigger=Pin.IRQ_RISING | Pin.IRQ_FALLING, hard=True
            )
        elif channel.mode == P.MODE_PIEZO:
            channel.adc = self.m.ADC(Pin(channel.pin_no))
        else:
            gate.last_v[i] = 0
        self.channels[i] = channel
        self._start_sampling()

    def ordered(self) -> list[Channel]:
        """Returns the channels in the order of their indexes."""
        return sorted(self.channels.values(), key=lambda c: c.index)

    def _start_sampling(self) -> None:
        """Runs the piezo sampling timer while a piezo channel is on, and only then."""
        piezos = [c for c in self.ordered() if c.mode == P.MODE_PIEZO]
        state = self.m.disable_irq()
        self.piezos = piezos
        self.m.enable_irq(state)
        if piezos and self.timer is None:
            Timer = self.m.Timer
            try:  # a hard timer where the port has one
                self.timer = Timer(-1, mode=Timer.PERIODIC, freq=PIEZO_HZ,
                                   callback=self.sample_piezos, hard=True)
            except TypeError:  # pragma: no cover - rp2 (1.24): scheduled callbacks only
                self.timer = Timer(-1, mode=Timer.PERIODIC, freq=PIEZO_HZ,
                                   callback=self.sample_piezos)
        elif not piezos and self.timer is not None:
            self.timer.deinit()
            self.timer = None

    def sample_piezos(self, timer: object) -> None:
        """The sampling timer's handler: one ADC reading per piezo channel; allocates nothing."""
        clock = self.clock
        now = clock.ticks_us()
        for ch in self.piezos:
            level = ch.adc.read_u16()
            if ch.state == 0:
                if level >= ch.threshold:
                    ch.state = 1
                    ch.start = now
                    ch.peak = level
            elif ch.state == 1:
                if level > ch.peak:
                    ch.peak = level
                if clock.ticks_diff(now, ch.start) >= PEAK_US:
                    self.ring.put(ch.index, 1, ch.start, ch.peak)
                    ch.state = 2
            elif clock.ticks_diff(now, ch.start) >= ch.mask_us:
                self.ring.put(ch.index, 0, now, -1)
                ch.state = 0

    def specs(self) -> list[tuple[int, str, int, int, int, int, int]]:
        """Returns the channel configuration, in the form of ``DEFAULT_CHANNELS``."""
        return [(c.index, c.name, c.mode, c.pin_no, c.debounce_us, c.threshold, c.mask_us)
                for c in self.ordered()]

    def reconcile(self) -> None:
        """Sends a level the debounce hid (the pin settled on another value than sent), and
        keeps each channel's reference time younger than ``STALE_US``."""
        clock = self.clock
        gate = self.gate
        for ch in self.channels.values():
            pin = ch.pin
            if ch.mode != P.MODE_DIGITAL or pin is None:
                continue
            i = ch.index
            state = self.m.disable_irq()
            now = clock.ticks_us()
            age = clock.ticks_diff(now, gate.last_t[i])
            v = pin.value()
            if (v != gate.last_v[i] and (age < 0 or age >= 2 * gate.debounce[i])
                    and gate.admit(clock, i, now)):
                gate.last_v[i] = v
                gate.last_t[i] = now
                self.ring.put(i, v, now, -1)
            elif age < 0 or age > STALE_US:  # (negative: stale past half the tick period)
                gate.last_t[i] = clock.ticks_add(now, -STALE_US)
            window = clock.ticks_diff(now, gate.win_t[i])
            if window < 0 or window > STALE_US:
                gate.win_t[i] = clock.ticks_add(now, -STALE_US)
            self.m.enable_irq(state)

    def levels(self) -> tuple[int, int]:
        """Returns the ring's head and the digital channels' levels after the edge before it,
        as a bit mask (bit i: channel i reads 1), the two read together with interrupts off."""
        last_v, snapshot, digital = self.gate.last_v, self.snapshot, self.digital
        state = self.m.disable_irq()
        edges = self.ring.ctl[0]  # copied, allocating nothing
        for i in range(MAX_CHANNELS):
            snapshot[i] = last_v[i]
        self.m.enable_irq(state)
        out = 0
        for i in range(MAX_CHANNELS):
            if digital[i] and snapshot[i]:
                out |= 1 << i
        return edges, out


class Firmware:
    """The board's main loop and its conversation with the host: hello, the edges until the
    host acknowledges them, heartbeats, time sync and configuration requests. The channels
    are ``capture``'s, the time is ``ticks``', the configuration's way to flash ``flash``'s."""

    def __init__(
        self,
        machine: "Machine",
        clock: "Clock",
        port: "Port",
        boot_id: int,
        uid: str = "",
        channels: object = DEFAULT_CHANNELS,
        ring_size: int = RING_SIZE,
        heartbeat_ms: int = HEARTBEAT_MS,
        store: "Store | None" = None,
    ) -> None:
        self.flash = Flash(store)
        self.port = port
        self.boot_id = boot_id
        self.uid = uid or "".join([f"{b:02x}" for b in machine.unique_id()])
        self.heartbeat_us = heartbeat_ms * 1000
        self.ring = Ring(ring_size)
        self.codec = P.Codec()
        self.capture = Capture(machine, clock, self.ring)
        self.ticks = BootTicks(clock)
        self.host_seen = False
        self.last_rx = 0
        self.next_heartbeat = 0
        self.mismatches = 0  # frames of another protocol version answered
        self.losses_sent = 0  # the sum of the per-channel counts last sent in a Losses
        self.refused = self.capture.boot(channels)  # why the saved configuration was not used

    @property
    def channels(self) -> dict[int, Channel]:
        """Returns the configured channels by index."""
        return self.capture.channels

    @property
    def gate(self) -> Gate:
        """Returns what the digital channels' IRQ handlers keep (their throttled counts)."""
        return self.capture.gate

    def hello(self) -> P.Hello:
        """Returns the board's Hello; its firmware version ends in ``+defaults`` when the saved
        configuration was refused at boot (the default channels run instead)."""
        firmware = VERSION + P.DEFAULTS_MARK if self.refused else VERSION
        return P.Hello(
            P.PROTOCOL_VERSION, firmware, self.uid, self.boot_id, P.TICK_BITS,
            tuple([c.info() for c in self.capture.ordered()]),
        )

    def _send(self, message: P.BoardMessage, version: int = P.PROTOCOL_VERSION) -> None:
        self.port.write(self.codec.encode(message, version))

    def _handle(self, frame: P.Frame, received: int) -> None:
        msg = frame.message
        if isinstance(msg, P.SyncRequest):
            self._send(P.SyncReply(msg.nonce, received, self.ticks.advance()))
        elif isinstance(msg, P.Ack):
            ctl = self.ring.ctl
            if ctl[1] < msg.edges <= ctl[0]:
                ctl[1] = msg.edges
            if ctl[2] < ctl[1] or msg.resend:
                ctl[2] = ctl[1]  # go back to the first edge the host does not have
        elif isinstance(msg, P.Hello):
            self.host_seen = True
            self.losses_sent = 0  # a new host: any losses are news to it
            self.ring.ctl[2] = self.ring.ctl[1]  # a new host: send what is unacknowledged again
            self._send(self.hello())
            self._heartbeat(received)
        elif isinstance(msg, P.ChannelConfig):
            self._configure(frame.seq, msg)
        else:
            self._send(P.Error(frame.seq, P.ERR_BAD_REQUEST, "unexpected message"))

    def _configure(self, seq: int, msg: P.ChannelConfig) -> None:
        """Applies a host's channel configuration (frame ``seq``), answering Ack or Error."""
        try:
            self.capture.configure(
                Channel(msg.ch, msg.name, msg.mode, msg.pin, msg.debounce_us, msg.threshold,
                        msg.mask_us)
            )
        except ValueError as exc:
            code, reason = exc.args if len(exc.args) == 2 else (P.ERR_BAD_REQUEST, str(exc))
            self._send(P.Error(seq, code, reason))
        else:
            self.flash.unsaved = self.flash.store is not None
            self.refused = ""  # runs (and soon saves) what a host gave it: no longer defaults
            self._send(P.Ack(seq))

    def _heartbeat(self, now: int) -> None:
        ctl = self.ring.ctl
        edges, levels = self.capture.levels()  # the levels after edge number edges - 1
        flash = self.flash
        self._send(P.Heartbeat(now, edges, ctl[3], ctl[2], levels, flash.spells,
                               flash.spell_tick, flash.spell_us))
        self._send_losses()
        self.next_heartbeat = now + self.heartbeat_us

    def _send_losses(self) -> None:
        """Sends the channels that lost edges (ring full) or had them held back (throttled),
        when those counts have changed since the last time (since a host said Hello: any)."""
        lost, throttled = self.ring.lost, self.capture.gate.throttled
        total = sum(lost) + sum(throttled)
        if total == self.losses_sent:
            return
        self.losses_sent = total
        self._send(P.Losses(tuple([P.Loss(i, lost[i], throttled[i]) for i in range(MAX_CHANNELS)
                                   if lost[i] or throttled[i]])))

    def _send_edges(self) -> None:
        ring = self.ring
        ctl = ring.ctl
        while ctl[2] < ctl[4]:
            first = ctl[2]
            count = min(ctl[4] - first, P.MAX_EDGES)
            edges = []
            for n in range(first, first + count):
                i = n % ring.size
                chv = ring.chv[i]
                edges.append(P.Edge(chv >> 1, chv & 1, ring.ext_tick(n), ring.levels[i]))
            self._send(P.Edges(first, tuple(edges)))
            ctl[2] = first + count

    def _answer_mismatch(self) -> None:
        """Tells a host of another protocol version so, in its version."""
        codec = self.codec
        if codec.version_mismatches > self.mismatches:
            self.mismatches = codec.version_mismatches
            reason = "board speaks protocol " + str(P.PROTOCOL_VERSION)
            self._send(P.Error(codec.foreign_seq, P.ERR_PROTOCOL, reason), codec.peer_version)

    def step(self) -> None:
        """Does one round of the main loop's work."""
        ticks = self.ticks
        data = self.port.read()
        if data:
            received = ticks.advance()
            self.last_rx = received
            self.codec.receive_data(data)
            while True:
                frame = self.codec.next_frame()
                if not isinstance(frame, P.Frame):
                    break
                self._handle(frame, received)
            self._answer_mismatch()
        self.capture.reconcile()
        now = ticks.advance()
        ticks.stamp(self.ring)
        if self.flash.due(self.ring.ctl[0], now):
            self.flash.write(self.capture.specs(), ticks.advance)
        if self.host_seen and now - self.last_rx > HOST_TIMEOUT_MS * 1000:
            self.host_seen = False  # keep the edges until a host says hello again
        if self.host_seen:
            self._send_edges()
            if now >= self.next_heartbeat:
                self._heartbeat(now)

    def start(self) -> None:
        """Announces the board (a delimiter first, to end any garbage on the line)."""
        self.port.write(b"\x00")
        self._send(self.hello())

    def run(self, stop: "Callable[[], bool] | None" = None,
            feed: "Callable[[], object] | None" = None) -> None:
        """Runs the main loop until ``stop()`` returns true (forever if None), calling
        ``feed()`` (the watchdog's) every round."""
        self.start()
        idle = self.port.idle
        while stop is None or not stop():
            self.step()
            if feed is not None:
                feed()
            idle()


class UsbPort:
    """The board's USB CDC serial line (MicroPython's stdin / stdout), raw and non-blocking.

    Ctrl-C is disabled (0x03 occurs inside frames). ``escape()`` turns true once BOOTSEL
    has been held for ``BOOTSEL_HOLD_MS`` (checked twice a second: reading the button
    masks interrupts for some µs).
    """

    def __init__(self, clock: "MsClock", bootsel: "Callable[[], int] | None") -> None:
        import select
        import sys

        import micropython  # type: ignore[import-not-found,unused-ignore]

        self._bootsel = bootsel  # reads the button (None: the port has none)
        self._time = time = clock
        micropython.kbd_intr(-1)  # 0x03 in a frame must not interrupt the firmware
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._next_check = time.ticks_ms()
        self._held = 0
        self.escaping = False

    def read(self) -> bytes | None:
        data = bytearray()
        while len(data) < 256 and self._poll.poll(0):
            byte = self._in.read(1)
            if not byte:  # the line closed (never on the board's USB)
                break
            data.extend(byte)
        return bytes(data) if data else None

    def write(self, data: bytes) -> None:
        self._out.write(data)

    def escape(self) -> bool:
        """Returns whether BOOTSEL was held long enough to ask for the REPL."""
        return self.escaping

    def idle(self) -> None:
        time = self._time
        now = time.ticks_ms()
        if self._bootsel is None or time.ticks_diff(now, self._next_check) < 0:
            return
        self._next_check = time.ticks_add(now, 500)
        self._held = self._held + 1 if self._bootsel() else 0
        if (self._held - 1) * 500 >= BOOTSEL_HOLD_MS:  # the first and last reads span it
            self.escaping = True


class FlashStore:
    """The channel configuration in ``channels.json`` on the board's flash.

    Written as ``{"format": 2, "channels": [spec, ...]}``. A bare list is the file of the
    firmware before: it saved every channel, so its ``click`` spec is the old default (the
    piezo on, over a pin that floats when no piezo is wired) unless someone changed it; that
    spec loads as today's default (off). ``Capture.boot`` checks every spec; a file it cannot read
    loads as ``DEFAULT_CHANNELS``.
    """

    PATH = "channels.json"
    FORMAT = 2

    def load(self) -> object:
        """Returns the saved specs as read (``Capture.boot`` checks them), else the defaults."""
        import json

        try:
            with open(self.PATH) as f:
                saved = json.load(f)
        except (OSError, ValueError):
            return DEFAULT_CHANNELS
        if isinstance(saved, dict):
            return saved.get("channels")
        if isinstance(saved, list):
            return [DEFAULT_CHANNELS[13] if _is_old_click(spec) else spec for spec in saved]
        return saved

    def save(self, specs: list[tuple[int, str, int, int, int, int, int]]) -> None:
        import json

        with open(self.PATH, "w") as f:
            json.dump({"format": self.FORMAT, "channels": [list(spec) for spec in specs]}, f)


#: The ``click`` spec the firmware before saved by default (piezo on).
OLD_CLICK_DEFAULT = (13, "click", P.MODE_PIEZO, 26, 0, 12000, 30000)


def _is_old_click(spec: object) -> bool:
    return isinstance(spec, list) and tuple(spec) == OLD_CLICK_DEFAULT


def _take_flag(path: str) -> bool:
    """Returns whether the flag file exists, removing it."""
    import os

    try:
        os.remove(path)
    except OSError:
        return False
    return True


def _bootsel() -> "Callable[[], int] | None":
    """Returns the function that reads BOOTSEL (None where the port has no such button)."""
    try:
        import rp2  # type: ignore[import-not-found,import-untyped,unused-ignore]

        button: Callable[[], int] = rp2.bootsel_button
        return button
    except (ImportError, AttributeError):
        return None


def main() -> None:
    """Starts the firmware on the board; returns only when the REPL was asked for.

    Resets the board after an uncaught exception (written to ``CRASH_FILE`` first) and
    after BOOTSEL was held (leaving ``REPL_FLAG``, so that the next boot stays in the REPL).
    BOOTSEL held at power-on returns at once, before the watchdog starts: whatever the
    firmware does at boot, the REPL stays reachable.
    """
    import os
    import struct
    import sys
    import time

    import machine  # type: ignore[import-not-found,unused-ignore]
    import micropython  # type: ignore[import-not-found,unused-ignore]

    if _take_flag(REPL_FLAG):
        print("main.py: REPL requested (BOOTSEL); the firmware is not running")
        return
    bootsel = _bootsel()
    if bootsel is not None and bootsel():  # before the watchdog: the way out of a boot loop
        print("main.py: BOOTSEL held at boot; the firmware is not running")
        return
    if hasattr(micropython, "alloc_emergency_exception_buf"):  # (not on the unix port)
        micropython.alloc_emergency_exception_buf(100)  # a report if an IRQ handler fails
    wdt = machine.WDT(timeout=WDT_MS)
    try:
        # (CPython's mypy sees its own time module; the rp2 check holds ``time`` to the board's)
        port = UsbPort(time, bootsel)  # type: ignore[arg-type,unused-ignore]
        store = FlashStore()
        boot_id = struct.unpack("<I", os.urandom(4))[0]
        firmware = Firmware(machine, time, port, boot_id,  # type: ignore[arg-type,unused-ignore]
                            channels=store.load(), store=store)
        firmware.run(stop=port.escape, feed=wdt.feed)
        with open(REPL_FLAG, "w") as f:
            f.write("1")
    except Exception as exc:  # anything: keep a note of it, then start again
        try:  # noqa: SIM105 - MicroPython has no contextlib.suppress
            with open(CRASH_FILE, "w") as f:
                sys.print_exception(exc, f)  # type: ignore[attr-defined,unused-ignore]
        except Exception:  # a full flash must not stop the reset
            pass
    machine.reset()


if __name__ == "__main__":  # pragma: no cover
    main()
