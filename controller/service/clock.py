"""The service's clock: ``offset + monotonic() × speed``, resumed across reboots, and the hold
it keeps while a sensor source is down. No I/O: the host's clocks are injected.

Inputs carry the service's clock (speed is 1 except for the simulator), kept increasing across
restarts: after a reboot the monotonic clock starts again, and the offset is moved so that the
clock resumes after the last journaled input (``resume``).

The table's timers and sensor health run on ``now()``: the service's clock ``LAG`` behind (an
edge still on its way is rarely older than a tick already taken; one that is, on a loaded host,
keeps its own time: ``TableCore._sensor``), never before the last input,
and held while a sensor source is down (``Holds``): a board unplugged keeps its edges and sends
them, each with its own time, once it is back; until then no timer falls due past what it had
confirmed, for up to ``HOLD_S`` (``health.board_hold_s``).

Sensor health judges on ``heard()``: ``now()``, but never past what the service heard through
(``Listening``). ``LAG`` covers an edge on its way while the host runs; a host that stalls
(a loaded machine: the loop not run for seconds) has heard nothing meanwhile, and the edges
stamped then are still in the backend or the queue when it wakes: time alone judges no
sensor on the stall's time (a beam blocked before it is not "stuck" for its length) until
the service has listened again, on time.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import logging
import math
from collections.abc import Callable, Mapping

from hardware.events import LinkChanged, SensorEvent

log = logging.getLogger(__name__)

#: Sensor edges reach the loop a little after they happen: the clock's ticks stay this far
#: behind (seconds of host time) so an edge never arrives older than a tick already taken.
LAG = 0.05
#: The longest the table's clock holds for a sensor source that went down (a board unplugged
#: keeps its edges and sends them, each with its own time, once it is back); after this the
#: clock goes on without it (service seconds). A table's ``health.board_hold_s``; this is its
#: default.
HOLD_S = 10.0
#: The longest a machine is taken to have been off between two runs (the wall clock may jump).
MAX_AWAY_S = 86400.0


def boards_of(meta: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Returns the sensor boards the journal's ``meta`` names (``boards``: each board's id and
    the channels it carried when last up), none where it names none or cannot be read."""
    try:
        raw = json.loads(meta.get("boards", "{}"))
    except ValueError:
        return {}
    if not isinstance(raw, dict):
        return {}
    return {str(source): tuple(str(ch) for ch in channels) for source, channels in raw.items()
            if isinstance(channels, list)}


