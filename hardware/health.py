"""Per-channel sensor health, judged from the event stream: pure, with an injected clock.

Feed the monitor every item a backend yields (``feed``), tell it when shots start and end
(``shot_started`` / ``shot_ended``), call ``tick()`` now and then (a stuck beam sends
nothing more), and pass it the backends' counters (``note_stats``). Each call returns the
transitions it caused, oldest first. No I/O, no logging, no clock of its own: times are the
events' source times and ``clock()`` (host monotonic seconds live, trace time in replay).

States (``Health``), most serious first — a channel shows the first that holds:

- ``disconnected``: the source carrying it (a board, the GPIO pins) reported its link down.
- ``stuck``: at 1 longer than any ball could cause (a ball lodged in a pocket, a dirty lens,
  a jammed vibration sensor): a ball at 0.3 m/s blocks a beam for ≤ ~230 ms, a cushion
  pulse train lasts tens of ms; the default limit is 2 s. Recovers when it reads 0.
- ``chattering``: more edges within ``chatter_window`` than balls can make (a loose wire, a
  failing receiver). Recovers after ``calm_after`` seconds without going over the limit.
- ``silent``: no event over ``silent_after`` shots in which its peers saw play (beams: other
  beams fired; cushions: other cushions; ``ball_id`` / ``cue``: a beam; ``strike`` /
  ``click``: any channel). Recovers when it fires.
- ``ok``.

This monitor is the one judge of a channel's health. The service tells fusion each
channel's ``state`` whenever it changes (and journals it, so replays rule alike): fusion
counts nothing from a channel not ``ok`` and asks the referee instead, and the state says
what else to do (a ``stuck`` beam's block in progress and a ``chattering`` beam's latest
drops were no balls). ``is_usable(channel)`` is True only for a channel in ``ok``.

Transitions are ``SensorFaulted`` (into a fault, or from one fault to another) and
``SensorRecovered`` (back to ok), the ``sensor_fault`` / ``sensor_recovered`` events of
interfaces §3; ``EventsLost`` reports a backend's overflow counter going up and
``LinkTrouble`` its link's trouble counters (bad frames, gaps, resends, protocol errors,
blind spells), both as ``warning`` events.

``snapshot()`` is the ``B/health`` payload (the publisher adds ``v``, ``seq`` and ``ts``)::

    {"t": 812.4,                      # clock() when taken
     "ok": false,                     # every channel ok and every link up
     "faults": {"beam.fl": "stuck"},  # channels not ok, and their state
     "shots": 17,                     # shots seen ended
     "channels": {
       "beam.fl": {"state": "stuck", "reason": "on_too_long", "since": 790.1,
                   "level": 1, "last": 788.1, "edges": 12, "quiet_shots": 0},
       "cushion.lf": {"state": "ok", "reason": null, "since": 0.0,
                      "level": 0, "last": 801.7, "edges": 340, "quiet_shots": 0}},
     "links": {
       "gpio": {"up": true, "since": 0.0, "reason": "", "channels": ["beam.fl", "..."],
                "events": 1234, "overflows": 0, "bad_frames": 0, "sequence_gaps": 0,
                "resends": 0, "protocol_errors": 0, "blind_spells": 0, "reconnects": 0}}}

``state`` ∈ ok / stuck / silent / chattering / disconnected; ``reason`` is the active
``Reason`` (null when ok); ``since`` when the channel entered its state; ``level`` its last
reading (0 / 1); ``last`` the source time of its last event (null if none); ``edges`` events
seen; ``quiet_shots`` shots of play it has sat through without an event. A link's counters
come from its backend (``note_stats``): events and overflows (and ``lost_by_channel``, once
a source named the channels of some: ``{channel: edges lost}``), and for serial boards the
link's trouble (``BackendStats``). ``summary()`` is the short form for ``B/status``:
``{"ok": false, "faults": {"beam.fl": "stuck"}}``.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from hardware.backend import BackendStats
from hardware.events import LinkChanged, SensorEvent
from vocabulary import Kind, parse_channel

__all__ = [
    "DEFAULT_LIMITS",
    "EventsLost",
    "Health",
    "HealthConfig",
    "HealthMonitor",
    "DataGap",
    "HealthRecord",
    "Limits",
    "LinkTrouble",
    "Reason",
    "SensorFaulted",
    "SensorRecovered",
]


class Health(enum.StrEnum):
    OK = "ok"
    STUCK = "stuck"
    SILENT = "silent"
    CHATTERING = "chattering"
    DISCONNECTED = "disconnected"
    #: Never judged by the monitor: what the service tells fusion of a channel whose source
    #: restarted in the shot in play (a ``DataGap``): what it sees counts, what it may have
    #: missed is asked.
    GAP = "gap"


class Reason(enum.StrEnum):
    # Why a channel is in a fault.
    ON_TOO_LONG = "on_too_long"
    TOO_MANY_EDGES = "too_many_edges"
    QUIET_WHILE_OTHERS_PLAYED = "quiet_while_others_played"
    LINK_DOWN = "link_down"
    # Why it left one.
    RELEASED = "released"
    CALMED = "calmed"
    FIRED = "fired"
    LINK_UP = "link_up"


@dataclass(frozen=True, slots=True)
class Limits:
    """How one channel's faults are judged.

    ``stuck_after``: seconds at 1 before it is stuck (None: never, for readers);
    ``chatter_edges``: more events than this within the window is chattering;
    ``silent_after``: shots of its peers' play without an event before it is silent (None:
    never, for a channel that may rightly stay quiet for a whole match).
    """

    stuck_after: float | None = 2.0
    chatter_edges: int = 20
    silent_after: int | None = None


DEFAULT_LIMITS: Mapping[Kind, Limits] = {
    # ≥ 10 balls a second into one pocket cannot happen; a pocket may stay unused for long.
    Kind.BEAM: Limits(stuck_after=2.0, chatter_edges=20, silent_after=40),
    # A hit is a pulse train of a few edges; a break shakes every rail a few times a second.
    Kind.CUSHION: Limits(stuck_after=2.0, chatter_edges=120, silent_after=10),
    # Fires only when the cue ball drops: quiet for a whole match is normal.
    Kind.CUE: Limits(stuck_after=2.0, chatter_edges=20, silent_after=None),
    Kind.BALL_ID: Limits(stuck_after=None, chatter_edges=20, silent_after=10),
    Kind.STRIKE: Limits(stuck_after=2.0, chatter_edges=20, silent_after=5),
    Kind.CLICK: Limits(stuck_after=2.0, chatter_edges=60, silent_after=10),
}


@dataclass(frozen=True, slots=True)
class HealthConfig:
    """The monitor's thresholds: per kind of channel, per channel, and the time windows."""

    limits: Mapping[Kind, Limits] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    channels: Mapping[str, Limits] = field(default_factory=dict)
    chatter_window: float = 1.0
    calm_after: float = 5.0

    def limits_for(self, channel: str) -> Limits:
        """Returns the limits for a channel: its own, else its kind's, else the defaults."""
        if channel in self.channels:
            return self.channels[channel]
        kind, _ = parse_channel(channel)
        return self.limits.get(kind, DEFAULT_LIMITS[kind])


