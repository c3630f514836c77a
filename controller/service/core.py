"""The service's steppable core: synchronous, no asyncio, no I/O of its own, every clock injected.

    inputs ──► TableCore.handle / tick ──► [Delivery, ...] ──► (the shell's) Outbox
                 │  journal noted, table fed, health judged
    TableCore.commit ──► the batch written ──► Release ──► Outbox.release / release_early
    TableCore.sync (a thread) ──► TableCore.synced ──► Release

**The API** (``controller.service.shell.Service`` is the asyncio shell around it; tests drive it
directly with a fake clock)::

    core = open_core(config, clock=..., wall=..., boot=...)  # controller.service.opening: the
                                          # journal and trace writer built, the table rebuilt
    core = TableCore(config, journal, trace=..., traced=..., clock=..., wall=..., boot=...)
    outbox.restore(core.restored)         # what the last run left undelivered
    publish(core.start())                 # status, state, display, health
    publish(core.handle(item))            # one input: SensorEvent | LinkChanged | Request | Connected
    publish(core.tick(backend))           # what time alone decides (rulings due, health)
    done = core.commit()                  # writes the batch (no wait for the disk)
    apply(done.release)                   # what may leave the outbox now
    point = core.sync_point(); core.sync() (in a thread); apply(core.synced(point))
    publish(core.stop()); core.close()    # ``stopped``, then the journal closed cleanly
    core.idle_for()                       # how long (host seconds) the shell may sleep

``handle``/``tick``/``start``/``stop`` return the messages to publish, already noted in the
journal, in order; nothing is called back.

**Its parts.** The clock (``controller.service.clock``: the service's time across reboots,
the lagging clock of the table, the hold while a source is down), the release policy
(``controller.service.durability``: what may leave before the sync, seq reservation, a journal
that cannot be written), sensor health's timing (``controller.service.health_timing``) and
the rebuild from the journal (``controller.service.rebuild``: checked against the trace and
the seq mark); the input log (``controller.service.inputlog``) notes each input in the journal
and, after the commit, in the trace; ``Deliveries`` (``controller.service.delivery``, where a
message's life is told) makes the table's messages deliveries. The core wires them: every
input is noted in the journal before the messages it caused.

**Where things go.**

- *A new check on an input*: in ``handle`` (``_request`` for requests), before the input is
  journaled. A request refused whatever it holds (what the link saw: ``Request.problem``)
  goes to ``Table.refuse``; one refused for what it holds (its fields, its ``deadline``
  against ``wall``) is ``Table.request``'s error path. Either way it is answered, changes
  nothing and is not journaled: never dropped silently.
- *A new publishing policy* (how long a message lives, whether it may leave before the
  sync): decide it where the message is made, as a field of ``table.Message`` (``role``,
  ``live``, ``ends_shot``), and map it to a field of ``Delivery`` in ``Deliveries.make``.
- *A clock rule*: ``ServiceClock``.

A sensor source that goes down (``LinkChanged`` with its channels, timed at the end of the
data it delivered: a board unplugged keeps its edges and sends them when it is back) holds the
table's clock there (``clock.Holds``): no timer falls due, requests are taken at the held
time, and sensor edges later than the hold wait, to come in with their own times, in time
order, when the hold lifts (the tick after the source is back, with what it kept queued
behind its ``LinkChanged``). Fusion then rules what they show as if they had come on time.
At its start the service holds its clock in the same way for the boards its last run had
(``boards`` in the journal's meta), at its last input: a self-powered board ran on while no
service listened and hands over what it kept, each edge with its own time, in the shot it fell
in. An edge older than what the table already took (one more than ``LAG`` on its way on a
loaded host, one from a source whose hold was given up or of the last run's boards, not yet
back) is taken at the table's time and keeps its own time as well (``SensorEvent.at``): fusion
takes it at that time, so a drop it shows is published with its time and corrects the shot it
fell in (its pocket's question is answered by it), however late it comes. Sensor health judges
it at its own time too, but a given-up source's kept edges (a burst, long after) at the table's
time: a block then is not "stuck" since then. A host that stalled (a step later than the pace
``idle_for`` set) has heard nothing meanwhile: sensor health judges no later than the table's
time before the stall until the service has listened again on time (``clock.Listening``), so
a block whose release waited out the stall is not "stuck" for the stall's length. A source
back with another boot id than it went down with (a board that restarted: what it had not
sent is gone) is a data gap (``DataGap``, a warning): if
a shot is open, fusion is told so (``Health.GAP``, ``health_timing.ToldHealth``) until that
shot is ruled: what they see counts, and the referee is asked about the rest. The same goes for
the channels a source names as having lost edges (``EventsLost.channels``: a board's full
buffer) while a shot is open.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controller.pipeline.table import Message, Role, Table
from controller.pipeline.trace import HealthLine
from controller.service.clock import HOLD_S, LAG, ServiceClock
from controller.service.config import Config
from controller.service.delivery import Deliveries, Delivery
from controller.service.durability import (
    JOURNAL_RETRY_S,
    SEQ_RESERVE,
    Commit,
    Durability,
    Release,
    SyncPoint,
)
from controller.service.health_timing import HealthTiming, ServiceHealth, ToldHealth
from controller.service.inputlog import InputLog, Recording
from controller.service.journal import Journal
from controller.service.rebuild import REBUILD_LINK, Rebuild
from hardware.backend import SensorBackend
from hardware.events import LinkChanged, SensorEvent
from hardware.health import HealthMonitor, HealthRecord

__all__ = ["HOLD_S", "JOURNAL_RETRY_S", "LAG", "REBUILD_LINK", "SEQ_RESERVE", "Commit",
           "Connected", "Input", "Recording", "Release", "Request", "SyncPoint", "TableCore"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Request:
    """A request to the table: from the broker (with MQTT 5's response topic and correlation
    data, if any) or a simulated keypad (``t``: its host time; None: now)."""

    name: str
    payload: bytes | dict[str, Any]
    t: float | None = None
    response_topic: str | None = None
    correlation: bytes | None = None
    #: Refused whatever it holds, for this reason (``controller.service.mqtt``: what the link saw).
    problem: str | None = None
    #: MQTT 5 message expiry: wanted until this host-monotonic time, measured from when the
    #: link received it. It stands for the payload's ``deadline`` (not checked against the
    #: wall clock then: no two clocks need to agree).
    expires: float | None = None


@dataclass(frozen=True, slots=True)
class Connected:
    """The link to the broker is (again) up: everything retained is published afresh."""


Input = SensorEvent | LinkChanged | Request | Connected


class TableCore:
    """One table's journal, pipeline and sensor health, stepped one input at a time (see the
    module docstring).

    ``journal`` is the table's journal, ``trace`` where the session is recorded (if it is),
    ``traced`` the last recorded session's lines and ``replaced`` why the journal's database
    was replaced (both for the rebuild: ``controller.service.rebuild``); ``clock`` is the
    host's monotonic clock, ``wall`` its wall clock, ``boot`` this boot's id.
    """

    def __init__(self, config: Config, journal: Journal, *, trace: Recording | None = None,
                 traced: Sequence[str] = (), replaced: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, boot: str = "") -> None:
        self.config = config
        self.base = config.base
        self.journal = journal
        #: Where each input is noted: the journal, then the trace.
        self.inputs = InputLog(journal, trace)
        self._mono = clock
        self._wall = wall
        #: The table's messages made deliveries (noted in the journal).
        self.deliveries = Deliveries(journal, self.base, expiry_by_role(config))
        self.time = ServiceClock(clock, config.sim.speed if config.backend == "sim" else 1.0,
                                 config.journal.commit_interval_ms / 1000,
                                 config.health.board_hold_s)
        rebuild = Rebuild(journal, traced, boot=boot, replaced=replaced)
        lines = rebuild.inputs()
        self.time.resume(journal.meta, wall(), rebuild.found.last_t)
        self.time.holds.note = journal.set_meta  # the boards, for the next run's holds
        journal.set_meta("offset", repr(self.time.offset))
        # judged on the journal's lagging clock: an edge still on its way is not a stuck sensor,
        # nor is one that waited out a host stall (``ServiceClock.heard``)
        self.health = HealthMonitor((), clock=self.time.heard)
        timing = HealthTiming(clock(), tick_s=config.health.tick_s,
                              publish_interval_s=config.health.publish_interval_s)
        #: What the last run left undelivered (already journaled): the outbox's first messages.
        self.restored = journal.outbox()
        self.table = rebuild.new_table(config, self.health, wall())
        rebuild.replay(self.table, lines)
        #: Sensor health as the service runs it (``health`` is its monitor).
        self.sensors = ServiceHealth(self.health, timing, ToldHealth(rebuild.found.told))
        journal.set_meta("boot", boot)
        journal.set_meta("clean", 0)
        self.durability = Durability(journal, mono=clock, seq_limit=rebuild.found.seq_limit)
        self.durability.last_out = max((o.id for o in self.restored), default=0)
        #: What health says of how the table came back from its journal (None: nothing).
        self.rebuilt = rebuild.news(self.table, trace)
        self.table.history = functools.partial(journal.published.history_since, base=self.base)

    # ------------------------------------------------------------------ the clock
    def clock(self) -> float:
        """Returns the service's time now (``ServiceClock.clock``)."""
        return self.time.clock()

    def now(self) -> float:
        """Returns the time the table's timers and sensor health run on (``ServiceClock.now``)."""
        return self.time.now()

    # ------------------------------------------------------------------ inputs
    def start(self) -> list[Delivery]:
        """Returns what a started service publishes first: status, state, display, health
        (which says how the table came back from a damaged journal, if it did)."""
        now = self.now()
        if self.rebuilt is not None:
            self.health.feed(dataclasses.replace(self.rebuilt, t=now))
        return self._deliver(self.table.start(now))

    def handle(self, item: Input) -> list[Delivery]:
        """Takes one input; returns the messages it caused, noted in the journal with it."""
        self.time.stepped()
        self.deliveries.begin()
        if isinstance(item, SensorEvent):
            ev, unknown = self.time.holds.placed(dataclasses.replace(item, t=self.time.host(item.t)))
            if ev.t > self.time.holds.until():  # after what a source that went down confirmed
                self.time.holds.wait(ev)
                out = []
            else:
                out = self._sensor(ev)
            out += self._health([], self.now(), channels=self.sensors.told.noted(unknown)) if unknown else []
        elif isinstance(item, LinkChanged):
            out = self._link(item)
        elif isinstance(item, Request):
            out = self._request(item)
        else:
            out = self._deliver(self.table.publish_all(self.now()))
        return out + self._shot_health(self.now())

    def _shot_health(self, now: float) -> list[Delivery]:
        """When a shot was ruled since the input: sensor health counts it, and the channels
        of a data gap are told as they are again (the gap was that shot's)."""
        if not self.deliveries.ended:
            return []
        records, gaps = self.sensors.shot_over()
        return self._health(records, now, channels=gaps)

    def _sensor(self, item: SensorEvent) -> list[Delivery]:
        """One sensor edge (``t`` on the service's clock) into the journal, table and health.
        One older than an input the table already took (late: a loaded host, a source whose
        hold was given up) is taken at the table's time and keeps its own (``at``): fusion
        places it there, and sensor health judges it there."""
        own = round(item.t, 6)
        t = self.time.at(own)
        late = own < t
        ev = dataclasses.replace(item, t=t, at=own if late else None)
        self.time.took(t)
        self.inputs.note(ev.to_json())
        out = self._deliver(self.table.sensor(ev))
        # a given-up source's kept edges, in a burst long after, are judged at the table's time
        given_up = late and self.time.holds.is_late(ev.ch)
        records, news = self.sensors.edge(ev, own, max(t, self.now()) if given_up else None)
        if news:
            out += self._health(records, t, channels=(ev.ch,))
        return out

    def _link(self, item: LinkChanged) -> list[Delivery]:
        """A source went down: the table's clock holds at what it had confirmed (``item.t``,
        or where the clock already is). Back up: its hold lifts at the next tick."""
        holds = self.time.holds
        t = self.time.at(min(self.time.host(item.t), self.time.lagging(), holds.until()))
        holds.changed(item, t)
        records = self.sensors.link(dataclasses.replace(item, t=t), self.table.fusion.open_shot)
        return self._health(records, t, publish=True)

    def _lift(self, everything: bool = False) -> list[Delivery]:
        """Lifts the holds that may lift; lets in the edges that waited, in time order."""
        out: list[Delivery] = []
        clock = self.time
        try:
            for ev in clock.holds.lift(clock.given_up(), everything):
                # as if it had come on time: the clock (timers, sensor health) at its time
                clock.late_edge_at = max(ev.t, clock.last_t)
                out += self._run_clock(clock.late_edge_at) + self._sensor(ev)
        finally:
            clock.late_edge_at = float("inf")
        return out

    def _request(self, item: Request) -> list[Delivery]:
        clock = self.time
        t = self.now() if item.t is None else clock.at(min(clock.host(item.t),
                                                             clock.holds.until()))
        out = self._run_clock(t)
        clock.took(t)
        matches = self.table.matches
        problem = refusal(item, self.durability.error, self._mono())
        if problem is not None:
            handled = self.table.refuse(item.name, item.payload, problem, t)
        else:  # a live request's deadline is checked against the wall clock, unless it expires
            live = item.t is None and item.expires is None
            handled = self.table.request(item.name, item.payload, t,
                                         wall=self._wall() if live else None)
        if handled.line is not None:
            self.inputs.note(handled.line)
        reply = (item.response_topic, item.correlation) if item.response_topic else None
        out += self._deliver(handled.messages, reply)
        if self.table.matches > matches and compact(self.journal, self.table, self.inputs.last):
            out += self._link(LinkChanged(0.0, REBUILD_LINK, True, "a new match"))
        return out

    def tick(self, backend: SensorBackend | None = None) -> list[Delivery]:
        """Runs what time alone decides: rulings falling due, stuck sensors, ``backend``'s
        counters, the periodic B/health; returns the messages."""
        self.time.stepped()
        self.deliveries.begin()
        out = self._lift()
        now = self.now()
        out += self._run_clock(now)
        ticked = self.sensors.tick(self._mono(), backend, self.table.fusion.open_shot)
        if ticked is not None:
            records, due, lost = ticked
            out += self._health(records, now, publish=due, channels=lost)
        return out + self._shot_health(now)

    def idle_for(self) -> float:
        """Returns how long (host seconds) the shell may wait for an input before ``tick``
        (the shell's pace: a step later than it follows a host stall, ``ServiceClock.heard``)."""
        due = self.time.host_wait(self.table.next_deadline)
        idle = max(0.001, min(due, self.sensors.timing.idle_for(self._mono()), 1.0))
        self.time.waiting(idle)
        return idle

    def stop(self) -> list[Delivery]:
        """Returns what a clean stop publishes: the edges still waiting for a source that
        went down, then the last message (``B/status`` ``stopped``)."""
        self.deliveries.begin()
        out = self._lift(everything=True)
        out += self._shot_health(self.now())
        return out + self._deliver(self.table.stopped(self.now()))

    def _run_clock(self, now: float) -> list[Delivery]:
        """Runs the table's clock to ``now`` when a timer is due (journaled as a tick)."""
        if now < self.table.next_deadline:
            return []
        self.time.took(now)
        self.inputs.tick(now)
        return self._deliver(self.table.advance(now))

    def _health(self, records: list[HealthRecord], t: float, *, publish: bool = False,
                channels: Sequence[str] = ()) -> list[Delivery]:
        """Publishes sensor health's news and tells fusion (a journaled input) of each channel
        whose state is not what it was told."""
        changed = self.sensors.news(records, channels)
        out = self._run_clock(t) if changed else []
        for channel, state in changed.items():
            self.inputs.note(HealthLine(t, channel, state).to_json())
        return out + self._deliver(self.table.health(records, changed, t, publish=publish))

    def _deliver(self, messages: list[Message],
                  reply: tuple[str, bytes | None] | None = None) -> list[Delivery]:
        """Notes the table's messages in the journal as deliveries (``Deliveries``)."""
        out = self.deliveries.make(messages, reply)
        if out:
            self.durability.last_out = out[-1].id
        return out

    # ------------------------------------------------------------------ committing
    def commit(self) -> Commit:
        """Writes what the inputs since the last commit did, in one transaction (no wait for
        the disk); returns what may be released now (``Durability.commit``: a journal that
        cannot be written, ``journal_error`` says why)."""
        done = self.durability.commit(self.table.seq, {"last_t": repr(self.time.last_t),
                                                       "wall": repr(self._wall())})
        self.inputs.committed()
        return done

    def sync_point(self) -> SyncPoint:
        """Returns what a sync starting now covers (take it just before ``sync``)."""
        return self.durability.sync_point()

    def sync(self) -> None:
        """Makes every batch written so far survive a power cut; safe in another thread while
        the core goes on. Raises JournalError if it cannot."""
        self.journal.sync()

    def synced(self, point: SyncPoint) -> Release:
        """The sync that began at ``point`` is done: returns what it releases."""
        return self.durability.synced(point, self.table.seq)

    def close(self) -> None:
        """Closes the recording and the journal (writes and syncs what is noted), marking the
        stop clean; what the journal cannot take (a full disk) is lost, with a log line.
        Raises JournalError if a sync fails."""
        self.journal.set_meta("clean", 1)
        try:
            self.durability.close()
        finally:
            self.inputs.close()


