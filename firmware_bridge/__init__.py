"""The serial sensor-board protocol (a sans-I/O codec), the host link, and the firmware.

``SerialBackend`` is the ``hardware.SensorBackend`` for boards on USB serial; ``BoardLink``
keeps one board connected; ``protocol`` is the codec shared with the firmware
(``firmware/main.py``); ``sim.SimBoard`` runs that firmware under CPython on a pty.
"""

from firmware_bridge.backend import SerialBackend
from firmware_bridge.errors import (
    BridgeError,
    ConfigRejected,
    LinkError,
    LinkTimeout,
    PortUnavailable,
    ProtocolMismatch,
)
from firmware_bridge.link import BoardInfo, BoardLink

__all__ = [
    "BoardInfo",
    "BoardLink",
    "BridgeError",
    "ConfigRejected",
    "LinkError",
    "LinkTimeout",
    "PortUnavailable",
    "ProtocolMismatch",
    "SerialBackend",
]
