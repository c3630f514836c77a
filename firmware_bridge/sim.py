"""The board firmware under CPython: a ``machine`` shim, a board clock and a pseudo-terminal.

``SimBoard`` runs the real ``firmware/main.py`` in a thread against one end of a pty; the
host opens the other end (``SimBoard.path``) exactly as it opens a USB board. Tests drive it:
``edge`` makes a pin change (the IRQ sees the tick of the instant asked for, as a hardware
timestamp would), ``set_analog`` feeds a piezo ADC (sampled by the firmware's timer, fired
at each of its due instants), ``unplug`` / ``replug`` pull the cable (the pty goes away; it
comes back under the same stable path), and the clock can start near its wrap and run fast
or slow (``start_tick``, ``drift_ppm``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

from firmware_bridge.firmware.main import DEFAULT_CHANNELS, Firmware

RP2_TICK_BITS = 30  # time.ticks_us() on the RP2040 wraps at 2**30
_PERIOD = 1 << RP2_TICK_BITS
_HALF = _PERIOD >> 1


class SimClock:
    """A board's microsecond tick counter as a function of host monotonic time.

    ``start_tick`` is the (unwrapped) tick at creation; the board runs ``drift_ppm`` fast.
    Ticks wrap at 2**30 like MicroPython's ``time.ticks_us`` on the RP2040.
    """

    def __init__(
        self,
        start_tick: int = 0,
        drift_ppm: float = 0.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._monotonic = monotonic
        self.origin = monotonic()
        self.start_tick = start_tick
        self.rate = 1e6 * (1.0 + drift_ppm * 1e-6)  # ticks per host second
        self._frozen = threading.local()

    def ext_at(self, host_t: float) -> int:
        """Returns the unwrapped tick at host time ``host_t``."""
        return self.start_tick + int((host_t - self.origin) * self.rate)

    def now(self) -> float:
        """Returns the host time now (or the frozen instant, inside ``frozen``)."""
        at: float | None = getattr(self._frozen, "at", None)
        return self._monotonic() if at is None else at

    def ticks_us(self) -> int:
        """Returns the tick now (or the frozen instant, inside ``frozen``), wrapped."""
        return self.ext_at(self.now()) % _PERIOD

    @contextlib.contextmanager
    def frozen(self, host_t: float | None) -> Iterator[None]:
        """Makes ``ticks_us`` in this thread return the tick of ``host_t`` (None: now)."""
        self._frozen.at = host_t
        try:
            yield
        finally:
            self._frozen.at = None

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        """Returns ``a - b`` in ticks, signed, across a wrap (MicroPython semantics)."""
        return ((a - b + _HALF) % _PERIOD) - _HALF

    @staticmethod
    def ticks_add(a: int, delta: int) -> int:
        """Returns ``a + delta`` wrapped."""
        return (a + delta) % _PERIOD


class SimPin:
    """``machine.Pin`` of the shim: a level the test sets, and an IRQ it fires."""

    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    _machine: ClassVar[SimMachine]

    def __init__(self, id: int, mode: int = -1, pull: int = -1) -> None:
        self.id = id
        self.mode = mode
        self.pull = pull

    def value(self, v: int | None = None) -> int:
        """Returns the pin's level (sets it first when given)."""
        if v is not None:
            self._machine.levels[self.id] = 1 if v else 0
        return self._machine.levels.get(self.id, 0)

    def irq(
        self,
        handler: Callable[[SimPin], None] | None = None,
        trigger: int = IRQ_FALLING | IRQ_RISING,
        hard: bool = False,
    ) -> None:
        """Attaches (or with None detaches) the pin's interrupt handler."""
        if handler is None:
            self._machine.irqs.pop(self.id, None)
        else:
            self._machine.irqs[self.id] = (handler, trigger, self)


class SimADC:
    """``machine.ADC`` of the shim: reads what the test's signal says at this instant."""

    def __init__(self, machine: SimMachine, pin: SimPin) -> None:
        self._machine = machine
        self.pin = pin.id

    def read_u16(self) -> int:
        signal = self._machine.analog.get(self.pin)
        if signal is None:
            return 0
        return max(0, min(0xFFFF, int(signal(self._machine.clock.now()))))


class SimTimer:
    """``machine.Timer`` of the shim: periodic; ``SimMachine.run_timers`` fires it."""

    PERIODIC = 1
    ONE_SHOT = 0

    def __init__(self, machine: SimMachine, period: float, callback: Callable[[SimTimer], None]):
        self._machine = machine
        self.period = period
        self.callback = callback
        self.due = machine.clock.now() + period

    def deinit(self) -> None:
        """Stops the timer."""
        if self in self._machine.timers:
            self._machine.timers.remove(self)


