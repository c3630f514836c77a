"""The table's vocabulary (interfaces §1, §2): pockets, rail segments, sensor channels; and
the project's version.

The one definition of each id, seen from the head end (the kitchen). ``rules``, ``hardware``,
``firmware_bridge`` and ``controller`` import it; it imports nothing of ours. The board
firmware (MicroPython, which cannot import it) carries its own copy of the channel names, and
a test holds that copy equal to this one.

- ``Pocket``, ``Rail``: the ids, as ``enum.StrEnum`` (a member compares equal to its id).
- ``SAME_RAIL``: the two halves of each long rail (a hit on one half shakes the other).
- ``Kind`` and ``parse_channel``: the sensor channels, ``beam.<pocket>``, ``cushion.<rail>``
  and the table-wide ``cue``, ``ball_id``, ``strike``, ``click``.
- ``VERSION``: the installed package's version (its metadata), which ``B/status`` reports
  and the host tells a sensor board; the firmware's copy is held equal to it by a test.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from importlib import metadata
from typing import Final

#: The installed package's name (its metadata, and how Home Assistant names the software).
DISTRIBUTION = "billiards-table-controller"


def _version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"


#: The installed package's version; ``0+unknown`` when the package is not installed.
VERSION: Final = _version()


class Pocket(enum.StrEnum):
    """A pocket (interfaces §1)."""

    HEAD_LEFT = "hl"
    HEAD_RIGHT = "hr"
    SIDE_LEFT = "sl"
    SIDE_RIGHT = "sr"
    FOOT_LEFT = "fl"
    FOOT_RIGHT = "fr"


class Rail(enum.StrEnum):
    """A rail segment (interfaces §1): the short rails, and each long rail's two halves."""

    HEAD = "h"
    FOOT = "f"
    LEFT_HEAD = "lh"
    LEFT_FOOT = "lf"
    RIGHT_HEAD = "rh"
    RIGHT_FOOT = "rf"


POCKETS: Final[tuple[Pocket, ...]] = tuple(Pocket)
RAILS: Final[tuple[Rail, ...]] = tuple(Rail)

#: Segments that are two halves of one physical long rail: a hit on one half shakes the other.
SAME_RAIL: Final[Mapping[Rail, Rail]] = {
    Rail.LEFT_HEAD: Rail.LEFT_FOOT,
    Rail.LEFT_FOOT: Rail.LEFT_HEAD,
    Rail.RIGHT_HEAD: Rail.RIGHT_FOOT,
    Rail.RIGHT_FOOT: Rail.RIGHT_HEAD,
}


class Kind(enum.StrEnum):
    """What a sensor channel watches: the part of its name before the dot."""

    BEAM = "beam"
    CUSHION = "cushion"
    CUE = "cue"
    BALL_ID = "ball_id"
    STRIKE = "strike"
    CLICK = "click"


class ChannelError(ValueError):
    """A channel name that interfaces §2 does not define."""


def beam(pocket: Pocket) -> str:
    """Returns the channel name of ``pocket``'s beam (``beam.fl``)."""
    return f"{Kind.BEAM}.{pocket}"


def cushion(rail: Rail) -> str:
    """Returns the channel name of ``rail``'s cushion sensor (``cushion.lf``)."""
    return f"{Kind.CUSHION}.{rail}"


#: Each beam's channel and its pocket, in ``Pocket`` order.
POCKET_OF_BEAM: Final[Mapping[str, Pocket]] = {beam(p): p for p in Pocket}
#: Each cushion sensor's channel and its rail segment, in ``Rail`` order.
RAIL_OF_CUSHION: Final[Mapping[str, Rail]] = {cushion(r): r for r in Rail}
#: The channels of the reference table: every beam, every cushion, the cue-ball detector.
TABLE_CHANNELS: Final[tuple[str, ...]] = (*POCKET_OF_BEAM, *RAIL_OF_CUSHION, Kind.CUE.value)
#: Channels whose value is a level, 1 or 0 (``ball_id`` instead carries what it read).
BINARY_CHANNELS: Final[frozenset[str]] = frozenset(
    (*TABLE_CHANNELS, Kind.STRIKE.value, Kind.CLICK.value))
_TABLE_WIDE = frozenset({Kind.CUE, Kind.BALL_ID, Kind.STRIKE, Kind.CLICK})


def parse_channel(ch: str) -> tuple[Kind, Pocket | Rail | None]:
    """Returns the channel's kind and its pocket or rail (None for a table-wide channel).

    Raises ChannelError for a name interfaces §2 does not define.
    """
    if (pocket := POCKET_OF_BEAM.get(ch)) is not None:
        return Kind.BEAM, pocket
    if (rail := RAIL_OF_CUSHION.get(ch)) is not None:
        return Kind.CUSHION, rail
    if ch in _TABLE_WIDE:
        return Kind(ch), None
    raise ChannelError(f"unknown sensor channel {ch!r}")
