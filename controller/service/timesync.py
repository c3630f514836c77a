"""Whether the machine's wall clock is synchronised (NTP), as the kernel says.

The table's wall clock stamps nothing it rules on, but a request's ``deadline`` (wall-clock
Unix time) is checked against it, and the history's dates come from it. A Raspberry Pi has no
battery-backed clock: until NTP (systemd-timesyncd, chrony) sets it, it may be hours off. The
kernel's ``adjtimex`` state says so without privileges, as ``timedatectl``'s
``NTPSynchronized`` reads it: ``TIME_ERROR`` while the clock is not synchronised.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

#: ``adjtimex``'s state when the clock is not synchronised (linux/timex.h).
TIME_ERROR = 5
#: Room for ``struct timex`` (208 bytes on 64-bit Linux); zeroed: ``modes`` 0 only reads.
_TIMEX_BYTES = 512


def synchronised() -> bool | None:
    """Returns whether the kernel holds the wall clock synchronised; None where it cannot
    tell (no ``adjtimex``: not Linux)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        adjtimex = libc.adjtimex
    except (OSError, AttributeError):
        return None
    state = adjtimex(ctypes.create_string_buffer(_TIMEX_BYTES))
    if state < 0:
        log.warning("adjtimex failed (errno %d): cannot tell whether the clock is synchronised",
                    ctypes.get_errno())
        return None
    return bool(state != TIME_ERROR)


#: How often the service asks the kernel again (seconds).
CHECK_EVERY_S = 60.0


class ClockWatch:
    """Keeps ``B/health``'s ``host.clock_synchronised`` to what the kernel says (``check``
    now, ``run`` every ``CHECK_EVERY_S``), logging when it changes. ``host`` is the health's
    host dictionary; ``synchronised`` the question asked (injected in tests)."""

    def __init__(self, host: dict[str, Any],
                 synchronised: Callable[[], bool | None] = synchronised) -> None:
        self._host = host
        self._synchronised = synchronised

    def check(self) -> None:
        """Notes in health whether the wall clock is synchronised (logged when it changes)."""
        now = self._synchronised()
        if now is None or self._host.get("clock_synchronised") == now:
            return
        self._host["clock_synchronised"] = now
        if now:
            log.info("the wall clock is synchronised")
        else:
            log.warning("the wall clock is not synchronised (no NTP yet): a request's deadline "
                        "is checked against it; MQTT 5 clients' message expiry is not")

    async def run(self) -> None:
        """Checks again every ``CHECK_EVERY_S`` until cancelled."""
        while True:
            await asyncio.sleep(CHECK_EVERY_S)
            self.check()
