"""The sensor backend on the Raspberry Pi's own pins, through gpiozero 2.

One ``DigitalInputDevice`` per channel (pocket beams, cushion sensors, and the optional
``cue`` / ``strike`` / ``click`` channels), pins from a ``{channel: pin}`` mapping. Beam
receivers and the cue-ball detector are open-collector, low when broken (pull-up, active
low); SW-420-style vibration modules (cushions, strike, click) are high when shaken
(pull-down, active high). No ``bounce_time``: filtering belongs to fusion.

Times come from the source: the tick the pin factory reports with each edge (lgpio's kernel
timestamp, on ``CLOCK_MONOTONIC``; MockFactory's tick), converted to the host's monotonic
seconds by subtracting the edge's age on the factory's clock from the host clock, not the
moment the callback or the event loop ran. The factory's ``ticks()`` must be local and cheap
(lgpio, MockFactory; not a remote pigpio daemon). gpiozero keeps only a weak reference to a pin's
``when_changed``, so the backend holds its handlers itself. Handlers run on the library's
thread and hand each event to the loop with ``call_soon_threadsafe``; the loop appends it to
a bounded buffer, and an event that finds the buffer full is counted in
``stats().overflows`` and logged, never dropped silently.

The pin factory is injected, never set on ``Device.pin_factory``. ``pi_pin_factory()``
builds the lgpio factory for the board it runs on, on the RP1 chip on a Raspberry Pi 5.

Errors::

    GpioError                          root of this module's errors
    ├── PinConfigError (ValueError)    a channel or pin the mapping cannot use
    ├── PinFactoryError (RuntimeError) the pin factory failed (pin in use, no RP1 chip, ...)
    └── NotEntered (RuntimeError)      events() asked of a backend outside its ``async with``
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from gpiozero import DigitalInputDevice  # type: ignore[import-untyped]
from gpiozero.exc import GPIOZeroError  # type: ignore[import-untyped]

from hardware.backend import BackendStats
from hardware.events import LinkChanged, SensorEvent
from vocabulary import ChannelError, Kind, parse_channel

log = logging.getLogger(__name__)

#: Longest acceptable gap between the host readings around a factory tick (seconds).
_BRACKET = 0.0002

__all__ = [
    "DEFAULT_WIRING",
    "GpioBackend",
    "GpioError",
    "NotEntered",
    "PinConfigError",
    "PinFactory",
    "PinFactoryError",
    "RP1_LABEL",
    "Wiring",
    "inverted",
    "is_pi5",
    "pi_pin_factory",
    "rp1_chip",
]


class GpioError(Exception):
    """Root of the GPIO backend's errors."""


class PinConfigError(GpioError, ValueError):
    """A channel or pin that the GPIO backend cannot use."""


class PinFactoryError(GpioError, RuntimeError):
    """The pin factory could not give the backend its pins."""


class NotEntered(GpioError, RuntimeError):
    """The backend was used outside its ``async with``."""


class PinFactory(Protocol):
    """What the backend uses of a gpiozero pin factory (``MockFactory``, ``LGPIOFactory``)."""

    def ticks(self) -> Any:
        """Returns the factory's current tick (opaque; compare with ``ticks_diff``)."""
        ...

    def ticks_diff(self, later: Any, earlier: Any) -> float:
        """Returns the seconds from tick ``earlier`` to tick ``later``."""
        ...


@dataclass(frozen=True, slots=True)
class Wiring:
    """How a sensor is wired: the pin's pull resistor and which level means 1.

    ``pull_up`` True (pull-up) implies active low, False (pull-down) active high; None
    leaves the pin floating and ``active_high`` says which level is active.
    """

    pull_up: bool | None
    active_high: bool

    def __post_init__(self) -> None:
        if self.pull_up is not None and self.active_high == self.pull_up:
            raise PinConfigError(
                f"a pull-{'up' if self.pull_up else 'down'} input is active "
                f"{'low' if self.pull_up else 'high'}; use pull_up=None for the other polarity"
            )


#: Open-collector receivers pulled up, low when the beam is broken (or the cue ball passes).
ACTIVE_LOW = Wiring(pull_up=True, active_high=False)
#: Modules that drive their output high while shaken.
ACTIVE_HIGH = Wiring(pull_up=False, active_high=True)

