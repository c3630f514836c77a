"""The core's parts on their own, no files: the clock, the holds, the release policy, health
timing, the rebuild's alignment with the trace, and the core on a journal held in memory."""

from __future__ import annotations

import json
from typing import Any

from controller.service.clock import LAG, Holds, ServiceClock
from controller.service.core import Request, TableCore
from controller.service.durability import SEQ_RESERVE, Durability, Release
from controller.service.health_timing import HealthTiming
from controller.service.journal import MEMORY, Journal
from controller.service.rebuild import Entry, align
from hardware.events import SensorEvent
from tests.service.corekit import FakeClock, core_config, payloads

NEW_MATCH = {"game": "ten-ball", "players": ["Ann", "Bob"], "transaction": "nm"}


def test_the_clock_resumes_after_the_last_input_when_the_monotonic_clock_went_back() -> None:
    mono = FakeClock(2.0)
    clock = ServiceClock(mono)
    moved = clock.resume({"offset": "0.0", "last_t": "500.0", "wall": "1000.0"}, wall=1030.0)
    assert moved and clock.clock() >= 530.0 and clock.last_t == 500.0
    again = ServiceClock(FakeClock(600.0))
    assert not again.resume({"offset": "0.0", "last_t": "500.0"}, wall=0.0)
    assert again.clock() == 600.0


def test_the_clock_resumes_after_inputs_the_journal_meta_lost() -> None:
    clock = ServiceClock(FakeClock(1.0))
    assert clock.resume({}, wall=0.0, last_input=40.0)  # recovered from the trace
    assert clock.clock() > 40.0 and clock.at(10.0) == 40.0


def test_a_hold_keeps_later_edges_until_the_source_is_back() -> None:
    holds = Holds()
    holds.down("board-a", 10.0, ("beam.fl",))
    assert holds.until() == 10.0
    holds.wait(SensorEvent(12.0, "beam.fl", 1))
    holds.wait(SensorEvent(11.0, "beam.fr", 1))
    assert holds.lift(given_up=0.0) == []  # still down
    holds.up("board-a")
    assert [e.t for e in holds.lift(given_up=0.0)] == [11.0, 12.0]
    assert holds.until() == float("inf")


def test_a_source_down_too_long_is_given_up() -> None:
    holds = Holds()
    holds.down("board-a", 10.0, ("beam.fl",))
    holds.wait(SensorEvent(30.0, "beam.fl", 1))
    assert [e.t for e in holds.lift(given_up=25.0)] == [30.0]


def test_the_lagging_clock_is_held_and_never_before_the_last_input() -> None:
    mono = FakeClock(100.0)
    clock = ServiceClock(mono)
    assert clock.now() == round(100.0 - LAG, 6)
    clock.holds.down("board-a", 90.0, ("beam.fl",))
    assert clock.now() == 90.0
    clock.took(95.0)
    assert clock.now() == 95.0


def test_the_release_policy_waits_for_the_sync_and_reserves_seqs_in_the_journal() -> None:
    journal = Journal(MEMORY)
    policy = Durability(journal, mono=FakeClock(), seq_limit=0)
    journal.add_input({"t": 1.0, "request": "get", "payload": {}})
    policy.last_out = journal.new_outgoing("b/state", b"{}", True).id
    done = policy.commit(seq=3, meta={"last_t": "1.0"})
    assert done.written and done.release == Release()  # a ruling waits for the sync
    assert journal.meta["seq_limit"] == str(3 + SEQ_RESERVE)
    point = policy.sync_point()
    journal.sync()
    assert policy.synced(point, seq=3) == Release(upto=1, live_upto=1)
    journal.close()


def test_health_is_ticked_every_tick_s_and_published_every_interval() -> None:
    timing = HealthTiming(0.0, tick_s=0.5, publish_interval_s=10.0)
    assert timing.tick_due(0.0) and not timing.tick_due(0.2) and timing.tick_due(0.5)
    assert not timing.publish_due(0.5, news=False)
    assert timing.publish_due(10.0, news=False)
    assert abs(timing.idle_for(0.7) - 0.3) < 1e-9  # the next tick at 1.0


def _entries(lines: list[dict[str, Any] | None]) -> list[Entry]:
    return [Entry(n, line, "" if line else "bad") for n, line in enumerate(lines, start=1)]


def test_the_journal_is_found_in_the_trace_session_and_a_bad_row_matches_anything() -> None:
    a, b, c, d = ({"t": float(n), "request": "get", "payload": {"n": n}} for n in range(4))
    traced = [json.dumps(x, separators=(",", ":")) for x in (a, b, c, d)]
    assert align(_entries([b, {"t": 1.5, "tick": 1}, None]), traced) == 1
    assert align(_entries([a, b, c, d, {"t": 9.0, "request": "x", "payload": {}}]), traced) == 0
    assert align(_entries([b, a]), traced) is None  # not what the trace recorded


def test_the_core_runs_on_a_journal_in_memory_with_no_files() -> None:
    clock = FakeClock(10.0)
    nowhere = MEMORY.parent / "nowhere"
    core = TableCore(core_config(nowhere), Journal(MEMORY), clock=clock,
                     wall=FakeClock(1.8e9), boot="b")
    assert payloads(core.start(), "state")
    clock.t = 11.0
    out = core.handle(Request("new_match", dict(NEW_MATCH)))
    assert payloads(out, "response/new_match")[0]["status"] == "ok"
    assert core.commit().written and core.idle_for() > 0
    core.close()
    assert not nowhere.exists(), "the core made its data directory: I/O of its own"


def test_a_new_journals_match_ids_carry_the_date_of_the_injected_wall_clock() -> None:
    core = TableCore(core_config(MEMORY.parent / "nowhere"), Journal(MEMORY), clock=FakeClock(1.0),
                     wall=FakeClock(1.8e9), boot="b")  # 2027-01-15 UTC
    core.start()
    core.handle(Request("new_match", dict(NEW_MATCH)))
    assert core.table.match_id == "m-20270115-1"
    core.close()
