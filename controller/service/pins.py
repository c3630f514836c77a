"""The Raspberry Pi's GPIO pins as ``[gpio.pins]`` names them, read before anything starts.

A pin is a BCM GPIO number (``17``, ``"17"``, ``"GPIO17"``, ``"BCM17"``), or a header pin
(``"BOARD11"``, ``"J8:11"``) or a wiringPi number (``"WPI0"``), as gpiozero reads them; the
40-pin header is the same on the Pi 3, 4 and 5. ``bcm(pin)`` returns the GPIO number a name
means, so a pin named twice in two ways is found, and refuses, with a hint, a number that is
no GPIO (a header pin number where a BCM number is expected, a power or ground pin).
"""

from __future__ import annotations

import re

#: The 40-pin header: the GPIO (BCM number) at each header pin that has one.
HEADER: dict[int, int] = {
    3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10,
    21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19,
    36: 16, 37: 26, 38: 20, 40: 21}
#: The header pins that carry no GPIO.
POWER: dict[int, str] = {1: "3.3 V", 17: "3.3 V", 2: "5 V", 4: "5 V",
                         **{p: "ground" for p in (6, 9, 14, 20, 25, 30, 34, 39)}}
#: wiringPi's numbering (gpiozero's ``WPI`` names).
WIRING_PI: dict[int, int] = {
    0: 17, 1: 18, 2: 27, 3: 22, 4: 23, 5: 24, 6: 25, 7: 4, 8: 2, 9: 3, 10: 8, 11: 7, 12: 10,
    13: 9, 14: 11, 15: 14, 16: 15, 21: 5, 22: 6, 23: 13, 24: 19, 25: 26, 26: 12, 27: 16,
    28: 20, 29: 21, 30: 0, 31: 1}
#: The GPIOs the header carries (BCM 0–27).
GPIOS = range(28)

_NAME = re.compile(r"^(GPIO|BCM|BOARD|J8:|WPI)?(\d+)$")


def bcm(pin: int | str) -> int:
    """Returns the BCM GPIO number ``pin`` names.

    Raises ValueError saying why it names none, with a hint where one helps (a header pin
    number given as a BCM number: the GPIO it is, or the power or ground it carries)."""
    if isinstance(pin, bool):
        raise ValueError(f"{pin!r} is not a pin")
    match = _NAME.match(pin.strip().upper()) if isinstance(pin, str) else None
    if isinstance(pin, str) and match is None:
        raise ValueError(f"{pin!r} is not a pin name: a BCM number (17, \"GPIO17\") or a header "
                         "pin (\"BOARD11\")")
    prefix, number = (match.group(1) or "", int(match.group(2))) if match else ("", int(pin))
    if prefix in ("BOARD", "J8:"):
        if number in HEADER:
            return HEADER[number]
        carries = POWER.get(number)
        raise ValueError(f"header pin {number} is {carries}, not a GPIO" if carries
                         else f"the header has no pin {number} (1–40)")
    if prefix == "WPI":
        if number in WIRING_PI:
            return WIRING_PI[number]
        raise ValueError(f"wiringPi has no pin {number}")
    if number in GPIOS:
        return number
    return _not_a_gpio(number)


def _not_a_gpio(number: int) -> int:
    """Raises the ValueError for a BCM number the Pi does not have, with a hint."""
    hint = ""
    if number in HEADER:
        hint = (f": header pin {number} is GPIO {HEADER[number]}; write {HEADER[number]} "
                f"(the BCM number) or \"BOARD{number}\"")
    elif number in POWER:
        hint = f": header pin {number} is {POWER[number]}, not a GPIO"
    raise ValueError(f"{number} is no GPIO (BCM numbers are 0–27){hint}")