DEFAULT_WIRING: Mapping[Kind, Wiring] = {
    Kind.BEAM: ACTIVE_LOW,
    Kind.CUE: ACTIVE_LOW,
    Kind.CUSHION: ACTIVE_HIGH,
    Kind.STRIKE: ACTIVE_HIGH,
    Kind.CLICK: ACTIVE_HIGH,
}


def inverted(channels: Iterable[str]) -> dict[str, Wiring]:
    """Returns the wiring of ``channels`` whose sensors drive the opposite level of
    ``DEFAULT_WIRING`` (a beam receiver that drives its output high while its beam is broken):
    no pull resistor (the sensor drives the pin both ways) and the other active level.

    Raises PinConfigError for a channel the GPIO backend does not carry.
    """
    return {ch: Wiring(pull_up=None, active_high=not DEFAULT_WIRING[_gpio_kind(ch)].active_high)
            for ch in channels}


def _gpio_kind(channel: str) -> Kind:
    """Returns the kind of a channel GPIO carries; raises PinConfigError for any other."""
    try:
        kind, _ = parse_channel(channel)
    except ChannelError as exc:
        raise PinConfigError(str(exc)) from exc
    if kind not in DEFAULT_WIRING:
        raise PinConfigError(f"{channel!r} is not a GPIO channel (a reader, not a pin)")
    return kind


@dataclass(slots=True)
class _Input:
    channel: str
    device: Any  # gpiozero.DigitalInputDevice (untyped)
    active_high: bool
    handler: Callable[[Any, Any], None]  # held here: gpiozero only keeps a weak reference


