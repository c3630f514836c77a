"""The table's named parts (interfaces §1), seen from the head end (the kitchen).

Pockets and rail segments, which segments share a physical rail (vibration travels
along it), and which segments are neighbours around the table.
"""

from __future__ import annotations

import enum


class Pocket(enum.StrEnum):
    HEAD_LEFT = "hl"
    HEAD_RIGHT = "hr"
    SIDE_LEFT = "sl"
    SIDE_RIGHT = "sr"
    FOOT_LEFT = "fl"
    FOOT_RIGHT = "fr"


class Rail(enum.StrEnum):
    HEAD = "h"
    FOOT = "f"
    LEFT_HEAD = "lh"
    LEFT_FOOT = "lf"
    RIGHT_HEAD = "rh"
    RIGHT_FOOT = "rf"


POCKETS: tuple[Pocket, ...] = tuple(Pocket)
RAILS: tuple[Rail, ...] = tuple(Rail)

#: Pockets at the head end, beside the kitchen.
KITCHEN_POCKETS: frozenset[Pocket] = frozenset({Pocket.HEAD_LEFT, Pocket.HEAD_RIGHT})

#: Segments that are two halves of one physical long rail: a hit on one half shakes the other.
SAME_RAIL: dict[Rail, Rail] = {
    Rail.LEFT_HEAD: Rail.LEFT_FOOT,
    Rail.LEFT_FOOT: Rail.LEFT_HEAD,
    Rail.RIGHT_HEAD: Rail.RIGHT_FOOT,
    Rail.RIGHT_FOOT: Rail.RIGHT_HEAD,
}

#: Segments that meet at a corner pocket or a side pocket (around the table, clockwise from h).
NEIGHBOURS: dict[Rail, frozenset[Rail]] = {
    Rail.HEAD: frozenset({Rail.LEFT_HEAD, Rail.RIGHT_HEAD}),
    Rail.LEFT_HEAD: frozenset({Rail.HEAD, Rail.LEFT_FOOT}),
    Rail.LEFT_FOOT: frozenset({Rail.LEFT_HEAD, Rail.FOOT}),
    Rail.FOOT: frozenset({Rail.LEFT_FOOT, Rail.RIGHT_FOOT}),
    Rail.RIGHT_FOOT: frozenset({Rail.FOOT, Rail.RIGHT_HEAD}),
    Rail.RIGHT_HEAD: frozenset({Rail.RIGHT_FOOT, Rail.HEAD}),
}

#: Segments on the head half of the table (the kitchen side of the centre line).
HEAD_HALF: frozenset[Rail] = frozenset({Rail.HEAD, Rail.LEFT_HEAD, Rail.RIGHT_HEAD})
