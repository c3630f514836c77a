"""The rp2 port's ``machine`` module, as far as the firmware uses it, for MicroPython's unix port.

Tests only. Interrupt handlers are called the way the rp2 port calls a hard IRQ: with the
heap locked (``micropython.heap_lock()``), so a handler that allocates raises MemoryError;
``failures`` collects those. ``disable_irq`` locks the heap too (nothing may allocate with
interrupts off) and holds pin interrupts back: an edge meanwhile is latched in its IRQ's
``flags()``, as the RP2040's GPIO interrupt status is, and the handler runs once at
``enable_irq``. Files in the current directory tell ``main()``'s run what
to do and record what happened: ``fail_pins`` makes ``Pin()`` raise, ``wdt.txt`` is
written on the watchdog's first feed, ``reset`` is written by ``reset()`` (which then ends
the process with status 42, as a reset ends the firmware). With a file ``harness`` at the
watchdog's start, each feed (once a round of the main loop) applies the pin levels a test
puts in ``drive`` (lines ``pin level``), notes each in ``driven`` with the ticks just before
and just after it was applied (``pin level before after``) and removes ``drive``; a round
without one waits 300 µs (a board's loop is not a busy CPU's). ``uid`` (hex) is the
board's unique id where it exists.
"""

import micropython

levels = {}  # pin number -> level the "sensor" drives
analog = {}  # pin number -> the ADC reading
pins = {}  # pin number -> the Pin with an IRQ handler
timers = []
failures = []
_irq_state = [0]


def _file_exists(name):
    try:
        open(name).close()
        return True
    except OSError:
        return False


def _note(name, text):
    with open(name, "w") as f:
        f.write(text)


def _locked(handler, arg):
    micropython.heap_lock()
    try:
        handler(arg)
    finally:
        micropython.heap_unlock()


def in_hard_irq(handler, arg):
    """Calls ``handler(arg)`` with the heap locked; a MemoryError is noted in ``failures``."""
    try:
        _locked(handler, arg)
    except MemoryError:
        failures.append("MemoryError")


class Irq:
    """A pin's IRQ object: ``flags()`` are the edges latched for the handler running now."""

    def __init__(self):
        self.latched = 0
        self.now = 0

    def flags(self):
        return self.now


def _dispatch(p):
    p.irq_obj.now, p.irq_obj.latched = p.irq_obj.latched, 0
    in_hard_irq(p.handler, p)


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1):
        if _file_exists("fail_pins"):
            raise RuntimeError("stub pin failure")
        self.id = id
        self.handler = None
        self.trigger = 0
        self.hard = False
        self.irq_obj = Irq()

    def value(self):
        return levels.get(self.id, 0)

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING, hard=False):
        self.handler = handler
        self.trigger = trigger
        self.hard = hard
        if handler is None:
            pins.pop(self.id, None)
        else:
            pins[self.id] = self
        return self.irq_obj


def drive(pin, value):
    """Sets a pin's level; its handler (if any) runs as a hard IRQ would."""
    old = levels.get(pin, 0)
    levels[pin] = value
    p = pins.get(pin)
    if p is not None and old != value:
        p.irq_obj.latched |= Pin.IRQ_RISING if value else Pin.IRQ_FALLING
        if _irq_state[0] == 0:
            _dispatch(p)


class ADC:
    def __init__(self, pin):
        self.pin = pin.id

    def read_u16(self):
        return analog.get(self.pin, 0)


class Timer:
    PERIODIC = 1
    ONE_SHOT = 0

    def __init__(self, id=-1, mode=PERIODIC, freq=None, period=None, callback=None, hard=False):
        self.freq = freq
        self.callback = callback
        self.hard = hard
        timers.append(self)

    def deinit(self):
        if self in timers:
            timers.remove(self)


def fire_timers():
    """Runs every timer's callback once, as a hard IRQ."""
    for t in timers:
        in_hard_irq(t.callback, t)


def mask():
    """Holds pin interrupts back (what a flash write does), without locking the heap."""
    _irq_state[0] += 1
    return _irq_state[0] - 1


def unmask(state):
    """Lets pin interrupts through again: a pin with latched edges runs its handler once."""
    _irq_state[0] = state
    if state == 0:
        for p in list(pins.values()):
            if p.irq_obj.latched:
                _dispatch(p)


def disable_irq():
    state = mask()
    micropython.heap_lock()
    return state


def enable_irq(state):
    micropython.heap_unlock()
    unmask(state)


def unique_id():
    try:
        with open("uid") as f:
            return bytes.fromhex(f.read().strip())
    except OSError:
        return b"\xe6\x61\x41\x04\x01\x02\x03\x04"


def _drive_from_file():
    """Applies the levels a test left in ``drive`` (see the module doc)."""
    import os
    import time

    try:
        with open("drive") as f:
            lines = f.read().split("\n")
    except OSError:
        time.sleep_us(300)
        return
    os.remove("drive")
    with open("driven", "a") as out:
        for line in lines:
            if line.strip():
                pin, value = line.split()
                # the level changed somewhere between the two ticks (the VM may be preempted
                # between applying it and the handler's own reading of the clock)
                before = time.ticks_us()
                drive(int(pin), int(value))
                after = time.ticks_us()
                out.write(f"{pin} {value} {before} {after}\n")


class WDT:
    def __init__(self, id=0, timeout=5000):
        if timeout > 8388:
            raise ValueError("timeout exceeds 8388")
        self.timeout = timeout
        self.fed = 0
        self.harness = _file_exists("harness")

    def feed(self):
        self.fed += 1
        if self.fed == 1:
            _note("wdt.txt", str(self.timeout))
        if self.harness:
            _drive_from_file()


def reset():
    _note("reset", "1")
    raise SystemExit(42)
