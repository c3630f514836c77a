"""Sensor events, the table's geometry, and the backends that produce events.

Imports nothing of ours: ``firmware_bridge`` and ``controller`` build on it.
"""

from hardware.backend import BackendStats, SensorBackend
from hardware.events import LinkChanged, SensorEvent, parse_channel
from hardware.geometry import KITCHEN_POCKETS, POCKETS, RAILS, Pocket, Rail

__all__ = ["BackendStats", "LinkChanged", "SensorBackend", "KITCHEN_POCKETS", "POCKETS", "RAILS", "Pocket", "Rail", "SensorEvent", "parse_channel"]

# Sensor health (pure). The GPIO backend is imported as ``hardware.gpio``: it imports gpiozero.
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

__all__ += [
    "EventsLost", "Health", "HealthConfig", "HealthMonitor", "Limits", "Reason",
    "SensorFaulted", "SensorRecovered",
]
