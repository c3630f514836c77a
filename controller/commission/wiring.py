"""The wiring guide (``docs/wiring.md``), generated from the code's own vocabulary and maps.

Channel names come from ``vocabulary``, the Pi's pull resistors and active levels from
``hardware.gpio.DEFAULT_WIRING``, the Pi 5's GPIO chip label from ``hardware.gpio.RP1_LABEL``,
the sensor board's pin map from the firmware's ``DEFAULT_CHANNELS``; the reference pins of a
Pi are ``REFERENCE_PINS`` here, which ``deploy/controller.example.toml`` shows (a test holds them
equal). ``python -m controller.docs`` writes the guide; a test keeps it current.
"""

from __future__ import annotations

from typing import Final

from firmware_bridge import protocol as P
from firmware_bridge.firmware.main import DEFAULT_CHANNELS, PIEZO_HZ
from hardware.gpio import DEFAULT_WIRING, RP1_LABEL
from vocabulary import TABLE_CHANNELS, Kind, Pocket, Rail, beam, cushion, parse_channel

#: A reference wiring of a Pi's own pins (BCM numbers): every beam, cushion and the cue detector.
REFERENCE_PINS: Final[dict[str, int]] = {
    beam(Pocket.HEAD_LEFT): 5, beam(Pocket.HEAD_RIGHT): 6, beam(Pocket.SIDE_LEFT): 13,
    beam(Pocket.SIDE_RIGHT): 19, beam(Pocket.FOOT_LEFT): 26, beam(Pocket.FOOT_RIGHT): 21,
    cushion(Rail.HEAD): 17, cushion(Rail.FOOT): 27, cushion(Rail.LEFT_HEAD): 23,
    cushion(Rail.LEFT_FOOT): 24, cushion(Rail.RIGHT_HEAD): 25, cushion(Rail.RIGHT_FOOT): 16,
    Kind.CUE.value: 22,
}

#: The 40-pin header of every Pi since the B+ (3, 4, 5): BCM GPIO number -> physical pin.
HEADER: Final[dict[int, int]] = {
    2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31, 13: 33,
    19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24, 7: 26, 12: 32,
    16: 36, 20: 38, 21: 40,
}
HEADER_GROUND: Final = (6, 9, 14, 20, 25, 30, 34, 39)
HEADER_3V3: Final = (1, 17)

#: The Raspberry Pi Pico's pins: GPn -> physical pin.
PICO: Final[dict[int, int]] = {
    0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 7, 6: 9, 7: 10, 8: 11, 9: 12, 10: 14, 11: 15, 12: 16,
    13: 17, 14: 19, 15: 20, 16: 21, 17: 22, 18: 24, 19: 25, 20: 26, 21: 27, 22: 29, 26: 31,
    27: 32, 28: 34,
}
PICO_GROUND: Final = (3, 8, 13, 18, 23, 28, 38)
PICO_3V3_OUT: Final = 36
PICO_AGND: Final = 33
PICO_VSYS: Final = 39

_MODES = {P.MODE_OFF: "off", P.MODE_DIGITAL: "digital", P.MODE_PIEZO: "piezo (ADC)"}

_SENSORS_TEXT = """\
## The sensors

**IR break-beam pair** (a pocket's drop path, or the ball return's cue-ball detector): an
emitter and a receiver facing each other across the path, both on 3.3 V. Receivers come in two
polarities: open-collector ones (Adafruit 3 mm / 5 mm and alike) need a pull-up and pull their
output low while the beam is broken, which is what a Pi's pins expect; comparator modules
(LM393 boards) drive their output high while the beam is blocked, which is what the sensor
board expects. A receiver of the other polarity reads inverted: commissioning names it.

```
  emitter                        receiver
  red   ── 3V3                   red   ── 3V3
  black ── GND                   black ── GND
                                 white ── GPIO (pull-up)   low = beam broken (open collector)
```

**SW-420-style vibration module** (a cushion segment, the strike or click sensor): a board with
a spring switch, a comparator and a sensitivity potentiometer; its DO output is driven high
while the module is shaken. Screw it to the rail's wood under the cushion, one per segment;
the two halves of a long rail get one each, as far from the joint as the wire allows.

```
  VCC ── 3V3        GND ── GND        DO ── GPIO (pull-down)   high = shaken
```

**Piezo disc on an ADC pin** (sensor boards only: GP26–GP28): the disc's voltage swings well
past the pin's 0–3.3 V on a hard hit, for tens of microseconds. Every part below belongs to the
circuit: the series resistor limits the current into the clamp, the dual Schottky diode clamps
the pin to the rails, and the capacitor with the bleed resistor stretches each spike so that
the board's sampling sees it (the bleed also drains the disc, so the reading rests at 0).

```
  piezo (+) ──[ 10 kΩ ]──┬───────────── GP26 (ADC0)
                          ├──||───────── AGND   1 nF: charged in ~10 µs through the 10 kΩ
                          ├──[ 1 MΩ ]─── AGND   bleed: 1 MΩ × 1 nF = 1 ms to fall back
                          ├──|>|──────── 3V3    (BAT54S, or two 1N4148)
                          └──|<|──────── AGND
  piezo (−) ─────────────────────────── AGND
```

What the sampling can see: the board reads the ADC {hz} times a second, every {period:g} µs.
A bare spike shorter than that is seen only when a sample happens to fall inside it (a 50 µs
spike: one time in {one_in:g}); stretched to a 1 ms fall, a spike is still at 78 % or more of
its peak at the next sample, so every hit over the threshold is seen and its peak (`level`)
is read a little low (up to a fifth), the same for every hit. Without the capacitor, use a
comparator with its output on a digital input instead (a cushion's channel), not the ADC.
"""