@dataclass(frozen=True, slots=True)
class SensorFaulted:
    """A channel went into a fault (or from one fault into another): ``sensor_fault``."""

    event_type: ClassVar[str] = "sensor_fault"

    t: float
    channel: str
    state: Health
    reason: Reason
    was: Health = Health.OK
    detail: str = ""

    def to_json(self) -> dict[str, object]:
        """Returns the event's ``data`` for ``B/event``."""
        return {"channel": self.channel, "state": str(self.state), "reason": str(self.reason),
                "was": str(self.was), "t": round(self.t, 6), "detail": self.detail}


@dataclass(frozen=True, slots=True)
class SensorRecovered:
    """A channel is ok again: ``sensor_recovered``."""

    event_type: ClassVar[str] = "sensor_recovered"

    t: float
    channel: str
    was: Health
    reason: Reason
    state: Health = Health.OK

    def to_json(self) -> dict[str, object]:
        """Returns the event's ``data`` for ``B/event``."""
        return {"channel": self.channel, "state": str(self.state), "reason": str(self.reason),
                "was": str(self.was), "t": round(self.t, 6)}


@dataclass(frozen=True, slots=True)
class EventsLost:
    """A backend's queue overflowed: ``lost`` more events were dropped (``total`` in all);
    ``channels``: the channels named as losing them meanwhile, with their totals."""

    event_type: ClassVar[str] = "warning"

    t: float
    source: str
    lost: int
    total: int
    channels: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, object]:
        """Returns the event's ``data`` for ``B/event``."""
        out: dict[str, object] = {"kind": "events_lost", "source": self.source,
                                  "lost": self.lost, "total": self.total, "t": round(self.t, 6)}
        if self.channels:
            out["channels"] = dict(self.channels)
        return out


