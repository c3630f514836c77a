"""The sensor event: one reading of one channel, timed at its source (interfaces §2)."""

from __future__ import annotations

from dataclasses import dataclass

from vocabulary import Kind


@dataclass(frozen=True, slots=True)
class SensorEvent:
    """One sensor reading.

    ``t`` is the source time in monotonic seconds (microsecond precision); ``v`` is 1 / 0
    (blocked / clear, vibrating / quiet, seen); ``level`` is an analogue board's 0–1 reading;
    ``ball`` and ``pocket`` are what an identity reader saw. ``at``: set when the event came
    after the table had taken a later input (an edge late on a loaded host, a board back after
    its hold was given up): its own source time, ``t`` then being when the table took it.
    """

    t: float
    ch: str
    v: int = 1
    level: float | None = None
    ball: int | str | None = None
    pocket: str | None = None
    at: float | None = None

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
        if self.at is not None:
            out["at"] = round(self.at, 6)
        return out


@dataclass(frozen=True, slots=True)
class LinkChanged:
    """A sensor source went away or came back (a board unplugged, a pin factory closed).

    ``source`` names the source (a board's id, ``gpio``); ``channels`` the channels it carries;
    ``boot_id`` the source's boot (a board's, from its Hello; None: a source without one). A
    source back up with another ``boot_id`` than it went down with restarted meanwhile: what
    it had not yet sent is lost (a data gap).
    """

    t: float
    source: str
    up: bool
    reason: str = ""
    channels: tuple[str, ...] = ()
    boot_id: int | None = None
