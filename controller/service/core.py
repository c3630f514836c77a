"""The service's steppable core: synchronous, no asyncio, every clock injected.

    inputs ──► TableCore.handle / tick ──► [Outgoing, ...] ──► (the shell's) Outbox
                 │  journal noted, table fed, health judged
    TableCore.commit ──► the batch written ──► Release ──► Outbox.release / release_early
    TableCore.sync (a thread) ──► TableCore.synced ──► Release

**The API** (``controller.service.shell.Service`` is the asyncio shell around it; tests drive it
directly with a fake clock)::

    core = TableCore(config, clock=..., wall=..., boot=...)  # opens the journal, rebuilds
    outbox.restore(core.restored)         # what the last run left undelivered
    publish(core.start())                 # status, state, display, health
    publish(core.handle(item))            # one input: SensorEvent | LinkChanged | Request | Connected
    publish(core.tick(backend))           # what time alone decides (rulings due, health)
    done = core.commit()                  # writes the batch (no wait for the disk)
    apply(done.release)                   # what may leave the outbox now
    point = core.sync_point(); core.sync() (in a thread); apply(core.synced(point))
    publish(core.stop()); core.close()    # ``stopped``, then the journal closed cleanly
    core.wait()                           # how long the shell may sleep for nothing to do

``handle``/``tick``/``start``/``stop`` return the messages to publish, already noted in the
journal, in order; nothing is called back.

**Where things go.**

- *A new check on an input*: in ``handle`` (``_request`` for requests), before the input is
  journaled. A request refused whatever it holds (what the link saw: ``Request.problem``)
  goes to ``Table.refuse``; one refused for what it holds (its fields, its ``deadline``
  against ``wall``) is ``Table.request``'s error path. Either way it is answered, changes
  nothing and is not journaled: never dropped silently. A sensor edge's time is made
  ``_at`` (never before the last input) here too.
- *A new publishing policy* (how long a message lives, whether it may leave before the
  sync): decide it where the message is made, as a field of ``table.Message`` (``role``,
  ``live``, ``ends_shot``), and map it to an ``Outgoing`` in ``_outgoing`` here.
- *A clock rule*: ``clock()`` (the service's time, increasing across reboots: ``_resume_clock``),
  ``_host`` (a backend's monotonic time on it), ``_at`` (never before the last input) and
  ``now()`` (the lagging clock the table's timers and sensor health run on), held by
  ``_hold`` while a source is down.

**What it keeps.** Journal before publish: every input is noted in the journal before the
messages it caused, and they are written together by ``commit``. A live ``ball_pocketed``
may leave once written; anything else once synced (``journal.sync = "full"``). Seqs up to
``seq_limit`` are reserved on disk before any is published early, and after a power cut (a
new boot, no clean stop) numbering continues after the reservation. On start the table is
rebuilt from the journal (``controller.pipeline.table.feed``, as ``replay`` does), transactions still
answered once.

Time: inputs carry the service's clock, ``offset + monotonic() × speed`` (speed is 1 except
for the simulator), kept increasing across restarts: after a reboot the monotonic clock
starts again, and the offset is moved so the clock resumes after the last journaled input.

A sensor source that goes down (``LinkChanged`` with its channels, timed at the end of the
data it delivered: a board
unplugged keeps its edges and sends them when it is back) holds the table's clock there, for
up to ``HOLD_S``: no timer falls due, requests are taken at the held time, and sensor edges
later than the hold (its late ones, and other sources' meanwhile) wait, to come in with their
own times, in time order, when the hold lifts (the tick after the source is back, with what it
kept queued behind its ``LinkChanged``). Fusion then rules what they show as if they had come
on time. An edge older than what the table already took is still taken at the table's time;
one from a source whose hold was given up keeps its own time as well (``SensorEvent.at``):
fusion takes it at that time, so a drop it shows is published with its time and corrects the
shot it fell in (its pocket's question is answered by it), however late the source is back.
A source back with another boot id than it went down with (a board that restarted: what it
had not sent is gone) is a data gap (``DataGap``, a warning): if a shot is open, fusion is
told so (``Health.GAP``) until that shot is ruled: what they see counts, and the referee is
asked about the rest (a pocket with no drop seen: did a ball fall there?). The same goes for
the channels a source names as having lost edges (``EventsLost.channels``: a board's full
buffer) while a shot is open.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.pipeline.table import Message, Role, Table, feed
from controller.pipeline.trace import HealthLine, RequestLine, TraceWriter, parse_line
from controller.service.config import Config
from controller.service.journal import Batch, Journal, JournalError, Outgoing
from hardware.backend import SensorBackend
from hardware.events import LinkChanged, SensorEvent
from hardware.health import (
    DataGap,
    EventsLost,
    Health,
    HealthMonitor,
    HealthRecord,
    SensorFaulted,
    SensorRecovered,
)

log = logging.getLogger(__name__)

#: Sensor edges reach the loop a little after they happen: the clock's ticks stay this far
#: behind (seconds of host time) so an edge never arrives older than a tick already taken.
LAG = 0.05
#: The longest the table's clock holds for a sensor source that went down (a board unplugged
#: keeps its edges and sends them, each with its own time, once it is back); after this the
#: clock goes on without it (service seconds).
HOLD_S = 10.0
#: Seqs reserved on disk ahead of the last one given out (see the module docstring).
SEQ_RESERVE = 1000
#: While the journal cannot be written (a full disk), a new try this often (host seconds).
JOURNAL_RETRY_S = 5.0


def wall_clock() -> float:
    """Returns the wall clock's time now (``time.time``, looked up at each call)."""
    return time.time()