@dataclass(frozen=True, slots=True)
class LinkTrouble:
    """A link's trouble counters went up: ``added`` (counter, how many more), ``totals``.

    The counters are ``TROUBLE_WARNED``: frames that failed their check, breaks in the frame
    numbering, edges asked for again, protocol errors, blind spells of a board.
    """

    event_type: ClassVar[str] = "warning"

    t: float
    source: str
    added: tuple[tuple[str, int], ...]
    totals: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, object]:
        """Returns the event's ``data`` for ``B/event`` (``reason`` says it in words)."""
        return {"kind": "link_trouble", "source": self.source,
                "reason": ", ".join(f"{name} +{n}" for name, n in self.added),
                "added": dict(self.added), "totals": dict(self.totals), "t": round(self.t, 6)}


@dataclass(frozen=True, slots=True)
class DataGap:
    """A source came back up with another boot than it went down with (a board powered by
    its cable, reset by its watchdog or a crash): what it saw from ``since`` (the end of the
    data it had delivered) until it restarted is lost, on every one of its ``channels``."""

    event_type: ClassVar[str] = "warning"

    t: float
    source: str
    since: float
    channels: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        """Returns the event's ``data`` for ``B/event``."""
        return {"kind": "data_gap", "source": self.source, "reason": "restarted",
                "since": round(self.since, 6), "channels": list(self.channels),
                "t": round(self.t, 6)}


HealthRecord = SensorFaulted | SensorRecovered | EventsLost | LinkTrouble | DataGap


@dataclass(slots=True)
class _Channel:
    name: str
    kind: Kind
    limits: Limits
    state: Health = Health.OK
    reason: Reason | None = None
    since: float = 0.0
    level: int = 0
    on_since: float | None = None
    last: float | None = None
    edges: int = 0
    recent: deque[float] = field(default_factory=deque)
    over_limit_at: float | None = None
    quiet_shots: int = 0
    fired_in_shot: bool = False
    link: str | None = None
    # Conditions, each judged on its own; the state is the most serious that holds.
    stuck: bool = False
    chattering: bool = False
    silent: bool = False
    link_down: bool = False


@dataclass(slots=True)
class _Link:
    up: bool
    since: float
    reason: str = ""
    channels: tuple[str, ...] = ()
    events: int = 0
    overflows: int = 0
    trouble: dict[str, int] = field(default_factory=dict)  # BackendStats' link counters
    lost_by_channel: dict[str, int] = field(default_factory=dict)
    boot_id: int | None = None  # the source's boot, as its LinkChanged said


#: The link-trouble counters of ``BackendStats`` that the snapshot shows per link.
TROUBLE_COUNTERS = ("bad_frames", "sequence_gaps", "resends", "protocol_errors", "blind_spells",
                    "reconnects")
