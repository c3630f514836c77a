"""What the commissioning page hears (issue 28): one line a channel however much it chatters,
and each step what it heard, its own channel answering or not."""

from __future__ import annotations

from controller.commission.steps import Step, StepKind
from controller.commission.web import HEARD, Board, WebInstaller
from hardware.events import SensorEvent
from vocabulary import Pocket, Rail

STEPS = [Step("quiet", StepKind.QUIET), Step("beam.hl", StepKind.POCKET, Pocket.HEAD_LEFT),
         Step("cushion.h", StepKind.CUSHION, Rail.HEAD)]


def test_a_chattering_channel_is_one_line_with_its_count_and_leaves_the_others_seen() -> None:
    board = Board(list(STEPS), current=1)
    page = WebInstaller(board)
    page.heard(SensorEvent(1.0, "beam.hl", 1))
    page.heard(SensorEvent(1.01, "beam.hl", 0))
    for i in range(5 * HEARD):
        page.heard(SensorEvent(2.0 + i / 100, "cushion.lf", (i + 1) % 2))
    heard = board.to_json()["heard"]
    assert [h["ch"] for h in heard] == ["cushion.lf", "beam.hl"]
    assert heard[0]["edges"] == 5 * HEARD and heard[1] == {
        "ch": "beam.hl", "v": 0, "t": 1.01, "edges": 2}


def test_each_step_shows_what_it_heard_and_whether_its_own_channel_answered() -> None:
    board = Board(list(STEPS), current=1)
    page = WebInstaller(board)
    page.heard(SensorEvent(1.0, "beam.hl", 1))
    board.current = 2
    page.heard(SensorEvent(2.0, "beam.hr", 1))  # a beam answering a cushion's step
    steps = board.to_json()["steps"]
    assert [(s["heard"], s["answered"]) for s in steps] == [
        ({}, False), ({"beam.hl": 1}, True), ({"beam.hr": 1}, False)]
