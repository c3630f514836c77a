"""What commissioning writes to the sensor boards: the piezo channels the configuration names
(``serial.piezo``) switched on, each piezo channel's ADC threshold, and the channels of a board
that runs its defaults (it refused its saved configuration) written back as they run.

The host knows a board's channels from its ``Hello`` (index, name, mode, pin), not their
thresholds or mask times; a threshold is written with a ``Config`` of the channel as it is, its
mask time the reference wiring's (``firmware_bridge.firmware.main.DEFAULT_CHANNELS``). The board
keeps it across reboots.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.commission.analysis import Threshold
from controller.commission.words import Said
from firmware_bridge import protocol as P
from firmware_bridge.backend import SerialBackend
from firmware_bridge.firmware.main import DEFAULT_CHANNELS
from vocabulary import Kind

#: The piezo mask time of the reference wiring (µs, its ``click`` channel's, which is off until
#: a piezo is wired), written with a new threshold.
MASK_US = {spec[1]: spec[6] for spec in DEFAULT_CHANNELS}[Kind.CLICK.value]
#: The threshold a piezo is switched on with, until commissioning measures its own (/65535).
THRESHOLD = {spec[1]: spec[5] for spec in DEFAULT_CHANNELS}[Kind.CLICK.value]


async def switch_on_piezos(backend: SerialBackend, channels: Sequence[str]) -> list[Said]:
    """Configures each of ``channels`` as a piezo on the board that carries it, where it is not
    one yet (the board keeps it); returns what was switched on, a line each.

    Raises ValueError for a channel no board carries, and the link's errors
    (``ConfigRejected``: e.g. its pin has no ADC) when a board does not take it.
    """
    done = []
    piezo = P.MODE_NAMES[P.MODE_PIEZO]
    for ch in channels:
        found = [(link, index, mode, pin) for link in backend.links if link.info is not None
                 for index, name, mode, pin in link.info.channels if name == ch]
        if not found:
            raise ValueError(f"serial.piezo names {ch}, which no sensor board carries")
        for link, index, mode, pin in found:
            if mode != piezo:
                await link.configure(P.ChannelConfig(index, ch, P.MODE_PIEZO, pin, 0, THRESHOLD, MASK_US))
                done.append(Said("done.piezo_on", {"board": link.source, "channel": ch,
                                                   "pin": pin, "value": THRESHOLD}))
    return done


async def write_back_defaults(backend: SerialBackend) -> list[Said]:
    """Writes each channel of a board that runs its default channels (it refused the
    configuration saved on it: ``BoardInfo.on_defaults``) back to it as it runs, so that the
    board saves a configuration it accepts and says ``+defaults`` no more; returns what was
    written, a line per board. (It runs the defaults: their debounce, threshold and mask are
    ``DEFAULT_CHANNELS``'.)

    Raises the link's errors when a board does not take a channel.
    """
    done = []
    defaults = {spec[0]: spec for spec in DEFAULT_CHANNELS}
    for link in backend.links:
        if link.info is None or not link.info.on_defaults:
            continue
        for index, name, mode, pin in link.info.channels:
            _, _, _, _, debounce, threshold, mask = defaults.get(index, (0, "", 0, 0, 0, 0, 0))
            await link.configure(P.ChannelConfig(index, name, P.MODE_NAMES.index(mode), pin,
                                                 debounce, threshold, mask))
        done.append(Said("done.defaults_written", {"board": link.source,
                                                   "channels": len(link.info.channels)}))
    return done


async def write_thresholds(backend: SerialBackend, thresholds: Sequence[Threshold],
                           timeout: float = 5.0) -> list[Said]:
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
            await link.configure(P.ChannelConfig(index, t.channel, P.MODE_PIEZO, pin, 0, t.value, MASK_US))
            done.append(Said("done.threshold", {"board": link.source, "channel": t.channel,
                                                "value": t.value}))
    return done