class SimMachine:
    """The ``machine`` module of the shim: Pin, ADC, Timer, unique_id and IRQ masking."""

    def __init__(self, clock: SimClock, uid: bytes) -> None:
        self.clock = clock
        self._uid = uid
        self._lock = threading.RLock()  # held = interrupts disabled
        self.levels: dict[int, int] = {}
        self.irqs: dict[int, tuple[Callable[[SimPin], None], int, SimPin]] = {}
        self.analog: dict[int, Callable[[float], float]] = {}
        self.timers: list[SimTimer] = []
        self.Pin: type[SimPin] = type("Pin", (SimPin,), {"_machine": self})
        machine = self

        class Timer(SimTimer):
            def __init__(self, id: int = -1, *, mode: int = SimTimer.PERIODIC, freq: float = 1.0,
                         callback: Callable[[SimTimer], None], hard: bool = False) -> None:
                super().__init__(machine, 1.0 / freq, callback)
                machine.timers.append(self)

        self.Timer = Timer

    def unique_id(self) -> bytes:
        return self._uid

    def ADC(self, pin: SimPin) -> SimADC:  # noqa: N802 - the machine module's name
        return SimADC(self, pin)

    def run_timers(self, until: float | None = None) -> None:
        """Fires every timer due up to ``until`` (None: now), each at its due instant."""
        end = self.clock.now() if until is None else until
        for timer in list(self.timers):
            while timer.due <= end and timer in self.timers:
                with self._lock, self.clock.frozen(timer.due):
                    timer.callback(timer)
                timer.due += timer.period

    def disable_irq(self) -> int:
        self._lock.acquire()
        return 0

    def enable_irq(self, state: int) -> None:
        self._lock.release()

    def drive(self, pin: int, value: int, at: float | None = None) -> None:
        """Sets a pin's level as the sensor would, firing its IRQ with the tick of ``at``
        (host monotonic seconds; None: now)."""
        with self._lock, self.clock.frozen(at):
            old = self.levels.get(pin, 0)
            self.levels[pin] = value
            entry = self.irqs.get(pin)
            if entry is not None and old != value:
                handler, trigger, obj = entry
                if trigger & (SimPin.IRQ_RISING if value else SimPin.IRQ_FALLING):
                    handler(obj)


class PtyPort:
    """The board's end of a pseudo-terminal, reachable at a stable path (like by-id links)."""

    def __init__(self, link: str | None = None) -> None:
        self.link = link
        self._lock = threading.Lock()
        self.master = -1
        self.slave = -1
        self.device = ""
        self.dropped = 0  # bytes written while unplugged or never read
        #: A fault to inject: each write's bytes pass through it (None: untouched).
        self.mangle: Callable[[bytes], bytes] | None = None
        self.plug()

    @property
    def path(self) -> str:
        """Returns the path the host opens."""
        return self.link or self.device

    def plug(self) -> None:
        """Creates the pty (and points the stable link at it)."""
        with self._lock:
            if self.master >= 0:
                return
            master, slave = os.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            self.master, self.slave, self.device = master, slave, os.ttyname(slave)
            if self.link:
                tmp = f"{self.link}.{os.getpid()}.tmp"
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
                os.symlink(self.device, tmp)
                os.replace(tmp, self.link)

    def unplug(self) -> None:
        """Closes the pty: the host's reads fail as when a USB cable is pulled."""
        with self._lock:
            if self.master < 0:
                return
            os.close(self.master)
            os.close(self.slave)
            self.master = self.slave = -1
            if self.link:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.link)

    def read(self) -> bytes | None:
        with self._lock:
            if self.master < 0:
                return None
            try:
                return os.read(self.master, 4096) or None
            except BlockingIOError:
                return None
            except OSError as exc:
                if exc.errno == errno.EIO:  # nobody at the other end
                    return None
                raise

    def write(self, data: bytes) -> None:
        if self.mangle is not None:
            data = self.mangle(data)
        view = memoryview(data)
        deadline = time.monotonic() + 0.2
        with self._lock:
            while view:
                if self.master < 0:
                    self.dropped += len(view)
                    return
                try:
                    sent = os.write(self.master, view)
                    view = view[sent:]
                except (BlockingIOError, InterruptedError):
                    if time.monotonic() > deadline:
                        self.dropped += len(view)
                        return
                    select.select([], [self.master], [], 0.01)
                except OSError:
                    self.dropped += len(view)
                    return

    def idle(self) -> None:
        """Waits up to a millisecond for bytes from the host."""
        with self._lock:
            fd = self.master
            if fd >= 0:
                select.select([fd], [], [], 0.001)
                return
        time.sleep(0.001)

    def close(self) -> None:
        self.unplug()


