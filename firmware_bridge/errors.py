"""The errors of ``firmware_bridge``: one root, each class also a builtin.

    BridgeError(Exception)
    ├── LinkError(BridgeError, ConnectionError)      the serial link failed or went away
    │   ├── PortUnavailable(LinkError)                the port cannot be opened (absent, busy)
    │   ├── LinkTimeout(LinkError, TimeoutError)      the board stopped answering
    │   └── ProtocolMismatch(LinkError)               the board speaks another protocol version
    └── ConfigRejected(BridgeError, ValueError)       the board refused a configuration

The codec (``protocol.py``, shared with MicroPython) raises plain ``ValueError`` for a
message it cannot encode; it never raises for bytes it receives (it counts bad frames).
"""

from __future__ import annotations


class BridgeError(Exception):
    """Something went wrong between the host and a sensor board."""


class LinkError(BridgeError, ConnectionError):
    """The serial link to a board failed or went away."""


class PortUnavailable(LinkError):
    """The serial port could not be opened (absent, or held by another program)."""


class LinkTimeout(LinkError, TimeoutError):
    """The board stopped answering."""


class ProtocolMismatch(LinkError):
    """The board speaks another protocol version than the host (``board``, ``host``)."""

    def __init__(self, board: int, host: int) -> None:
        super().__init__(f"the board speaks protocol {board}, this host protocol {host}: "
                         "flash the firmware of this version (firmware_bridge/README.md)")
        self.board = board
        self.host = host


class ConfigRejected(BridgeError, ValueError):
    """The board refused a configuration command (``code`` is its ERR_* code)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"board refused configuration: {reason} (code {code})")
        self.code = code
        self.reason = reason
