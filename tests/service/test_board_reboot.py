"""A board runs on while the Pi reboots (issue 38 §1), on the core with a fake clock.

The new service fits the board's clock afresh, so the edges it kept have their own times on
the new boot's monotonic clock; the service's clock resumes after its last input by the time
the wall clock says the machine was off. A Pi has no clock of its own: before NTP that time
may be short by much, and the kept edges then land before the last input, which no kept edge
can. They are taken in their order and spacing just after it, every one counted, and their
shot goes to the referee, the question naming the gap.
"""

from __future__ import annotations

import json
from pathlib import Path

from controller.service.clock import HOLD_S
from hardware.events import LinkChanged
from tests.service.corekit import FakeClock, Stepper, core_config, events
from tests.service.test_core import in_a_match
from tests.service.test_late_edges import DROPS, kept_edges, pocketed

BOARD = ("beam.hl", "beam.hr", "beam.sl", "beam.sr", "beam.fl", "beam.fr", "cushion.h",
         "cushion.f")


def test_edges_kept_across_a_reboot_with_no_clock_are_counted_in_order_and_their_shot_asked(
        tmp_path: Path) -> None:
    s = in_a_match(core_config(tmp_path))
    s.take(s.core.handle(LinkChanged(0.5, "board-a", True, "connected", BOARD, boot_id=7)))
    s.step({"t": 2.0, "ch": "cushion.f", "v": 1})  # the shot opens; then the power goes
    s.step({"t": 2.01, "ch": "cushion.f", "v": 0})
    s.commit()
    s.close()
    last = s.core.time.last_t
    # Back 20 s later by the board's clock, 0 s by the wall clock (no RTC, no NTP yet): the
    # balls fell 3.0 s before this boot's monotonic zero, as the new fit has them.
    again = Stepper(core_config(tmp_path), clock=FakeClock(1.0), wall=s.wall, boot="boot-2")
    again.take(again.core.start())
    kept = kept_edges(-3.0)
    assert again.core.time.host(kept[0].t) < last  # before the last input: impossible
    again.take(again.core.handle(LinkChanged(1.0, "board-a", True, "connected", BOARD,
                                             boot_id=7)))
    for edge in kept:
        again.take(again.core.handle(edge))
    for _ in range(80):
        again.settle(again.core.now() + 0.1)
    got = pocketed(again)
    assert [p for p, _ in got] == [p for p, _ in DROPS]  # every one, in order
    first = got[0][1]
    assert first > last
    assert [round(t - first, 6) for _, t in got] == [round(at - DROPS[0][1], 6)
                                                     for _, at in DROPS]  # their spacing
    asked = [json.loads(o.payload)["data"] for o in events(again.sent, "question")]
    fell = {q["about"]["pocket"]: q["about"] for q in asked if q["topic"] == "ball_fell"}
    assert sorted(fell) == ["fl", "fr", "hl", "hr", "sl", "sr"]  # the shot goes to the referee
    assert all(about["gaps"] == 1 and about["channels"] == sorted(BOARD)
               for about in fell.values())
    again.close()


def test_edges_kept_across_a_restart_of_the_service_keep_their_own_time(tmp_path: Path) -> None:
    """The control: the same machine, the service restarted (its monotonic clock runs on)."""
    s = in_a_match(core_config(tmp_path))
    s.take(s.core.handle(LinkChanged(0.5, "board-a", True, "connected", BOARD, boot_id=7)))
    s.step({"t": 2.0, "ch": "cushion.f", "v": 1})
    s.step({"t": 2.01, "ch": "cushion.f", "v": 0})
    s.commit()
    s.close()
    again = Stepper(core_config(tmp_path), clock=FakeClock(s.clock.t + 3.0), wall=s.wall,
                    boot="boot-1")
    again.take(again.core.start())
    again.take(again.core.handle(LinkChanged(again.clock.t, "board-a", True, "connected",
                                             BOARD, boot_id=7)))
    for edge in kept_edges(2.2):
        again.take(again.core.handle(edge))
    for _ in range(80):
        again.settle(again.core.now() + 0.1)
    assert pocketed(again) == [(p, round(2.2 + at, 6)) for p, at in DROPS]
    assert not [q for q in events(again.sent, "question")
                if json.loads(q.payload)["data"]["topic"] == "ball_fell"]
    again.close()


def test_a_board_of_the_last_run_that_never_comes_back_is_held_for_once(tmp_path: Path) -> None:
    """A board taken off the table: the first start holds the clock for it (HOLD_S), then
    forgets it; the next start holds for nothing."""
    s = in_a_match(core_config(tmp_path))
    s.take(s.core.handle(LinkChanged(0.5, "board-a", True, "connected", BOARD, boot_id=7)))
    s.commit()
    s.close()
    again = Stepper(core_config(tmp_path), clock=FakeClock(s.clock.t + 1.0), wall=s.wall,
                    boot="boot-1")
    again.take(again.core.start())
    held = again.core.now()
    assert again.core.time.holds.until() < float("inf")  # held for board-a
    again.settle(held + HOLD_S + 1.0)
    assert again.core.time.holds.until() == float("inf")  # given up
    again.commit()
    again.close()
    third = Stepper(core_config(tmp_path), clock=FakeClock(again.clock.t + 1.0), wall=s.wall,
                    boot="boot-1")
    assert third.core.time.holds.until() == float("inf")  # nothing to hold for
    third.close()
