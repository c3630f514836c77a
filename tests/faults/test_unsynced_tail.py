"""A real power cut: the card keeps only what was synced. Worse than ``kill -9``, where the
operating system's cache keeps every write.

The journal's files are copied right after each sync; the card then stalls (syncs held) and
the power goes, and the table restarts from the copy, on a new boot. While a ball drops:
its ``ball_pocketed`` went out written but not synced, and is the only thing taken back; no
seq seen before the cut is given to another message. While a referee's request arrives: it
was never answered (its response waited for the sync), the table comes back without it, and
the app's resend (same transaction) applies it once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from controller.service import opening
from controller.service.delivery import Delivery
from controller.service.shell import Service
from controller.sim.backend import sim_backend
from hardware.gpio import GpioBackend
from tests.broker import Broker
from tests.faults.record import note
from tests.faults.test_power_cut import QUIET, fact, part, recorded_match, uninterrupted
from tests.hardware.pins import mock_factory
from tests.service.conftest import (
    Collector,
    gpio_table,
    make_config,
    requester,
    running,
    shot_pocketing,
)

PINS: dict[str, int | str] = {"beam.fl": 5, "beam.fr": 6, "cushion.f": 17, "cushion.h": 18}


async def _nothing_leaves() -> None:
    """What a stopping service waits for to drain its outbox: after a cut, nothing will."""


class Card:
    """The journal's sync, wrapped: after each real sync, the files as a power cut would leave
    them; ``stall()`` holds every sync from then on, and ``cut()`` stops copying."""

    def __init__(self, service: Service, keep: Path) -> None:
        self.real = service.journal.sync
        self.path = service.journal.path
        self.keep = keep
        self.open = threading.Event()
        self.open.set()
        self.copying = True
        service.journal.sync = self  # type: ignore[method-assign]

    def __call__(self) -> None:
        assert self.open.wait(30)
        self.real()
        if self.copying:
            self.keep.mkdir(exist_ok=True)
            for suffix in ("", "-wal"):
                source = Path(f"{self.path}{suffix}")
                if source.exists():
                    shutil.copy(source, self.keep / (self.path.name + suffix))

    def stall(self) -> None:
        self.open.clear()

    def cut(self, service: Service) -> None:
        """The power goes: what the card holds is the last copy, and nothing more leaves. (The
        service is then stopped only to free this process; its files are replaced.)"""
        self.copying = False
        service.outbox.release = lambda upto=None: None  # type: ignore[method-assign]
        service.outbox.release_early = lambda upto: None  # type: ignore[method-assign]
        service.outbox.drained = _nothing_leaves  # type: ignore[method-assign]
        self.open.set()

    def restore(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        for suffix in ("", "-wal"):
            kept = self.keep / (self.path.name + suffix)
            if kept.exists():
                shutil.copy(kept, Path(f"{self.path}{suffix}"))


async def test_a_power_cut_takes_back_only_an_early_ball_pocketed_and_no_seq_is_reused(
        tmp_path, broker, monkeypatch: pytest.MonkeyPatch):
    with gpio_table(tmp_path, broker, PINS,
                    journal={"sync": "full", "commit_interval_ms": 0}) as (service, driver):
        card = Card(service, tmp_path / "card")
        async with Collector(broker, identifier="board", persistent=True) as col:
            async with running(service):
                service.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                              "transaction": "nm"})
                await col.response("new_match", "nm")
                await col.wait(lambda: not service.outbox)  # everything out, and synced
                card.stall()
                await shot_pocketing(driver, "fl")
                (early,) = await col.wait(lambda: col.events("ball_pocketed"), timeout=5)
                before = {s.payload["seq"]: s.payload for s in col.seen if "seq" in s.payload}
                card.cut(service)
            card.restore()
            monkeypatch.setattr(opening, "boot_id", lambda: "the next boot")
            seen = len(col.seen)
            factory = mock_factory()
            after = Service(service.config, backend=GpioBackend(PINS, pin_factory=factory))
            produced: list[dict[str, Any]] = []  # what the table gives a seq, sent or not
            add = after.outbox.add

            def noted(item: Delivery) -> None:
                produced.append(json.loads(item.payload))
                add(item)

            after.outbox.add = noted  # type: ignore[method-assign]
            try:
                lost_drop = after.table.referee.state.shot == 0 and not after.table.fusion.open_shot
                async with running(after):
                    await col.wait(lambda: [s for s in col.seen[seen:] if s.kind == "state"])
                    # and a message with a seq of its own: what the journal's outbox held comes
                    # first, a state among it (a stressed run read only that, and nothing fresh)
                    await col.wait(lambda: [s for s in col.seen[seen:] if not s.retain
                                            and s.payload.get("seq", 0) > max(before)])
                    resumed = after.table.referee.state
                    new = [s.payload for s in col.seen[seen:] if "seq" in s.payload
                           and not s.retain]
            finally:
                factory.close()
    rulings_seen = [e["type"] for e in col.events() if e["seq"] < early["seq"]]
    # QoS 1: what the journal's outbox still held (its delivery was not synced) may come
    # again, the same message; a seq seen before on another message would be a reuse
    reused = [p["seq"] for p in new if p["seq"] <= max(before) and before.get(p["seq"]) != p]
    reused += [p["seq"] for p in produced if p["seq"] <= max(before)]  # even if superseded
    fresh = [p["seq"] for p in new if p["seq"] > max(before)]
    ok = not reused and lost_drop and resumed.setup is not None and "match_started" in rulings_seen
    note("power cut losing what was not synced (the card stalled)", 1, ok,
         taken_back="ball_pocketed", reused=reused)
    assert resumed.setup is not None, "the match, synced before the cut, is still there"
    assert lost_drop, "the drop was not synced: the restored table does not know it"
    assert not reused, f"seqs given out again after the cut: {reused}"
    assert fresh and min(fresh) > early["seq"] and early["seq"] not in [p["seq"] for p in new]


async def test_a_request_lost_to_a_power_cut_was_never_answered_and_its_resend_applies_once(
        tmp_path, broker, monkeypatch: pytest.MonkeyPatch):
    # The card stalls as a referee's request arrives: it is written, never synced, so its
    # response and the ruling it causes wait. The power goes; the table comes back without
    # it. The app, never answered, resends it (same transaction), as apps do: applied once.
    with gpio_table(tmp_path, broker, PINS,
                    journal={"sync": "full", "commit_interval_ms": 0}) as (service, driver):
        card = Card(service, tmp_path / "card")
        async with Collector(broker, identifier="board", persistent=True) as col, \
                requester(broker) as app:
            async with running(service):
                await app.send("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                             "race_to": 1, "transaction": "nm"})
                await col.response("new_match", "nm")
                await app.send("call", {"calls": [{"ball": 1, "pocket": "fr"}], "transaction": "c1"})
                await col.response("call", "c1")
                await col.wait(lambda: not service.outbox)
                card.stall()
                declare = {"pocketed": [{"ball": 1, "pocket": "fr"}], "transaction": "d1"}
                await app.send("declare", declare)
                await col.wait(lambda: "d1" in {tx for tx, _, _ in service.table.transactions()})
                await asyncio.sleep(0.3)  # the thing under test: no answer meanwhile, unsynced
                answered_before_cut = [p for p in col.of("response/declare")]
                card.cut(service)
            card.restore()
            monkeypatch.setattr(opening, "boot_id", lambda: "the next boot")
            factory = mock_factory()
            after = Service(service.config, backend=GpioBackend(PINS, pin_factory=factory))
            try:
                forgot = "d1" not in {tx for tx, _, _ in after.table.transactions()}
                async with running(after):
                    await app.send("declare", declare)  # no answer came: the app resends
                    await col.response("declare", "d1")
                    await app.send("declare", declare)  # and once more, late: not applied again
                    await col.response("declare", "d1", count=2)
                    await app.send("shot_end", {"transaction": "e1"})
                    await col.response("shot_end", "e1")
                    state = await col.wait(lambda: [p for p in col.of("state") if p["shot"] == 1])
            finally:
                factory.close()
    answers = col.of("response/declare")
    ok = not answered_before_cut and forgot and state[-1]["on_table"] == list(range(2, 11))
    note("power cut losing what was not synced (the card stalled)", 1, ok, taken_back="request")
    assert not answered_before_cut, "a response went out before its request was on disk"
    assert forgot, "the request was not synced: the restored table does not know it"
    assert [a["status"] for a in answers] == ["ok", "ok"]
    assert state[-1]["on_table"] == list(range(2, 11)), "the 1 was pocketed exactly once"
    assert state[-1]["to_shoot"] == 0, "Ann potted the ball she called: she shoots again"


async def unsynced_cuts(tmp_path: Path, broker: Broker, monkeypatch: pytest.MonkeyPatch,
                        cuts: int, seed: int) -> None:
    """Plays the recorded match by requests, as an app that resends until answered; before
    ``cuts`` random requests the card stalls and the power goes while the request arrives."""
    rng = random.Random(seed)
    reqs = recorded_match()
    at = set(rng.sample(range(1, len(reqs)), cuts))
    config = make_config(tmp_path, broker, journal={"sync": "full", "commit_interval_ms": 0})
    boots = itertools.count()
    monkeypatch.setattr(opening, "boot_id", lambda: f"boot-{next(boots)}")
    keep = tmp_path / "card"
    lost = 0  # requests the cut took back (the rest arrived after it, or were synced)
    async with Collector(broker, identifier="watcher", persistent=True) as col, \
            requester(broker) as app, contextlib.AsyncExitStack() as stack:
        service = Service(config, backend=sim_backend)
        card = Card(service, keep)
        await stack.enter_async_context(running(service))
        for i, (name, payload) in enumerate(reqs):
            tx = payload["transaction"]
            if i in at:
                card.stall()
                await app.send(name, payload)
                await asyncio.sleep(rng.uniform(0.0, 0.3))  # it arrives, or is on its way
                card.cut(service)
                await stack.aclose()
                card.restore()
                service = Service(config, backend=sim_backend)
                lost += tx not in {t for t, _, _ in service.table.transactions()}
                card = Card(service, keep)
                await stack.enter_async_context(running(service))
            await app.until_answered(col, name, payload, wait=1.5)
        final = service.table.referee.snapshot()
    state, events = uninterrupted(reqs)
    by_seq: dict[int, dict[str, Any]] = {}
    reused = []
    for p in [s.payload for s in col.seen if "seq" in s.payload]:
        if by_seq.setdefault(p["seq"], p) != p:  # QoS 1 may bring the same message again
            reused.append(p["seq"])
    order = [p["seq"] for p in col.events()]
    seen = [fact(p) for p in {p["seq"]: p for p in col.events()}.values() if p["type"] not in QUIET]
    ok = part(final) == part(state) and seen == events and not reused
    note("power cut losing what was not synced (the card stalled)", cuts, ok,
         taken_back="requests at random moments", requests_lost=lost, reused=reused)
    assert part(final) == part(state)
    assert seen == events, "an event lost, or applied twice"
    assert not reused, f"a seq given to another message after a cut: {reused}"
    assert sorted(set(order)) == list(dict.fromkeys(order)), "seq went back"


async def test_power_cuts_at_random_requests_leave_the_state_of_an_uninterrupted_match(
        tmp_path, broker, monkeypatch: pytest.MonkeyPatch) -> None:
    await unsynced_cuts(tmp_path, broker, monkeypatch, cuts=3, seed=5)


@pytest.mark.soak
@pytest.mark.timeout(900)
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_soak_many_unsynced_power_cuts(tmp_path, broker, monkeypatch: pytest.MonkeyPatch,
                                             seed: int) -> None:
    await unsynced_cuts(tmp_path, broker, monkeypatch, cuts=12, seed=seed)