Specs = tuple[tuple[int, str, int, int, int, int, int], ...]


class SimStore:
    """The board's flash, for its channel configuration: kept across ``reboot``."""

    def __init__(self, specs: Specs) -> None:
        self.specs = specs
        self.saves = 0

    def load(self) -> Specs:
        return self.specs

    def save(self, specs: list[tuple[int, str, int, int, int, int, int]]) -> None:
        self.specs = tuple(specs)
        self.saves += 1


class SimBoard:
    """The real firmware on a simulated RP2040 on a pty, in a thread; a context manager."""

    def __init__(
        self,
        *,
        link: str | Path | None = None,
        uid: str = "e6614103e7000001",
        boot_id: int | None = None,
        start_tick: int = 0,
        drift_ppm: float = 0.0,
        heartbeat_ms: int = 100,
        channels: tuple[tuple[int, str, int, int, int, int, int], ...] = DEFAULT_CHANNELS,
        ring_size: int = 512,
    ) -> None:
        self.clock = SimClock(start_tick, drift_ppm)
        self.machine = SimMachine(self.clock, bytes.fromhex(uid))
        self.port = PtyPort(str(link) if link else None)
        self.uid = uid
        self._drift_ppm = drift_ppm
        self.store = SimStore(channels)
        self._ring_size = ring_size
        self._heartbeat_ms = heartbeat_ms
        self.boot_id = int.from_bytes(os.urandom(4), "little") if boot_id is None else boot_id
        self.firmware = self._boot()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _boot(self) -> Firmware:
        return Firmware(
            self.machine, self.clock, self.port, self.boot_id, uid=self.uid,
            channels=self.store.load(), ring_size=self._ring_size,
            heartbeat_ms=self._heartbeat_ms, store=self.store,
        )

    @property
    def path(self) -> str:
        """Returns the serial device path to connect to."""
        return self.port.path

    def start(self) -> SimBoard:
        """Boots the firmware in a thread; returns self."""
        # The watchdog's feed, every round of the main loop: where the timers fire.
        self._thread = threading.Thread(
            target=self.firmware.run, args=(self._stop.is_set, self.machine.run_timers),
            name=f"board-{self.uid}", daemon=True,
        )
        self._thread.start()
        return self

    def hang(self) -> None:
        """Stops the firmware but leaves the pty in place: a board that hangs."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
            self._thread = None

    def stop(self) -> None:
        """Stops the firmware and removes the pty."""
        self.hang()
        self.port.close()

    def reboot(self, boot_id: int | None = None) -> None:
        """Resets the board: a new boot id, ticks from 0, edges numbered from 0."""
        self.hang()
        self.boot_id = int.from_bytes(os.urandom(4), "little") if boot_id is None else boot_id
        self.clock = SimClock(0, self._drift_ppm)
        self.machine.clock = self.clock
        self.machine.irqs.clear()
        self.machine.timers.clear()
        self.firmware = self._boot()
        self._stop = threading.Event()
        self.start()

    def __enter__(self) -> SimBoard:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def pin_of(self, channel: str | int) -> int:
        """Returns the pin of a channel given by name or number.

        Raises KeyError for a channel the board does not have.
        """
        for ch in self.firmware.channels.values():
            if channel in (ch.name, ch.index):
                return ch.pin_no
        raise KeyError(channel)

    def edge(self, channel: str | int, value: int, at: float | None = None) -> None:
        """Makes a digital channel change to ``value`` at host monotonic time ``at``."""
        self.machine.drive(self.pin_of(channel), value, at)

    def set_analog(self, channel: str | int, signal: Callable[[float], float]) -> None:
        """Feeds a piezo channel's ADC: ``signal(host_time) -> 0…65535``."""
        self.machine.analog[self.pin_of(channel)] = signal

    def unplug(self) -> None:
        """Pulls the cable: the pty disappears, the firmware keeps running."""
        self.port.unplug()

    def replug(self) -> None:
        """Plugs the cable back in: a new pty under the same stable path."""
        self.port.plug()
