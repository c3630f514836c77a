"""Sensor events, the table's geometry, and the backends that produce events.

Imports nothing of ours: ``firmware_bridge`` and ``controller`` build on it.
"""

from hardware.backend import BackendStats, SensorBackend
from hardware.events import LinkChanged, SensorEvent, parse_channel
from hardware.geometry import KITCHEN_POCKETS, POCKETS, RAILS, Pocket, Rail

__all__ = ["BackendStats", "LinkChanged", "SensorBackend", "KITCHEN_POCKETS", "POCKETS", "RAILS", "Pocket", "Rail", "SensorEvent", "parse_channel"]