class GpioBackend:
    """Sensor events from the Pi's pins (see the module docstring).

    ``pins`` maps channels (interfaces §2) to gpiozero pin names (``17``, ``"GPIO17"``,
    ``"BOARD11"``); ``wiring`` overrides ``DEFAULT_WIRING`` per channel; ``queue_size``
    bounds the items waiting for the consumer, queued or still in flight to the loop;
    ``clock`` is the host's monotonic clock. Raises PinConfigError for a channel GPIO cannot
    carry (``ball_id``), an unknown channel, or a pin given twice.
    """

    def __init__(
        self,
        pins: Mapping[str, int | str],
        *,
        pin_factory: PinFactory,
        wiring: Mapping[str, Wiring] | None = None,
        queue_size: int = 4096,
        name: str = "gpio",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if queue_size < 1:
            raise PinConfigError(f"queue_size must be at least 1, not {queue_size}")
        self.name = name
        self._pins = dict(pins)
        self._wiring = _wiring_for(self._pins, wiring or {})
        self._factory = pin_factory
        self._clock = clock
        self._maxlen = queue_size
        self._buffer: deque[SensorEvent | LinkChanged] = deque()
        self._ready: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inputs: list[_Input] = []
        self._stats = BackendStats(links={name: False})
        self._lost_since_report = 0
        self._lock = threading.Lock()  # the counters: touched by the library thread too
        self._held = 0  # items admitted and not yet taken by the consumer
        self._open = False
        self._ended = False

    @property
    def channels(self) -> tuple[str, ...]:
        """Returns the channels this backend carries, in mapping order."""
        return tuple(self._pins)

    async def __aenter__(self) -> Self:
        self._loop = asyncio.get_running_loop()
        self._ready = asyncio.Event()
        try:
            for channel, pin in self._pins.items():
                self._inputs.append(self._open_input(channel, pin))
        except GPIOZeroError as exc:
            self._close_inputs()
            raise PinFactoryError(f"{self.name}: cannot open pins: {exc}") from exc
        self._open = True
        now = self._clock()
        with self._lock:
            self._stats.links[self.name] = True
        self._push(LinkChanged(t=now, source=self.name, up=True, channels=self.channels))
        # A reading, not an edge: a channel already at 1 (a ball lodged in a beam) is reported.
        for inp in self._inputs:
            if inp.device.value:
                self._push(SensorEvent(t=now, ch=inp.channel, v=1))
        log.info("%s: %d channels open", self.name, len(self._inputs))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._close_inputs()
        # Edges already handed to the loop are delivered before the link goes down.
        await asyncio.sleep(0)
        was_open, self._open = self._open, False
        if was_open:
            with self._lock:
                self._stats.links[self.name] = False
            self._push(
                LinkChanged(
                    t=self._clock(), source=self.name, up=False, reason="closed",
                    channels=self.channels,
                )
            )
            self._ended = True
        if self._ready is not None:
            self._ready.set()

    async def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        """Yields events in source order; ends once the backend is closed and drained.

        One consumer at a time.
        """
        if self._ready is None:
            raise NotEntered(f"{self.name}: events() before the backend was entered")
        ready = self._ready
        while True:
            while self._buffer:
                item = self._buffer.popleft()
                self._release()
                yield item
            if not self._open:
                return
            ready.clear()
            await ready.wait()

    def stats(self) -> BackendStats:
        """Returns a copy of the counters: edges received, overflows, link state."""
        with self._lock:
            s = self._stats
            return BackendStats(
                events=s.events, overflows=s.overflows, bad_frames=s.bad_frames,
                sequence_gaps=s.sequence_gaps, reconnects=s.reconnects, links=dict(s.links),
            )

    # --- pins and their handlers (handlers run on the library's thread) ----------------------

    def _open_input(self, channel: str, pin: int | str) -> _Input:
        w = self._wiring[channel]
        device = DigitalInputDevice(
            pin,
            pull_up=w.pull_up,
            active_state=w.active_high if w.pull_up is None else None,
            bounce_time=None,
            pin_factory=self._factory,
        )
        handler = self._handler(channel, w.active_high)
        # Replaces the device's own handler: the pin reports (ticks, state), the source time.
        device.pin.when_changed = handler
        return _Input(channel=channel, device=device, active_high=w.active_high, handler=handler)

    def _handler(self, channel: str, active_high: bool) -> Callable[[Any, Any], None]:
        factory, clock = self._factory, self._clock

        def on_edge(ticks: Any, state: Any) -> None:
            # On the library's thread. The edge's age on the factory's clock, taken from now
            # on the host's clock: no offset to drift, no tick wrap-around to track. "Now" is
            # bracketed by two host readings, retried if the thread lost the GIL in between.
            for _ in range(3):
                before = clock()
                now_tick = factory.ticks()
                after = clock()
                if after - before < _BRACKET:
                    break
            age = factory.ticks_diff(now_tick, ticks)
            t = (before + after) / 2 - age
            event = SensorEvent(t=t, ch=channel, v=int(bool(state) == active_high))
            loop = self._loop
            if loop is None or not self._open or not self._admit(event):
                return
            try:
                loop.call_soon_threadsafe(self._deliver, event)
            except RuntimeError:  # the loop closed under us: the backend is going away
                self._release()
                log.debug("%s: edge on %s after the loop closed", self.name, channel)

        return on_edge

    def _admit(self, item: SensorEvent | LinkChanged) -> bool:
        """Returns whether the item fits: the bound covers items queued and in flight.

        Counts every event and every overflow; logs the first loss of a run, and the run's
        size once there is room again.
        """
        with self._lock:
            if isinstance(item, SensorEvent):
                self._stats.events += 1
            if self._held >= self._maxlen:
                self._stats.overflows += 1
                self._lost_since_report += 1
                admitted, first, lost = False, self._lost_since_report == 1, 0
            else:
                self._held += 1
                admitted, first, lost = True, False, self._lost_since_report
                self._lost_since_report = 0
            total = self._stats.overflows
        if first:
            log.warning("%s: event queue full (%d); dropping %s and counting overflows",
                        self.name, self._maxlen, item)
        elif lost:
            log.warning("%s: queue has room again; %d events were lost (%d in all)",
                        self.name, lost, total)
        return admitted

    # --- the loop's side ----------------------------------------------------------------

    def _deliver(self, item: SensorEvent | LinkChanged) -> None:
        if self._ended:  # a late edge after the link-down record: the stream is over
            self._release()
            log.debug("%s: %s after close, not delivered", self.name, item)
            return
        self._buffer.append(item)
        if self._ready is not None:
            self._ready.set()

    def _push(self, item: SensorEvent | LinkChanged) -> None:
        """Queues an item made on the loop (link records, first readings) like an edge."""
        if self._admit(item):
            self._deliver(item)

    def _release(self) -> None:
        with self._lock:
            self._held -= 1

    def _close_inputs(self) -> None:
        for inp in self._inputs:
            try:
                inp.device.pin.when_changed = None
                inp.device.close()
            except GPIOZeroError as exc:  # closing must finish for every pin
                log.warning("%s: closing %s: %s", self.name, inp.channel, exc)
        self._inputs.clear()


def _wiring_for(pins: Mapping[str, int | str], overrides: Mapping[str, Wiring]) -> dict[str, Wiring]:
    out: dict[str, Wiring] = {}
    seen: dict[str, str] = {}
    for channel, pin in pins.items():
        kind = _gpio_kind(channel)
        key = str(pin).upper().removeprefix("GPIO").removeprefix("BCM")
        if key in seen:
            raise PinConfigError(f"pin {pin!r} given to both {seen[key]!r} and {channel!r}")
        seen[key] = channel
        out[channel] = overrides.get(channel, DEFAULT_WIRING[kind])
    unknown = set(overrides) - set(pins)
    if unknown:
        raise PinConfigError(f"wiring for channels without pins: {sorted(unknown)}")
    return out


# --- choosing the real pin factory ----------------------------------------------------------

#: The label of the Raspberry Pi 5's RP1 GPIO chip (gpiochip4 on older kernels, 0 on newer).
RP1_LABEL = "pinctrl-rp1"
#: Board types (revision bits 4–11) built on the RP1: 5B, CM5, 500, CM5 Lite.
_RP1_BOARD_TYPES = frozenset({0x17, 0x18, 0x19, 0x1A})


def is_pi5(revision: int) -> bool:
    """Returns whether a board revision code names a Pi 5 family board (GPIO on RP1)."""
    new_style = bool(revision & 0x800000)
    return new_style and (revision >> 4) & 0xFF in _RP1_BOARD_TYPES


def rp1_chip(labels: Iterable[tuple[int, str]]) -> int:
    """Returns the number of the gpiochip labelled ``pinctrl-rp1`` among (number, label).

    Raises PinFactoryError when there is none.
    """
    found = sorted(n for n, label in labels if label == RP1_LABEL)
    if not found:
        raise PinFactoryError(f"no gpiochip labelled {RP1_LABEL!r}: is this a Raspberry Pi 5?")
    return found[0]


def _lgpio_chip_labels() -> list[tuple[int, str]]:
    lgpio = importlib.import_module("lgpio")
    out: list[tuple[int, str]] = []
    for dev in sorted(Path("/dev").glob("gpiochip*")):
        number = int(dev.name.removeprefix("gpiochip"))
        try:
            handle = lgpio.gpiochip_open(number)
        except Exception as exc:  # lgpio.error; an unreadable chip is not the RP1
            log.debug("cannot open %s: %s", dev, exc)
            continue
        try:
            _status, _lines, _name, label = lgpio.gpio_get_chip_info(handle)
            out.append((number, str(label)))
        finally:
            lgpio.gpiochip_close(handle)
    return out


def pi_pin_factory(
    *,
    revision: int | None = None,
    chip_labels: Callable[[], Iterable[tuple[int, str]]] = _lgpio_chip_labels,
) -> PinFactory:
    """Returns an lgpio pin factory for this Pi: the RP1 chip on a Pi 5, chip 0 before it.

    A workaround: gpiozero 2.0.1 (checked against 2.0.1.post3) opens gpiochip4 on every Pi 5,
    but kernels from 6.6.45 number the RP1 chip 0 (raspberrypi/linux#6144), so gpiozero finds
    no pin there (gpiozero/gpiozero#1166, open). The chip is found by its label instead and
    passed as ``chip`` (which ``LGPIOFactory`` honours since gpiozero/gpiozero#1181). Delete
    this when a gpiozero release closes #1166.

    ``revision`` defaults to the board's own. Raises PinFactoryError when lgpio is missing
    (``pip install .[pi]``) or no suitable chip is found.
    """
    try:
        lgpio_pins = importlib.import_module("gpiozero.pins.lgpio")
        if revision is None:
            local = importlib.import_module("gpiozero.pins.local")
            revision = int(local.get_pi_revision())
        chip = rp1_chip(chip_labels()) if is_pi5(revision) else 0
        factory: PinFactory = lgpio_pins.LGPIOFactory(chip=chip)
    except PinFactoryError:
        raise
    except ImportError as exc:
        raise PinFactoryError(f"lgpio is not installed: {exc}") from exc
    except Exception as exc:  # GPIOZeroError, lgpio.error, OSError: translated at the edge
        raise PinFactoryError(f"cannot open the GPIO chip: {exc}") from exc
    log.info("GPIO: lgpio on gpiochip%d (revision %06x)", chip, revision)
    return factory
