"""Sensor events, sensor health, and the backends that produce events.

Imports nothing of ours but the table's vocabulary (``vocabulary``): ``firmware_bridge`` and
``controller`` build on it. The GPIO backend
is imported as ``hardware.gpio`` (it imports gpiozero).
"""

from hardware.backend import BackendStats, SensorBackend
from hardware.events import LinkChanged, SensorEvent
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
    "BackendStats", "EventsLost", "Health", "HealthConfig", "HealthMonitor", "Limits", "LinkChanged",
    "Reason", "SensorBackend", "SensorEvent", "SensorFaulted", "SensorRecovered",
]