def refusal(item: Request, journal_error: str | None, mono: float) -> str | None:
    """Returns why ``item`` is refused whatever it holds (what the link saw; no new match
    while the journal cannot be written; its message expiry passed by ``mono``), or None."""
    if item.problem is not None:
        return item.problem
    if journal_error is not None and item.name == "new_match":
        return (f"the journal cannot be written ({journal_error}): no new match"
                " until it can; the match in play goes on")
    if item.expires is not None and mono > item.expires:
        return (f"the request expired {mono - item.expires:.1f} s before the table"
                " could take it (its message expiry); nothing was done")
    return None


def compact(journal: Journal, table: Table, last_input: int) -> bool:
    """A new match began (the input ``last_input``): what came before is not needed, but
    the answers of its transactions. Returns whether the match that lost inputs is over
    (health's rebuild link comes up again)."""
    journal.compact(last_input, table.transactions())
    journal.set_meta("matches_before", table.matches - 1)
    if not journal.meta.get("lost"):
        return False
    journal.set_meta("lost", "")
    return True


def expiry_by_role(config: Config) -> dict[Role, int | None]:
    """Returns how long (seconds, MQTT 5) each role's messages live: events and responses."""
    return {Role.EVENT: config.mqtt.event_expiry_s or None,
            Role.RESPONSE: config.mqtt.response_expiry_s or None}