class Holds:
    """The sources that went down, each with the time its data is complete to, and the sensor
    edges later than the earliest of those, waiting in time order; and the sources whose hold
    was given up (``late``): what they kept still comes with its own times, whenever it comes."""

    def __init__(self) -> None:
        self._until: dict[str, float] = {}  # a source that went down -> its data complete to
        self._back: set[str] = set()  # sources back up: their holds lift at the next lift()
        self._waiting: list[SensorEvent] = []
        self._carried: dict[str, tuple[str, ...]] = {}  # a source -> the channels it carries
        self._late: dict[str, tuple[str, ...]] = {}  # a given-up source -> its channels
        self._late_back: set[str] = set()  # given-up sources back: their kept edges are in
        #: Sources known from the service's last run, not yet back in this one: what they kept
        #: while no service listened comes with its own times (``resumed``).
        self._kept: dict[str, tuple[str, ...]] = {}
        #: A board of the last run -> the time it is held at (the last input before the start),
        #: and how far its kept edges are moved when their time cannot be known (``placed``).
        self._resumed_at: dict[str, float] = {}
        self._shift: dict[str, float] = {}
        #: The sensor boards of this run and the last: id -> channels (the journal keeps them:
        #: ``note("boards", JSON)`` whenever they change).
        self.boards: dict[str, tuple[str, ...]] = {}
        self.note: Callable[[str, str], None] = lambda key, value: None

    def until(self) -> float:
        """Returns the time the table's clock may not pass (inf when nothing is held)."""
        return min(self._until.values(), default=math.inf)

    def down(self, source: str, t: float, channels: tuple[str, ...]) -> None:
        """A sensor source carrying ``channels`` went down, its data complete to ``t`` (an
        earlier hold stays)."""
        self._carried[source] = channels
        self._until.setdefault(source, t)
        self._back.discard(source)

    def resumed(self, carried: Mapping[str, tuple[str, ...]], t: float) -> None:
        """The service started again: the sources of its last run (``carried``: their
        channels) are held as if they had gone down at ``t`` (its last input: their data is
        complete to there), and what each kept while no service listened keeps its own time,
        however late it comes (``is_late``)."""
        for source, channels in carried.items():
            self.down(source, t, channels)
            self._kept[source] = channels
            self.boards[source] = channels
            self._resumed_at[source] = t

    def placed(self, ev: SensorEvent) -> tuple[SensorEvent, tuple[str, ...]]:
        """Returns a sensor edge as it is to be taken, and the channels of a board of the last
        run found with it to have kept edges whose time cannot be known (else ``()``). No edge
        a board kept is older than the last input before the start; one timed before it (after
        a reboot of the Pi the time it was off is only as good as its wall clock) is moved, with
        the rest that board kept, to just after it, in their order and spacing, and its shot
        goes to the referee: a gap in that board's data."""
        source = next((s for s, chs in self._kept.items() if ev.ch in chs), None)
        if source is None:
            return ev, ()
        found: tuple[str, ...] = ()
        if source not in self._shift:
            start = self._resumed_at.get(source, -math.inf)
            if ev.t >= start:
                return ev, ()
            self._shift[source] = start - ev.t + 1e-6
            found = self._kept[source]
            log.warning("board %s kept edges timed before the service's last input (%.3f s "
                        "before): their time is not known; taken in order after it, their shot "
                        "asked", source, start - ev.t)
        return dataclasses.replace(ev, t=ev.t + self._shift[source]), found

    def changed(self, change: LinkChanged, t: float) -> None:
        """A source went down, its data complete to ``t`` (``down``), or is back (``up``); a
        board up is noted for the next run (``board``)."""
        if not change.up and change.channels:  # a sensor source (the broker's link carries none)
            self.down(change.source, t, change.channels)
        else:
            self.up(change.source, change.up)
        self.board(change)

    def board(self, change: LinkChanged) -> None:
        """Notes a board up (a source with a boot id and channels): when the boards changed,
        gives ``note`` them as the journal's meta keeps them (``"boards"``, JSON)."""
        if not (change.up and change.channels and change.boot_id is not None) or \
                self.boards.get(change.source) == change.channels:
            return
        self.boards[change.source] = change.channels
        self.note("boards", json.dumps(self.boards, sort_keys=True))

    def up(self, source: str, up: bool = True) -> None:
        """A source is back (``up``), or said so again: its hold lifts at the next ``lift``,
        once the edges it kept (queued right behind its news) are in; a late source is no
        longer late then."""
        if source in self._until:
            self._back.add(source)
        elif up and source in self._late:
            self._late_back.add(source)

    def is_late(self, channel: str) -> bool:
        """Returns whether ``channel`` is carried by a source whose hold was given up, or one
        of the last run not yet back in this one."""
        return any(channel in channels for held in (self._late, self._kept)
                   for channels in held.values())

    def wait(self, ev: SensorEvent) -> None:
        """Keeps an edge later than the hold until the hold lifts."""
        bisect.insort(self._waiting, ev, key=lambda e: e.t)

    def lift(self, given_up: float, everything: bool = False) -> list[SensorEvent]:
        """Lifts the holds of sources back up, of those held since before ``given_up`` (all
        with ``everything``); returns the waiting edges the hold now lets in, in time order."""
        for source in self._back:
            self._until.pop(source, None)
            self._kept.pop(source, None)
            self._shift.pop(source, None)
        self._back.clear()
        for source in self._late_back:
            self._late.pop(source, None)
            self._kept.pop(source, None)
        self._late_back.clear()
        for source, held in list(self._until.items()):
            if everything or held < given_up:
                if not everything:
                    log.warning("sensor source %s is still down (data to %.3f): the table's "
                                "clock goes on without it", source, held)
                    # what it kept still comes with its own times (``at``), whenever it comes
                    self._late[source] = self._carried.get(source, ())
                    if source in self._kept:  # a board of the last run, not back: the next
                        self.boards.pop(source, None)  # start holds for it no more
                        self.note("boards", json.dumps(self.boards, sort_keys=True))
                del self._until[source]
        hold = self.until()
        cut = bisect.bisect_right(self._waiting, hold, key=lambda e: e.t)
        ready, self._waiting = self._waiting[:cut], self._waiting[cut:]
        return ready


class Listening:
    """Up to when the service heard its sensors through (``heard``), on the host's pace.

    The shell tells the core how long it waits for input (``waiting``: ``idle_for``'s answer)
    and steps it (``stepped``: an input or a tick), taking the inputs that came meanwhile one
    after the other, waiting up to ``batch_s`` (``journal.commit_interval_ms``) for more. A
    contact later than that pace allows by more than ``LAG`` (a step after the wait it was
    promised in, or a next contact more than ``batch_s`` + ``LAG`` after a step) follows a
    stall: the host ran nothing meanwhile (or only the core's own work), so edges stamped then
    may be waiting. The steps after it are ``held`` at the table's time of the step before the
    stall, until a step comes on time after a wait, or ``LAG`` after the stall on time (the
    service listened again: what waited is in, as the lagging clock has it); a stall after a
    stall holds at the step between them, so the hold always moves on.
    Before the first ``waiting`` (a core stepped by hand, a replay) no pace is known: no stall.
    """

    def __init__(self, batch_s: float = 0.0) -> None:
        self.batch_s = batch_s
        self._due = math.inf  # the latest host time of the next contact, if the host runs
        self._waited = False  # the shell waited for input (listened) since the last step
        self._stalled = False  # a contact since the last step came late
        self._last = -math.inf  # the table's time at the last step
        self._woke = -math.inf  # the host time of the last step after a stall
        #: The table's time health judges no later than (inf: the service heard through now).
        self.held = math.inf

    def waiting(self, mono: float, idle: float) -> None:
        """The shell waits up to ``idle`` host seconds for input from ``mono``."""
        self._stalled |= mono > self._due
        self._due = mono + idle + LAG
        self._waited = True

    def stepped(self, mono: float, now: float) -> None:
        """The core is stepped at host time ``mono``, the table's time ``now``."""
        if self._stalled or mono > self._due:
            self.held, self._woke = self._last, mono
        elif self._waited or mono >= self._woke + LAG:
            self.held = math.inf
        self._stalled = self._waited = False
        if self._due != math.inf:
            self._due = mono + self.batch_s + LAG
        self._last = now