_SENSORS = _SENSORS_TEXT.format(hz=PIEZO_HZ, period=1e6 / PIEZO_HZ,
                                one_in=(1e6 / PIEZO_HZ) / 50)


def _gpio_section() -> str:
    rows = []
    for ch in TABLE_CHANNELS:
        bcm = REFERENCE_PINS[ch]
        kind, _ = parse_channel(ch)
        w = DEFAULT_WIRING[kind]
        pull = "up" if w.pull_up else "down" if w.pull_up is False else "none"
        rows.append(f"| `{ch}` | GPIO{bcm} | {HEADER[bcm]} | {pull} | "
                    f"{'high' if w.active_high else 'low'} |")
    grounds = ", ".join(str(n) for n in HEADER_GROUND)
    volts = ", ".join(str(n) for n in HEADER_3V3)
    return "\n".join([
        "## A Raspberry Pi's own pins (`backend = \"gpio\"`)",
        "",
        "The reference wiring (`[gpio.pins]` in `deploy/controller.example.toml`); any free GPIO",
        "will do, as long as `[gpio.pins]` says which. The same 40-pin header on the Pi 3, 4 and 5.",
        "",
        "| channel | BCM | header pin | pull | 1 when the pin is |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"3.3 V on header pins {volts}; ground on {grounds}. Never 5 V on a GPIO pin.",
        "",
        "**Which GPIO chip.** On the Pi 3 and 4 the header's GPIOs are `gpiochip0`. On the Pi 5",
        f"they are on the RP1 chip, labelled `{RP1_LABEL}`: `gpiochip4` on kernels before 6.6.45,",
        "`gpiochip0` on later ones. The service finds the chip by its label, so either works; a",
        "Pi 5 needs lgpio (`pip install .[pi]`, as the install script does).",
        "",
        "A receiver of the other polarity (one that drives its output high while its beam is",
        "broken): list its channel in `gpio.invert`. Commissioning finds it.",
    ])


def _board_section() -> str:
    rows = []
    for index, name, mode, pin, debounce, threshold, mask in DEFAULT_CHANNELS:
        piezo = f"threshold {threshold}/65535, mask {mask / 1000:g} ms"
        extra = (piezo if mode == P.MODE_PIEZO
                 else f"debounce {debounce} µs" if mode == P.MODE_DIGITAL
                 else f"a piezo (ADC) once wired and protected: {piezo}" if threshold else "")
        rows.append(f"| {index} | `{name}` | GP{pin} | {PICO[pin]} | {_MODES[mode]} | {extra} |")
    grounds = ", ".join(str(n) for n in PICO_GROUND)
    return "\n".join([
        "## A sensor board (`backend = \"serial\"`: a Raspberry Pi Pico, RP2040)",
        "",
        "The firmware's default channel map (`firmware_bridge/firmware/main.py`); the host can",
        "change a channel's pin, mode and name (`ChannelConfig`, see `firmware_bridge/README.md`).",
        "A piezo wired to `click`: name it in `[serial] piezo = [\"click\"]`, and",
        "`commission` switches the channel on (the board keeps it).",
        "",
        "| ch | name | GP | Pico pin | mode | |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"3.3 V out on Pico pin {PICO_3V3_OUT}; ground on {grounds}; analogue ground (for a",
        f"piezo) on pin {PICO_AGND}. Every digital input has the RP2040's pull-up on, and the",
        "board reports the pin's level (high = 1). A receiver that pulls its pin low while its",
        "beam is broken (an open-collector one): list its channel in `serial.invert`.",
        "Commissioning finds it.",
        "",
        "**Power.** The board keeps every edge until the host has it, through an unplugged or",
        "broken USB cable, only while it has power. A Pico powered by its USB cable is off as",
        "soon as the cable is out, and starts again with nothing kept (the service then asks",
        "the referee about the shot, and health says the board restarted). Give each board its",
        f"own 5 V supply into VSYS (Pico pin {PICO_VSYS}) through a Schottky diode (1N5817 or",
        "alike, its bar towards VSYS): the Pico's own diode joins it to USB power, and the",
        "board keeps running while the cable is out.",
    ])


def wiring_markdown() -> str:
    """Returns the wiring guide as Markdown."""
    return "\n".join([
        "# Wiring a table",
        "",
        "Generated from the code by `python -m controller.docs` (the channel names, the pins of",
        "the reference wiring, the pull resistors and levels the backends use, the firmware's",
        "channel map); a test keeps it current. After wiring, run",
        "`python -m controller commission --config FILE`: it finds a swapped, dead, inverted or",
        "chattering channel and suggests the settings for the table's sensors",
        "([README](../README.md#commissioning-a-table)).",
        "",
        _SENSORS,
        _gpio_section(),
        "",
        _board_section(),
        "",
    ])