#: ... and those whose rise is a ``LinkTrouble`` warning (a reconnect shows as its link's change).
TROUBLE_WARNED = TROUBLE_COUNTERS[:-1]


def _peers_played(kind: Kind, fired: Mapping[Kind, int]) -> bool:
    """Returns whether a quiet channel's peers saw play (``fired``: channels fired, per kind)."""
    if kind in (Kind.BEAM, Kind.CUSHION):
        return fired.get(kind, 0) > 0
    if kind in (Kind.BALL_ID, Kind.CUE):
        return fired.get(Kind.BEAM, 0) > 0
    return sum(fired.values()) > 0


class HealthMonitor:
    """Judges each channel's health (see the module docstring).

    ``channels`` are the channels expected (others are added when first heard of);
    ``clock`` returns the time now on the events' timeline. Raises ChannelError (from
    ``hardware.events``) for a channel name interfaces §2 does not define.
    """

    def __init__(
        self,
        channels: Iterable[str],
        *,
        clock: Callable[[], float],
        config: HealthConfig | None = None,
    ) -> None:
        self._clock = clock
        self._config = config or HealthConfig()
        self._channels: dict[str, _Channel] = {}
        self._links: dict[str, _Link] = {}
        #: What the service says of its host (``clock_synchronised``): in ``snapshot()`` under
        #: ``host``, never part of ``ok`` (a table referees as well without it).
        self.host: dict[str, object] = {}
        self._shots = 0
        start = clock()
        for name in channels:
            self._add(name, start)

    # --- questions ------------------------------------------------------------------------

    def is_usable(self, channel: str) -> bool:
        """Returns whether fusion may trust the channel: known and in ``ok``."""
        ch = self._channels.get(channel)
        return ch is not None and ch.state is Health.OK

    def state(self, channel: str) -> Health:
        """Returns the channel's state. Raises KeyError for a channel never heard of."""
        return self._channels[channel].state

    def snapshot(self) -> dict[str, object]:
        """Returns the ``B/health`` payload (shape in the module docstring)."""
        channels: dict[str, object] = {
            ch.name: {
                "state": str(ch.state),
                "reason": None if ch.reason is None else str(ch.reason),
                "since": round(ch.since, 6),
                "level": ch.level,
                "last": None if ch.last is None else round(ch.last, 6),
                "edges": ch.edges,
                "quiet_shots": ch.quiet_shots,
            }
            for ch in self._channels.values()
        }
        links: dict[str, object] = {
            name: {"up": link.up, "since": round(link.since, 6), "reason": link.reason,
                   "channels": list(link.channels), "events": link.events,
                   "overflows": link.overflows,
                   **({"lost_by_channel": dict(link.lost_by_channel)}
                      if link.lost_by_channel else {}),
                   **{name: link.trouble.get(name, 0) for name in TROUBLE_COUNTERS}}
            for name, link in self._links.items()
        }
        return {"t": round(self._clock(), 6), **self.summary(), "shots": self._shots,
                "channels": channels, "links": links, **({"host": dict(self.host)} if self.host else {})}

    def summary(self) -> dict[str, object]:
        """Returns the short form for ``B/status``: ``{"ok": ..., "faults": {ch: state}}``,
        and while a link is down ``"down": {source: reason}``."""
        faults = {ch.name: str(ch.state) for ch in self._channels.values()
                  if ch.state is not Health.OK}
        down = {name: link.reason for name, link in self._links.items() if not link.up}
        return {"ok": not faults and not down, "faults": faults, **({"down": down} if down else {})}

    # --- input ----------------------------------------------------------------------------

    def feed(self, item: SensorEvent | LinkChanged, now: float | None = None) -> list[HealthRecord]:
        """Takes one item of a backend's stream; returns the transitions it caused, judged at
        ``now`` (``clock()`` when None, never past it: an edge at its own time, as its source
        was heard through it, its release maybe behind it in the queue)."""
        out = self._link_changed(item) if isinstance(item, LinkChanged) else self._event(item)
        out.extend(self.tick(None if now is None else min(now, self._clock())))
        return out

    def tick(self, now: float | None = None) -> list[HealthRecord]:
        """Judges what time alone decides (stuck, calmed) at ``now`` (``clock()`` when None);
        returns transitions. A channel judged stuck stays stuck until it is released (or its
        link goes down), whatever earlier ``now`` an edge is judged at after it."""
        now = self._clock() if now is None else now
        out: list[HealthRecord] = []
        window = self._config.chatter_window
        for ch in self._channels.values():
            limit = ch.limits.stuck_after
            stuck = (limit is not None and ch.on_since is not None and not ch.link_down
                     and (ch.stuck or now - ch.on_since > limit))
            calmed = False
            if ch.chattering and ch.over_limit_at is not None:
                while ch.recent and ch.recent[0] < now - window:
                    ch.recent.popleft()
                calmed = (now - ch.over_limit_at >= self._config.calm_after
                          and len(ch.recent) <= ch.limits.chatter_edges)
            if stuck != ch.stuck or calmed:
                ch.stuck = stuck
                if calmed:
                    ch.chattering = False
                    ch.over_limit_at = None
                held = 0.0 if ch.on_since is None else now - ch.on_since
                out.extend(self._settle(ch, now, Reason.CALMED if calmed else Reason.RELEASED,
                                        detail=f"at 1 for {held:.3f} s" if stuck else ""))
        return out

    def shot_started(self) -> list[HealthRecord]:
        """Marks the start of a shot: play is counted from here; returns transitions."""
        for ch in self._channels.values():
            ch.fired_in_shot = False
        return self.tick()

    def shot_ended(self) -> list[HealthRecord]:
        """Marks the end of a shot: judges silence over it; returns transitions."""
        now = self._clock()
        self._shots += 1
        fired: dict[Kind, int] = {}
        for ch in self._channels.values():
            if ch.fired_in_shot:
                fired[ch.kind] = fired.get(ch.kind, 0) + 1
        out: list[HealthRecord] = []
        for ch in self._channels.values():
            if ch.fired_in_shot or ch.link_down:
                ch.fired_in_shot = False
                continue
            if not _peers_played(ch.kind, fired):
                continue
            ch.quiet_shots += 1
            limit = ch.limits.silent_after
            if limit is not None and ch.quiet_shots >= limit and not ch.silent:
                ch.silent = True
                out.extend(self._settle(ch, now, Reason.FIRED,
                                        detail=f"no event in {ch.quiet_shots} shots of play"))
        out.extend(self.tick())
        return out

    def note_stats(self, source: str, stats: BackendStats) -> list[HealthRecord]:
        """Takes a backend's counters for the snapshot; returns EventsLost if it overflowed
        and LinkTrouble if its link's trouble counters went up."""
        link = self._links.setdefault(
            source, _Link(up=stats.links.get(source, True), since=self._clock())
        )
        out: list[HealthRecord] = []
        lost = stats.overflows - link.overflows
        if lost > 0:
            named = tuple((ch, n) for ch, n in sorted(stats.lost_by_channel.items())
                          if n > link.lost_by_channel.get(ch, 0))
            out.append(EventsLost(t=self._clock(), source=source, lost=lost,
                                  total=stats.overflows, channels=named))
        link.lost_by_channel = dict(stats.lost_by_channel)
        trouble = {name: getattr(stats, name) for name in TROUBLE_COUNTERS}
        added = tuple((name, trouble[name] - link.trouble.get(name, 0)) for name in TROUBLE_WARNED
                      if trouble[name] > link.trouble.get(name, 0))
        if added:
            out.append(LinkTrouble(t=self._clock(), source=source, added=added,
                                   totals=tuple((name, trouble[name]) for name in TROUBLE_WARNED)))
        link.events, link.overflows, link.trouble = stats.events, stats.overflows, trouble
        return out

    # --- the judging ----------------------------------------------------------------------

    def _add(self, name: str, t: float) -> _Channel:
        kind, _ = parse_channel(name)
        limits = self._config.limits_for(name)
        # Only whether more than chatter_edges fall in the window matters: keep that many + 1.
        ch = _Channel(name=name, kind=kind, limits=limits, since=t,
                      recent=deque(maxlen=limits.chatter_edges + 1))
        self._channels[name] = ch
        return ch

    def _event(self, event: SensorEvent) -> list[HealthRecord]:
        ch = self._channels.get(event.ch) or self._add(event.ch, event.t)
        ch.edges += 1
        ch.last = event.t
        ch.fired_in_shot = True
        ch.quiet_shots = 0
        if ch.limits.stuck_after is not None:
            ch.level = 1 if event.v else 0
            if not ch.level:
                ch.on_since = None
            elif ch.on_since is None:
                ch.on_since = event.t
        ch.stuck = ch.stuck and ch.on_since is not None
        recovered_by = Reason.RELEASED if ch.state is Health.STUCK else Reason.FIRED
        ch.silent = False
        window = self._config.chatter_window
        ch.recent.append(event.t)
        while ch.recent and ch.recent[0] < event.t - window:
            ch.recent.popleft()
        detail = ""
        if len(ch.recent) > ch.limits.chatter_edges:
            ch.over_limit_at = event.t
            if not ch.chattering:
                ch.chattering = True
                detail = f"more than {ch.limits.chatter_edges} events in {window:g} s"
        return self._settle(ch, event.t, recovered_by, detail=detail)

    def _link_changed(self, change: LinkChanged) -> list[HealthRecord]:
        old = self._links.get(change.source)
        link = _Link(up=change.up, since=change.t, reason=change.reason,
                     channels=change.channels or (old.channels if old else ()),
                     events=old.events if old else 0, overflows=old.overflows if old else 0,
                     trouble=old.trouble if old else {},
                     lost_by_channel=old.lost_by_channel if old else {},
                     boot_id=change.boot_id if change.boot_id is not None else
                     old.boot_id if old else None)
        self._links[change.source] = link
        out: list[HealthRecord] = []
        if (change.up and old is not None and not old.up and old.boot_id is not None
                and change.boot_id is not None and change.boot_id != old.boot_id):
            out.append(DataGap(t=change.t, source=change.source, since=old.since,
                               channels=link.channels))
        for name in link.channels:
            ch = self._channels.get(name) or self._add(name, change.t)
            ch.link = change.source
            ch.link_down = not change.up
            if not change.up:  # its level is unknown until the source is back
                ch.level, ch.on_since, ch.stuck = 0, None, False
            out.extend(self._settle(ch, change.t, Reason.LINK_UP, detail=change.reason))
        return out

    def _settle(
        self, ch: _Channel, t: float, recovered_by: Reason, *, detail: str = ""
    ) -> list[HealthRecord]:
        """Moves the channel to the most serious condition that holds; returns the change."""
        if ch.link_down:
            new, reason = Health.DISCONNECTED, Reason.LINK_DOWN
        elif ch.stuck:
            new, reason = Health.STUCK, Reason.ON_TOO_LONG
        elif ch.chattering:
            new, reason = Health.CHATTERING, Reason.TOO_MANY_EDGES
        elif ch.silent:
            new, reason = Health.SILENT, Reason.QUIET_WHILE_OTHERS_PLAYED
        else:
            new, reason = Health.OK, recovered_by
        was = ch.state
        if new is was:
            return []
        ch.state, ch.since = new, t
        if new is Health.OK:
            ch.reason = None
            return [SensorRecovered(t=t, channel=ch.name, was=was, reason=reason)]
        ch.reason = reason
        return [SensorFaulted(t=t, channel=ch.name, state=new, reason=reason, was=was,
                              detail=detail)]