class ServiceClock:
    """The service's clock (see the module docstring). ``mono`` is the host's monotonic clock;
    ``speed`` how many service seconds pass in one of its seconds, ``batch_s`` how long the
    shell waits for more inputs after one (``Listening``), ``hold_s`` the longest it holds for
    a sensor source that went down (``HOLD_S``)."""

    def __init__(self, mono: Callable[[], float], speed: float = 1.0, batch_s: float = 0.0,
                 hold_s: float = HOLD_S) -> None:
        self.mono = mono
        self.speed = speed
        self.hold_s = hold_s
        self.offset = 0.0
        self.holds = Holds()
        self._last_t = 0.0  # the time of the last input (journaled ones are never earlier)
        #: While edges that waited for a hold come in: the time of the one being taken (the
        #: table's clock stands there, as if it had come on time); inf otherwise.
        self.late_edge_at = math.inf
        #: What the service heard through (host stalls): what sensor health judges on.
        self.listening = Listening(batch_s)

    def resume(self, meta: Mapping[str, str], wall: float, last_input: float = 0.0) -> bool:
        """Resumes the clock from the journal's ``meta`` (``offset``, ``last_t``, ``wall``)
        after the last input (``last_input`` too, when the journal's meta lost it); returns
        whether the monotonic clock went back (a reboot) and the offset was moved."""
        self.offset = float(meta.get("offset", "0"))
        last = max(float(meta.get("last_t", "0")), last_input)
        moved = ("last_t" in meta or last_input > 0.0) and self.clock() <= last
        if moved:  # a reboot: the monotonic clock began again
            away = max(0.0, wall - float(meta.get("wall", "0")))
            self.offset = (last + min(away, MAX_AWAY_S) * self.speed + 0.001
                           - self.mono() * self.speed)
            log.info("the monotonic clock went back (a reboot); the journal's time resumes at %.3f",
                     self.clock())
        self._last_t = last
        # the boards of the last run hand over what they kept meanwhile: held for, timed as kept
        self.holds.resumed(boards_of(meta), last)
        return moved

    def clock(self) -> float:
        """Returns the service's time now."""
        return self.offset + self.mono() * self.speed

    def host(self, t: float) -> float:
        """Returns the service time of a backend's host-monotonic time."""
        return self.offset + t * self.speed

    def at(self, t: float) -> float:
        """Returns an input's time as journaled (µs), never before the last input's."""
        return max(round(t, 6), self._last_t)

    def now(self) -> float:
        """Returns the time the table's timers and sensor health run on (see the module
        docstring)."""
        return self.at(min(self.clock() - LAG * self.speed, self.holds.until(), self.late_edge_at))

    def heard(self) -> float:
        """Returns the time sensor health judges on: ``now()``, not past what the service heard
        through (``Listening``: after a host stall, the time before it)."""
        return min(self.now(), self.listening.held)

    def stepped(self) -> None:
        """The core is stepped (an input or a tick): notes it for ``listening``."""
        self.listening.stepped(self.mono(), self.now())

    def waiting(self, idle: float) -> None:
        """The shell waits up to ``idle`` host seconds for input: notes it for ``listening``."""
        self.listening.waiting(self.mono(), idle)

    def lagging(self) -> float:
        """Returns the service's clock ``LAG`` behind, not held."""
        return self.clock() - LAG * self.speed

    def given_up(self) -> float:
        """Returns the time before which a hold is given up (``hold_s`` behind the lag)."""
        return self.clock() - (LAG + self.hold_s) * self.speed

    @property
    def last_t(self) -> float:
        """Returns the time of the last input (what a restart's clock resumes after)."""
        return self._last_t

    def took(self, t: float) -> None:
        """An input was taken at ``t``: no later one is timed before it."""
        self._last_t = max(self._last_t, t)

    def host_wait(self, until: float) -> float:
        """Returns the host seconds until the service's clock reads ``until`` (``LAG`` past)."""
        return (until - self.clock()) / self.speed + LAG
