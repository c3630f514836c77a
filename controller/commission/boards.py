"""What commissioning writes to the sensor boards: each piezo channel's ADC threshold.

The host knows a board's channels from its ``Hello`` (index, name, mode, pin), not their
thresholds or mask times; a threshold is written with a ``Config`` of the channel as it is, its
mask time the reference wiring's (``firmware_bridge.firmware.main.DEFAULT_CHANNELS``). The board
keeps it across reboots.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.commission.analysis import Threshold
from firmware_bridge import protocol as P
from firmware_bridge.backend import SerialBackend
from firmware_bridge.firmware.main import DEFAULT_CHANNELS
from vocabulary import Kind

#: The piezo mask time of the reference wiring (µs, its ``click`` channel's, which is off until
#: a piezo is wired), written with a new threshold.
MASK_US = {spec[1]: spec[6] for spec in DEFAULT_CHANNELS}[Kind.CLICK.value]


async def write_thresholds(backend: SerialBackend, thresholds: Sequence[Threshold],
                           timeout: float = 5.0) -> list[str]:
    """Configures each threshold on the board whose piezo channel it names; returns what was
    written, a line each.

    Raises ValueError for a channel no board carries as a piezo, and the link's errors
    (``LinkTimeout``, ``ConfigRejected``) when a board does not take it.
    """
    for link in backend.links:
        await link.wait_up(timeout)
    done = []
    for t in thresholds:
        found = [(link, index, pin) for link in backend.links if link.info is not None
                 for index, name, mode, pin in link.info.channels
                 if name == t.channel and mode == P.MODE_NAMES[P.MODE_PIEZO]]
        if not found:
            raise ValueError(f"no sensor board has a piezo channel {t.channel}")
        for link, index, pin in found:
            await link.configure(P.Config(index, t.channel, P.MODE_PIEZO, pin, 0, t.value, MASK_US))
            done.append(f"board {link.source}: {t.channel} threshold {t.value}/65535")
    return done
