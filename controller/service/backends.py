"""The sensor backends a configuration names on real hardware: the Pi's pins or sensor boards.

One place for the service (``run``) and commissioning (``commission``), so both listen to the
table the same way: the same pins, the same inverted receivers, the same boards.
"""

from __future__ import annotations

from typing import Any

from controller.service.config import Config, ConfigError
from hardware.backend import SensorBackend


def hardware_backend(config: Config, pin_factory: Any = None) -> SensorBackend:
    """Returns the backend of ``config.backend`` ``"gpio"`` or ``"serial"``; the GPIO one on
    ``pin_factory`` (default: this Pi's, ``hardware.gpio.pi_pin_factory``).

    Raises ConfigError for another backend or one with no pins or ports.
    """
    if config.backend == "gpio":
        from hardware.gpio import GpioBackend, inverted, pi_pin_factory
        if not config.gpio.pins:
            raise ConfigError("gpio.pins: the gpio backend needs at least one channel = pin")
        return GpioBackend(config.gpio.pins, pin_factory=pin_factory or pi_pin_factory(),
                           wiring=inverted(config.gpio.invert))
    if config.backend == "serial":
        from firmware_bridge.backend import SerialBackend
        if not config.serial.ports:
            raise ConfigError("serial.ports: the serial backend needs at least one port")
        return SerialBackend(config.serial.ports, inverted=config.serial.invert)
    raise ConfigError(f"backend: {config.backend!r} is not a sensor backend on hardware")