def boot_id() -> str:
    """Returns this boot of the machine's id (Linux), or "" where there is none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


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


@dataclass(frozen=True, slots=True)
class Connected:
    """The link to the broker is (again) up: everything retained is published afresh."""


Input = SensorEvent | LinkChanged | Request | Connected


@dataclass(frozen=True, slots=True)
class Release:
    """What may leave the outbox: every message up to id ``upto``, and the live ones (at the
    head of those waiting) up to id ``live_upto``; 0: none."""

    upto: int = 0
    live_upto: int = 0


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit's outcome: what may be released now, and whether a batch was written (and
    so awaits a sync)."""

    release: Release
    written: bool


@dataclass(frozen=True, slots=True)
class SyncPoint:
    """What a sync about to start covers: messages up to ``upto``, seqs up to ``seq_limit``."""

    upto: int
    seq_limit: int


class TableCore:
    """One table's journal, pipeline and sensor health, stepped one input at a time (see the
    module docstring).

    ``clock`` is the host's monotonic clock, ``wall`` its wall clock, ``boot`` this boot's id
    (``boot_id()`` when None). Raises JournalError when the journal cannot be opened.
    """

    def __init__(self, config: Config, *, clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = wall_clock, boot: str | None = None) -> None:
        self.config = config
        self.base = config.base
        self.speed = config.sim.speed if config.backend == "sim" else 1.0
        self._mono = clock
        self._wall = wall
        self._boot = boot_id() if boot is None else boot
        self._event_expiry = config.mqtt.event_expiry_s or None
        self._response_expiry = config.mqtt.response_expiry_s or None
        self.journal = Journal(config.data / "journal.sqlite3", sync=config.journal.sync)
        self.trace: TraceWriter | None = None
        self._offset = 0.0
        self._last_t = 0.0  # the time of the last input (journaled ones are never earlier)
        self._last_input = 0  # the journal id of the last input noted
        self._told: dict[str, Health] = {}  # what fusion was told of each channel
        self._next_health = 0.0
        self._next_health_publish = clock() + config.health.publish_interval_s
        self._seq_limit = 0  # the seq reservation noted in the journal
        self._seq_durable = 0  # ... and the part of it known to be on disk
        self._written_upto = 0  # the last outgoing message in a written batch
        self._shot_ended = False  # a message made since the input began ended a shot
        self._holds: dict[str, float] = {}  # a source that went down -> its data complete to
        self._back: set[str] = set()  # sources back up: their holds lift at the next tick
        #: channels of a source that restarted in this shot: fusion is told they were down
        self._gaps: set[str] = set()
        self._carried: dict[str, tuple[str, ...]] = {}  # a source -> the channels it carries
        self._late: dict[str, tuple[str, ...]] = {}  # a given-up source -> its channels
        self._late_back: set[str] = set()  # given-up sources back: their kept edges are in
        self._waiting: list[SensorEvent] = []  # edges later than a hold, in time order
        self._replaying = math.inf  # while waiting edges come in: the time of the one taken
        #: Why the journal cannot be written now (a full disk), or None: see ``commit``.
        self.journal_error: str | None = None
        self._unwritten: Batch | None = None  # what could not be written, kept in memory
        self._retry_at = 0.0
        self._resume_clock()
        # judged on the journal's lagging clock: an edge still on its way is not a stuck sensor
        self.health = HealthMonitor((), clock=self.now)
        #: What the last run left undelivered (already journaled): the outbox's first messages.
        self.restored = self.journal.outbox()
        self._last_out = max((o.id for o in self.restored), default=0)
        self.table = self._rebuild()
        self.table.history = self._history

    # ------------------------------------------------------------------ the clock
    def clock(self) -> float:
        """Returns the service's time now (see the module docstring)."""
        return self._offset + self._mono() * self.speed

    def now(self) -> float:
        """Returns the time the table's timers and sensor health run on: the service's
        clock, ``LAG`` behind and held at what every source that went down had confirmed,
        never before the last input's."""
        return self._at(min(self.clock() - LAG * self.speed, self._hold(), self._replaying))

    def _hold(self) -> float:
        """Returns the time the table's clock may not pass: the earliest time up to which a
        source that went down had delivered its data (inf when none is held)."""
        return min(self._holds.values(), default=math.inf)

    def _resume_clock(self) -> None:
        meta = self.journal.meta
        self._offset = float(meta.get("offset", "0"))
        last = float(meta.get("last_t", "0"))
        if "last_t" in meta and self.clock() <= last:  # a reboot: the monotonic clock began again
            away = max(0.0, self._wall() - float(meta.get("wall", "0")))
            self._offset = last + min(away, 86400.0) * self.speed + 0.001 - self._mono() * self.speed
            log.info("the monotonic clock went back (a reboot); the journal's time resumes at %.3f",
                     self.clock())
        self._last_t = last
        self.journal.set_meta("offset", repr(self._offset))

    def _host(self, t: float) -> float:
        """Returns the service time of a backend's host-monotonic time."""
        return self._offset + t * self.speed

    def _at(self, t: float) -> float:
        """Returns an input's time as journaled (µs), never before the last input's."""
        return max(round(t, 6), self._last_t)

    @property
    def last_t(self) -> float:
        """Returns the time of the last input (what a restart's clock resumes after)."""
        return self._last_t

    # ------------------------------------------------------------------ rebuilding
    def _rebuild(self) -> Table:
        meta = self.journal.meta
        prefix = meta.get("prefix")
        if prefix is None:
            prefix = "m-" + datetime.now(UTC).strftime("%Y%m%d")
            self.journal.set_meta("prefix", prefix)
        table = Table(fusion=self.config.fusion_settings(), match_id=lambda n: f"{prefix}-{n}",
                      matches=int(meta.get("matches_before", "0")), health=self.health,
                      language=self.config.language)
        inputs = self.journal.inputs()
        for n, line in enumerate(inputs, start=1):
            if "tick" in line:
                table.advance(float(line["t"]))
                continue
            item = parse_line(json.dumps(line), n)
            if isinstance(item, SensorEvent | RequestLine | HealthLine):
                feed(table, item)
                if isinstance(item, HealthLine):
                    self._told[item.channel] = item.state
            else:
                log.error("journal line %d cannot be read: %s", n, line)
        known = {tx for tx, _, _ in table.transactions()}
        for tx, name, response in self.journal.answers():
            if tx not in known:
                table.remember(tx, name, response)
        table.resume_seq(int(meta.get("seq", "0")))
        if meta.get("clean", "1") != "1" and (not self._boot or meta.get("boot") != self._boot):
            # a power cut may have taken back events published before their batch was
            # synced: their seqs were reserved, and are not given out again
            table.resume_seq(int(meta.get("seq_limit", "0")))
            self.journal.set_meta("seq", table.seq)
            log.info("the last run did not stop cleanly and the machine restarted since: "
                     "seq continues at %d", table.seq + 1)
        self.journal.set_meta("boot", self._boot)
        self.journal.set_meta("clean", 0)
        self._seq_limit = int(meta.get("seq_limit", "0"))
        if inputs:
            log.info("resumed from the journal: %d inputs, match %s, seq %d",
                     len(inputs), table.match_id, table.seq)
        if self.config.recording.enabled:
            self.trace = TraceWriter(
                self.config.data / "traces",
                {"venue": self.config.venue, "table": self.config.table,
                 "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "fusion": self.config.fusion, "language": self.config.language,
                 "resumed": len(inputs)},
                max_bytes=int(self.config.recording.max_mb * (1 << 20)),
                keep=self.config.recording.keep,
                max_total_bytes=int(self.config.recording.total_mb * (1 << 20)))
            for line in inputs:  # each session's trace replays from the match's start
                if "tick" not in line:
                    self.trace.write(line)
        return table

    def _history(self, after: int, limit: int) -> dict[str, Any]:
        """Returns the ``history_since`` answer: the journal's kept messages after seq
        ``after`` (topics relative to the base), ``first`` the oldest seq kept, and ``upto``:
        every seq up to it that is not among the messages (nor before ``first``) never was."""
        rows, first, last = self.journal.published(after, limit)
        upto = rows[-1][0] if len(rows) == limit else max(last, after)
        prefix = self.base + "/"
        return {"first": first, "upto": upto, "messages": [
            {"seq": seq, "topic": topic.removeprefix(prefix), "payload": json.loads(payload)}
            for seq, topic, payload in rows]}

    # ------------------------------------------------------------------ inputs
    def start(self) -> list[Outgoing]:
        """Returns what a started service publishes first: status, state, display, health."""
        return self._outgoing(self.table.start(self.now()))

    def handle(self, item: Input) -> list[Outgoing]:
        """Takes one input; returns the messages it caused, noted in the journal with it."""
        self._shot_ended = False
        if isinstance(item, SensorEvent):
            ev = dataclasses.replace(item, t=self._host(item.t))
            if ev.t > self._hold():  # after what a source that went down confirmed: wait
                bisect.insort(self._waiting, ev, key=lambda e: e.t)
                out = []
            else:
                out = self._sensor(ev)
        elif isinstance(item, LinkChanged):
            out = self._link(item)
        elif isinstance(item, Request):
            out = self._request(item)
        else:
            out = self._outgoing(self.table.publish_all(self.now()))
        if self._shot_ended:
            out += self._shot_over(self.now())
        return out

    def _shot_over(self, t: float) -> list[Outgoing]:
        """A shot was ruled: sensor health counts it, and the channels of a data gap are
        told as they are again (the gap was that shot's)."""
        gaps, self._gaps = self._gaps, set()
        return self._health(self.health.shot_ended() + self.health.shot_started(), t,
                            channels=sorted(gaps))

    def _sensor(self, item: SensorEvent) -> list[Outgoing]:
        """One sensor edge (``t`` on the service's clock) into the journal, table and health."""
        t = self._at(item.t)
        late = item.t < t and any(item.ch in chs for chs in self._late.values())
        ev = dataclasses.replace(item, t=t, at=round(item.t, 6) if late else None)
        self._last_t = t
        self._record(ev.to_json())
        out = self._outgoing(self.table.sensor(ev))
        # sensor health judges now, not then: a late edge is news to it at the table's time
        records = self.health.feed(dataclasses.replace(ev, t=max(t, self.now()), at=None)
                                   if late else ev)
        if records or self._told.get(ev.ch, Health.OK) is not self._fusion_state(ev.ch):
            out += self._health(records, t, channels=(ev.ch,))
        return out

    def _link(self, item: LinkChanged) -> list[Outgoing]:
        """A source went down: the table's clock holds at what it had confirmed (``item.t``,
        or where the clock already is), and its late edges, sent when it is back, come in
        with their own times. Back up: its hold lifts at the next tick, once the edges it
        kept (queued right behind this record) are in."""
        t = self._at(min(self._host(item.t), self.clock() - LAG * self.speed, self._hold()))
        if not item.up and item.channels:  # a sensor source (the broker's link carries none)
            self._carried[item.source] = item.channels
            self._holds.setdefault(item.source, t)
            self._back.discard(item.source)
        elif item.source in self._holds:
            self._back.add(item.source)
        elif item.up and item.source in self._late:
            self._late_back.add(item.source)
        records = self.health.feed(dataclasses.replace(item, t=t))
        for gap in records:
            if isinstance(gap, DataGap) and self.table.fusion.open_shot:
                # what it saw since it went down is lost: the shot goes to the referee
                log.warning("sensor source %s restarted while down (data to %.3f lost): the "
                            "referee is asked about its channels in the shot in play",
                            item.source, gap.since)
                self._gaps.update(gap.channels)
        return self._health(records, t, publish=True)

    def _lift(self, everything: bool = False) -> list[Outgoing]:
        """Lifts the holds of sources back up (all of them with ``everything``) and of those
        down for longer than ``HOLD_S``; lets in the edges that waited, in time order."""
        for source in self._back:
            self._holds.pop(source, None)
        self._back.clear()
        for source in self._late_back:
            self._late.pop(source, None)
        self._late_back.clear()
        given_up = self.clock() - (LAG + HOLD_S) * self.speed
        for source, held in list(self._holds.items()):
            if everything or held < given_up:
                if not everything:
                    log.warning("sensor source %s is still down (data to %.3f): the table's "
                                "clock goes on without it", source, held)
                    # what it kept still comes with its own times (``at``), whenever it comes
                    self._late[source] = self._carried.get(source, ())
                del self._holds[source]
        hold = self._hold()
        out: list[Outgoing] = []
        try:
            while self._waiting and self._waiting[0].t <= hold:
                ev = self._waiting.pop(0)
                # as if it had come on time: the clock (timers, sensor health) at its time
                self._replaying = max(ev.t, self._last_t)
                out += self._run_clock(self._replaying) + self._sensor(ev)
        finally:
            self._replaying = math.inf
        return out

    def _request(self, item: Request) -> list[Outgoing]:
        t = self.now() if item.t is None else self._at(min(self._host(item.t), self._hold()))
        out = self._run_clock(t)
        self._last_t = t
        matches = self.table.matches
        problem = item.problem
        if problem is None and self.journal_error is not None and item.name == "new_match":
            problem = (f"the journal cannot be written ({self.journal_error}): no new match"
                       " until it can; the match in play goes on")
        if problem is not None:
            handled = self.table.refuse(item.name, item.payload, problem, t)
        else:  # a live request's deadline is checked against the wall clock
            handled = self.table.request(item.name, item.payload, t,
                                         wall=self._wall() if item.t is None else None)
        if handled.line is not None:
            self._record(handled.line)
        reply = (item.response_topic, item.correlation) if item.response_topic else None
        out += self._outgoing(handled.messages, reply)
        if self.table.matches > matches:  # a new match: what came before is not needed
            self.journal.compact(self._last_input, self.table.transactions())
            self.journal.set_meta("matches_before", self.table.matches - 1)
        return out

    def tick(self, backend: SensorBackend | None = None) -> list[Outgoing]:
        """Runs what time alone decides: rulings falling due, stuck sensors, ``backend``'s
        counters, the periodic B/health; returns the messages."""
        self._shot_ended = False
        out = self._lift()
        now = self.now()
        out += self._run_clock(now)
        mono = self._mono()
        if mono >= self._next_health:
            self._next_health = mono + self.config.health.tick_s
            records = list(self.health.tick())
            if backend is not None:
                records += self.health.note_stats(backend.name, backend.stats())
            due = mono >= self._next_health_publish
            if due or records:
                self._next_health_publish = mono + self.config.health.publish_interval_s
            lost = [ch for r in records if isinstance(r, EventsLost) for ch, _ in r.channels]
            if lost and self.table.fusion.open_shot:  # edges a source lost: asked, not guessed
                self._gaps.update(lost)
            out += self._health(records, now, publish=due, channels=lost)
        if self._shot_ended:
            out += self._shot_over(now)
        return out

    def wait(self) -> float:
        """Returns how long (host seconds) the shell may wait for an input before ``tick``."""
        due = (self.table.next_deadline - self.clock()) / self.speed + LAG
        health = self._next_health - self._mono()
        return max(0.001, min(due, health, 1.0))

    def stop(self) -> list[Outgoing]:
        """Returns what a clean stop publishes: the edges still waiting for a source that
        went down, then the last message (``B/status`` ``stopped``)."""
        self._shot_ended = False
        out = self._lift(everything=True)
        if self._shot_ended:
            out += self._shot_over(self.now())
        return out + self._outgoing(self.table.stopped(self.now()))

    def _run_clock(self, now: float) -> list[Outgoing]:
        """Runs the table's clock to ``now`` when a timer is due (journaled as a tick)."""
        if now < self.table.next_deadline:
            return []
        self._last_t = max(self._last_t, now)
        self._last_input = self.journal.add_input({"t": round(now, 6), "tick": 1})
        return self._outgoing(self.table.advance(now))

    def _health(self, records: list[HealthRecord], t: float, *, publish: bool = False,
                channels: Iterable[str] = ()) -> list[Outgoing]:
        """Publishes sensor health's news and tells fusion (a journaled input) of each channel
        whose state is not what it was told."""
        changed: dict[str, Health] = {}
        named = [r.channel for r in records if isinstance(r, SensorFaulted | SensorRecovered)]
        for channel in dict.fromkeys([*named, *channels]):
            state = self._fusion_state(channel)
            if self._told.get(channel, Health.OK) is not state:
                changed[channel] = self._told[channel] = state
        out = self._run_clock(t) if changed else []
        for channel, state in changed.items():
            self._record(HealthLine(t, channel, state).to_json())
        return out + self._outgoing(self.table.health(records, changed, t, publish=publish))

    def _fusion_state(self, channel: str) -> Health:
        """Returns the state fusion is to have of a channel: sensor health's, except that a
        channel of a data gap, working again, is ``GAP`` until the shot it fell in is over."""
        try:
            state = self.health.state(channel)
        except KeyError:  # a channel no event came from yet (one a source named as losing)
            state = Health.OK
        return Health.GAP if channel in self._gaps and state is Health.OK else state

    def _record(self, line: dict[str, Any]) -> None:
        self._last_input = self.journal.add_input(line)
        if self.trace is not None:
            self.trace.write(line)

    def _outgoing(self, messages: list[Message],
                  reply: tuple[str, bytes | None] | None = None) -> list[Outgoing]:
        """Notes the table's messages in the journal as deliveries, each with its policy."""
        out: list[Outgoing] = []
        new = self.journal.new_outgoing
        for msg in messages:
            # a lone surrogate (never in a validated request) goes out as its JSON escape
            payload = json.dumps(msg.payload, separators=(",", ":"), ensure_ascii=False).encode(
                "utf-8", "backslashreplace")
            expiry = None
            if msg.role is Role.EVENT:
                expiry = self._event_expiry
                self._shot_ended = self._shot_ended or msg.ends_shot
            elif msg.role is Role.RESPONSE:
                expiry = self._response_expiry
            out.append(new(f"{self.base}/{msg.topic}", payload, msg.retain, msg.qos, expiry,
                           early=msg.live))
            if msg.role is Role.RESPONSE and reply is not None:
                topic, correlation = reply
                out.append(new(topic, payload, False, 1, expiry, correlation))
        if out:
            self._last_out = out[-1].id
        return out

    # ------------------------------------------------------------------ committing
    def commit(self) -> Commit:
        """Writes what the inputs since the last commit did, in one transaction (no wait for
        the disk); returns what may be released now.

        When the journal cannot be written (a full disk), the table goes on from memory: what
        was not written is kept and tried again every ``JOURNAL_RETRY_S`` with what came
        after it, ``journal_error`` says why (the shell shows it in health), and messages are
        released at once (they can no longer wait for a disk that takes nothing)."""
        seq = self.table.seq
        journal = self.journal
        if journal.pending or str(seq) != journal.meta.get("seq"):
            journal.set_meta("seq", seq)
            journal.set_meta("last_t", repr(self._last_t))
            journal.set_meta("wall", repr(self._wall()))
            if seq + SEQ_RESERVE // 2 > self._seq_limit:
                self._seq_limit = seq + SEQ_RESERVE
                journal.set_meta("seq_limit", self._seq_limit)
        batch = journal.take()
        if self._unwritten is not None:
            batch = self._unwritten.then(batch)
            if self._mono() < self._retry_at:
                self._unwritten = batch
                return Commit(Release(upto=self._last_out), False)
        if batch:
            try:
                journal.write(batch)
            except JournalError as exc:
                if self.journal_error is None:
                    log.error("%s: refereeing goes on from memory, new matches are refused;"
                              " trying again every %.0f s", exc, JOURNAL_RETRY_S)
                self.journal_error = str(exc)
                self._unwritten = batch
                self._retry_at = self._mono() + JOURNAL_RETRY_S
                return Commit(Release(upto=self._last_out), False)
            self._written_upto = self._last_out
            if self._unwritten is not None:
                log.warning("the journal is written again (%d inputs kept in memory meanwhile)",
                            len(batch.inputs))
                self._unwritten = None
                self.journal_error = None
        if not journal.sync_full:
            release = Release(upto=self._last_out)
        elif seq < self._seq_durable:
            release = Release(live_upto=self._written_upto)
        else:
            release = Release()
        return Commit(release, bool(batch))

    def sync_point(self) -> SyncPoint:
        """Returns what a sync starting now covers (take it just before ``sync``)."""
        return SyncPoint(self._written_upto, self._seq_limit)

    def sync(self) -> None:
        """Makes every batch written so far survive a power cut; safe in another thread while
        the core goes on. Raises JournalError if it cannot."""
        self.journal.sync()

    def synced(self, point: SyncPoint) -> Release:
        """The sync that began at ``point`` is done: returns what it releases."""
        self._seq_durable = point.seq_limit
        live = 0
        if self.journal.sync_full and self.table.seq < point.seq_limit:  # written since it began
            live = self._written_upto
        return Release(upto=point.upto, live_upto=live)

    def flush_recording(self) -> None:
        """Flushes the recording (a convenience, not the journal: after the release)."""
        if self.trace is not None:
            self.trace.flush()

    def close(self) -> None:
        """Closes the recording and the journal (writes and syncs what is noted), marking the
        stop clean; what the journal cannot take (a full disk) is lost, with a log line.
        Raises JournalError if a sync fails."""
        if self.trace is not None:
            self.trace.close()
        self.journal.set_meta("clean", 1)
        if self._unwritten is not None:  # one more try: the disk may have room again
            try:
                self.journal.write(self._unwritten.then(self.journal.take()))
            except JournalError as exc:
                log.error("stopping with %d inputs the journal could not take: %s",
                          len(self._unwritten.inputs), exc)
                self.journal.abandon()
                return
            self._unwritten = None
        self.journal.close()
