"""Whether the machine's wall clock is synchronised (NTP), as the kernel says.

The table's wall clock stamps nothing it rules on, but a request's ``deadline`` (wall-clock
Unix time) is checked against it, and the history's dates come from it. A Raspberry Pi has no
battery-backed clock: until NTP (systemd-timesyncd, chrony) sets it, it may be hours off. The
kernel's ``adjtimex`` state says so without privileges, as ``timedatectl``'s
``NTPSynchronized`` reads it: ``TIME_ERROR`` while the clock is not synchronised.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

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
