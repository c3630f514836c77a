"""Sensor health as the service runs it: its timing, and what fusion was told of each channel.

Sensor health (``hardware.health.HealthMonitor``) is judged on the table's lagging clock, never
past what the service heard through (``ServiceClock.heard``: time alone judges nothing on a host
stall's time, when edges stamped then may still be waiting in a backend or the queue); it is
ticked every ``health.tick_s`` of host time (a stuck beam sends nothing more), and ``B/health``
is published every ``health.publish_interval_s`` and whenever a tick finds news. Fusion hears
a channel's state (a journaled ``HealthLine``) whenever it is not what fusion was last told.
``ServiceHealth`` holds the three (monitor, timing, what was told) for ``TableCore``: it says
what sensor health found; the core journals it, tells the table and publishes it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Sequence

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


class HealthTiming:
    """When health is next ticked and next published (host monotonic seconds)."""

    def __init__(self, now: float, *, tick_s: float, publish_interval_s: float) -> None:
        self.tick_s = tick_s
        self.publish_interval_s = publish_interval_s
        self._next_tick = 0.0
        self._next_publish = now + publish_interval_s

    def tick_due(self, now: float) -> bool:
        """Returns whether health is to be ticked at ``now`` (and if so, counts it done)."""
        if now < self._next_tick:
            return False
        self._next_tick = now + self.tick_s
        return True

    def publish_due(self, now: float, news: bool) -> bool:
        """Returns whether a tick at ``now`` publishes ``B/health`` (the interval is up); with
        ``news`` or a publish the interval starts again."""
        due = now >= self._next_publish
        if due or news:
            self._next_publish = now + self.publish_interval_s
        return due

    def idle_for(self, now: float) -> float:
        """Returns the host seconds until the next tick."""
        return self._next_tick - now


class ToldHealth:
    """What fusion was told of each channel's health (``ok`` unless told otherwise), and the
    channels of a data gap in the shot in play (``gaps``: a source that restarted while down,
    or named edges it lost): fusion has them as ``GAP`` while they work, until that shot is
    over (``shot_over``)."""

    def __init__(self, told: dict[str, Health] | None = None) -> None:
        self._told = dict(told or {})
        self.gaps: set[str] = set()

    def __len__(self) -> int:
        """Returns how many channels fusion was told of (``benchmarks.leaks`` watches it)."""
        return len(self._told)

    def state(self, monitor: HealthMonitor, channel: str) -> Health:
        """Returns the state fusion is to have of a channel: sensor health's, except that a
        channel of a data gap, working again, is ``GAP`` until the shot it fell in is over."""
        try:
            state = monitor.state(channel)
        except KeyError:  # a channel no event came from yet (one a source named as losing)
            state = Health.OK
        return Health.GAP if channel in self.gaps and state is Health.OK else state

    def note_gaps(self, source: str, records: Iterable[HealthRecord]) -> None:
        """A source came back with another boot id while a shot is open: what it saw since it
        went down is lost, so its channels are gaps in that shot (the referee is asked)."""
        for gap in records:
            if isinstance(gap, DataGap):
                log.warning("sensor source %s restarted while down (data to %.3f lost): the "
                            "referee is asked about its channels in the shot in play",
                            source, gap.since)
                self.gaps.update(gap.channels)

    def noted(self, channels: tuple[str, ...]) -> tuple[str, ...]:
        """Notes ``channels`` as a gap in the shot in play (a board's kept edges of a time that
        cannot be known: ``clock.Holds.placed``); returns them."""
        self.gaps.update(channels)
        return channels

    def note_lost(self, records: Iterable[HealthRecord], open_shot: bool) -> list[str]:
        """Returns the channels a source named as losing edges; in an open shot they are gaps
        (asked, not guessed)."""
        lost = [ch for r in records if isinstance(r, EventsLost) for ch, _ in r.channels]
        if lost and open_shot:
            self.gaps.update(lost)
        return lost

    def shot_over(self) -> list[str]:
        """The shot was ruled: returns the channels of its data gaps, no longer gaps."""
        gaps, self.gaps = sorted(self.gaps), set()
        return gaps

    def differs(self, monitor: HealthMonitor, channel: str) -> bool:
        """Returns whether the state fusion is to have of ``channel`` is not what it was told."""
        return self._told.get(channel, Health.OK) is not self.state(monitor, channel)

    def news(self, monitor: HealthMonitor, records: Iterable[HealthRecord],
             channels: Iterable[str] = ()) -> dict[str, Health]:
        """Returns the channels (named by ``records`` or in ``channels``) whose state is not
        what fusion was told, with their state, now counted as told."""
        named = [r.channel for r in records if isinstance(r, SensorFaulted | SensorRecovered)]
        changed: dict[str, Health] = {}
        for channel in dict.fromkeys([*named, *channels]):
            state = self.state(monitor, channel)
            if self._told.get(channel, Health.OK) is not state:
                changed[channel] = self._told[channel] = state
        return changed


class ServiceHealth:
    """The table's sensor health in the service: ``monitor`` judges, ``timing`` says when it is
    ticked and published, ``told`` what fusion was told. Each method returns sensor health's
    news (``HealthRecord``) for the core to journal, tell the table and publish."""

    def __init__(self, monitor: HealthMonitor, timing: HealthTiming, told: ToldHealth) -> None:
        self.monitor = monitor
        self.timing = timing
        self.told = told

    def edge(self, ev: SensorEvent, own: float, late_at: float | None) -> tuple[list[HealthRecord], bool]:
        """Judges one sensor edge at its own time ``own`` (its source was heard through it,
        no further: a block that came late, its release queued behind it, is not stuck for
        the time it waited, whether or not the table took anything later before it), or, for a
        given-up source's kept edges (``late_at``: the table's time), at that time (not stuck
        since then). What time alone decides after it is judged at the ticks, once the queue
        is drained. Returns the news, and whether fusion is to be told its channel's state (it
        differs from what fusion was told)."""
        if late_at is not None:
            records = self.monitor.feed(dataclasses.replace(ev, t=late_at, at=None))
        else:
            records = self.monitor.feed(dataclasses.replace(ev, t=own, at=None), own)
        return records, bool(records) or self.told.differs(self.monitor, ev.ch)

    def link(self, item: LinkChanged, open_shot: bool) -> list[HealthRecord]:
        """Judges a source going down or coming back (``item``, at the table's time); with a
        shot open, what it saw since it went down is lost: a gap in that shot (asked)."""
        records = self.monitor.feed(item)
        if open_shot:
            self.told.note_gaps(item.source, records)
        return records

    def tick(self, mono: float, backend: SensorBackend | None,
             open_shot: bool) -> tuple[list[HealthRecord], bool, list[str]] | None:
        """Ticks sensor health if it is due at host time ``mono`` (None: not due), with
        ``backend``'s counters. Returns the news, whether ``B/health`` is to be published, and
        the channels a source named as losing edges (gaps in an open shot)."""
        if not self.timing.tick_due(mono):
            return None
        records = list(self.monitor.tick())
        if backend is not None:
            records += self.monitor.note_stats(backend.name, backend.stats())
        due = self.timing.publish_due(mono, bool(records))
        return records, due, self.told.note_lost(records, open_shot)

    def shot_over(self) -> tuple[list[HealthRecord], list[str]]:
        """A shot was ruled: sensor health counts it; returns the news and the channels of its
        data gaps (told as they are again)."""
        return self.monitor.shot_ended() + self.monitor.shot_started(), self.told.shot_over()

    def news(self, records: Iterable[HealthRecord], channels: Sequence[str]) -> dict[str, Health]:
        """Returns the channels whose state fusion is now to be told (``ToldHealth.news``)."""
        return self.told.news(self.monitor, records, channels)
