"""The sensor event: one reading of one channel, timed at its source (interfaces §2)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from hardware.geometry import Pocket, Rail


class Kind(enum.StrEnum):
    BEAM = "beam"
    CUSHION = "cushion"
    CUE = "cue"
    BALL_ID = "ball_id"
    STRIKE = "strike"
    CLICK = "click"


class ChannelError(ValueError):
    """A channel name that interfaces §2 does not define."""


@dataclass(frozen=True, slots=True)
class SensorEvent:
    """One sensor reading.

    ``t`` is the source time in monotonic seconds (microsecond precision); ``v`` is 1 / 0
    (blocked / clear, vibrating / quiet, seen); ``level`` is an analogue board's 0–1 reading;
    ``ball`` and ``pocket`` are what an identity reader saw.
    """

    t: float
    ch: str
    v: int = 1
    level: float | None = None
    ball: int | str | None = None
    pocket: str | None = None

    def to_json(self) -> dict[str, object]:
        """Returns the trace line of this event (interfaces §2)."""
        out: dict[str, object] = {"t": round(self.t, 6), "ch": self.ch}
        if self.ch != Kind.BALL_ID:
            out["v"] = self.v
        if self.level is not None:
            out["level"] = self.level
        if self.ball is not None:
            out["ball"] = self.ball
        if self.pocket is not None:
            out["pocket"] = self.pocket
        return out


_POCKETS = {p.value for p in Pocket}
_RAILS = {r.value for r in Rail}


def parse_channel(ch: str) -> tuple[Kind, str | None]:
    """Returns the channel's kind and its pocket or rail id (None for table-wide channels).

    Raises ChannelError for a name interfaces §2 does not define.
    """
    kind, _, where = ch.partition(".")
    if kind == Kind.BEAM and where in _POCKETS:
        return Kind.BEAM, where
    if kind == Kind.CUSHION and where in _RAILS:
        return Kind.CUSHION, where
    if not where and kind in (Kind.CUE, Kind.BALL_ID, Kind.STRIKE, Kind.CLICK):
        return Kind(kind), None
    raise ChannelError(f"unknown sensor channel {ch!r}")


@dataclass(frozen=True, slots=True)
class LinkChanged:
    """A sensor source went away or came back (a board unplugged, a pin factory closed).

    ``source`` names the source (a board's id, ``gpio``); ``channels`` the channels it carries.
    """

    t: float
    source: str
    up: bool
    reason: str = ""
    channels: tuple[str, ...] = ()
