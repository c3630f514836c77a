"""A ``TableCore`` on a fake clock: the service's core stepped by hand, its messages in a real
``Outbox``, no broker and no service loop."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.service.config import Config, validate
from controller.service.core import LAG, Release, Request
from controller.service.delivery import Delivery
from controller.service.opening import open_core
from controller.service.outbox import Outbox
from hardware.events import SensorEvent

BASE = "billiards/club/t1"


@dataclass
class FakeClock:
    """The host's monotonic clock, moved by the test."""

    t: float = 0.0

    def __call__(self) -> float:
        return self.t


def core_config(data: Path, **sections: Any) -> Config:
    """Returns a configuration for a core in ``data`` (nothing connects to its broker)."""
    raw: dict[str, Any] = {
        "venue": "club", "table": "t1", "data": str(data), "backend": "sim",
        "mqtt": {"url": "mqtt://127.0.0.1:9"}, "recording": {"enabled": False},
        "journal": {"sync": "full"},
        # no periodic B/health: a core rebuilt mid-run would publish it at other times
        "health": {"publish_interval_s": 1e9},
    }
    for key, value in sections.items():
        raw.setdefault(key, {}).update(value)
    return validate(raw, "test")


@dataclass
class Stepper:
    """A core on a fake clock, and everything it gave to publish, in order."""

    config: Config
    clock: FakeClock = field(default_factory=FakeClock)
    wall: FakeClock = field(default_factory=lambda: FakeClock(1.8e9))
    boot: str = "boot-1"
    sent: list[Delivery] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.core = open_core(self.config, clock=self.clock, wall=self.wall, boot=self.boot)
        self.outbox = Outbox(self.core.journal, 1000)
        self.outbox.restore(self.core.restored)

    def at(self, t: float) -> None:
        """Moves the clock so that the core's lagging clock reads ``t`` (never back)."""
        self.clock.t = max(self.clock.t, t + LAG)

    def take(self, items: list[Delivery]) -> list[Delivery]:
        """Hands the core's messages to the outbox (as the shell does); returns them."""
        self.sent += items
        for item in items:
            self.outbox.add(item)
        return items

    def step(self, line: dict[str, Any]) -> list[Delivery]:
        """Feeds one trace line as the live loop would: time passes up to it, then it comes."""
        t = float(line["t"])
        self.at(t)
        out = self.take(self.core.tick())
        if "ch" in line:
            return out + self.take(self.core.handle(SensorEvent(
                t, line["ch"], line.get("v", 1), line.get("level"), line.get("ball"),
                line.get("pocket"))))
        return out + self.take(self.core.handle(Request(line["request"], dict(line["payload"]), t)))

    def settle(self, t: float) -> list[Delivery]:
        self.at(t)
        return self.take(self.core.tick())

    def release(self, release: Release) -> Release:
        """Applies a release to the outbox (as the shell does); returns it."""
        if release.upto:
            self.outbox.release(release.upto)
        if release.live_upto:
            self.outbox.release_early(release.live_upto)
        return release

    def commit(self) -> Release:
        """Writes the batch; returns what the core released, applied to the outbox."""
        return self.release(self.core.commit().release)

    def sync(self) -> Release:
        """Syncs what is written (as the shell's sync task does); returns what it released."""
        point = self.core.sync_point()
        self.core.sync()
        return self.release(self.core.synced(point))

    async def leaving(self) -> list[Delivery]:
        """Returns the messages the outbox lets go now, in order (delivered, as by the link)."""
        out: list[Delivery] = []
        while True:
            try:
                item = await asyncio.wait_for(self.outbox.next(), 0.01)
            except TimeoutError:
                return out
            self.outbox.done(item)
            out.append(item)

    def close(self) -> None:
        self.core.close()


def rows(data: Path, sql: str) -> list[tuple[Any, ...]]:
    """Returns the rows ``sql`` selects from the journal in ``data`` (read beside its writer)."""
    db = sqlite3.connect(data / "journal.sqlite3")
    try:
        return list(db.execute(sql))
    finally:
        db.close()


def payloads(items: list[Delivery], topic: str) -> list[dict[str, Any]]:
    """Returns the JSON payloads of the messages on ``B/<topic>``."""
    return [json.loads(o.payload) for o in items if o.topic == f"{BASE}/{topic}"]


def events(items: list[Delivery], kind: str) -> list[Delivery]:
    """Returns the events of type ``kind``."""
    return [o for o in items if o.topic == f"{BASE}/event" and json.loads(o.payload)["type"] == kind]
