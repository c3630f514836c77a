"""Sensor events, the table's geometry, sensor health, and the backends that produce events.

Imports nothing of ours: ``firmware_bridge`` and ``controller`` build on it. The GPIO backend
is imported as ``hardware.gpio`` (it imports gpiozero).
"""

from hardware.backend import BackendStats, SensorBackend
from hardware.events import LinkChanged, SensorEvent, parse_channel
from hardware.geometry import KITCHEN_POCKETS, POCKETS, RAILS, Pocket, Rail
from hardware.health import (
    EventsLost,
    Health,
    HealthConfig,
    HealthMonitor,
    Limits,
    Reason,
    SensorFaulted,
    SensorRecovered,
)

__all__ = [
    "KITCHEN_POCKETS", "POCKETS", "RAILS", "BackendStats", "EventsLost", "Health", "HealthConfig",
    "HealthMonitor", "Limits", "LinkChanged", "Pocket", "Rail", "Reason", "SensorBackend",
    "SensorEvent", "SensorFaulted", "SensorRecovered", "parse_channel",
]
