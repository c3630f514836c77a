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


async def test_a_step_done_again_keeps_only_its_last_try() -> None:
    import asyncio

    from controller.commission.session import run_session
    from controller.commission.simtable import SimTable
    from controller.commission.web import CommissionPage
    from tests.waiting import until

    steps = [Step("beam.hl", StepKind.POCKET, Pocket.HEAD_LEFT),
             Step("beam.hr", StepKind.POCKET, Pocket.HEAD_RIGHT)]
    board = Board(list(steps))
    page = WebInstaller(board)
    table = SimTable()

    async def nothing() -> str:
        return ""

    async def ball(ch: str, t: float) -> None:
        await table.deliver([SensorEvent(t, ch, 1), SensorEvent(t + 0.02, ch, 0)])

    async def installer() -> None:
        server = CommissionPage(board, page, "127.0.0.1", 0, nothing)
        await until(lambda: board.current == 0, 5.0, "the first step")
        await ball("beam.hr", 1.0)  # the wrong pocket: the installer says so and does it again
        await until(lambda: "beam.hr" in board.step_heard.get("beam.hl", {}), 5.0, "heard")
        assert await server.act("redo") == (200, {"ok": True})
        await until(lambda: "beam.hl" not in board.step_heard, 5.0, "the step forgotten")
        await ball("beam.hl", 2.0)
        await until(lambda: "beam.hl" in board.step_heard.get("beam.hl", {}), 5.0, "heard")
        assert await server.act("done") == (200, {"ok": True})
        await until(lambda: board.current == 1, 5.0, "the second step")
        await ball("beam.hr", 3.0)
        await until(lambda: board.step_heard.get("beam.hr"), 5.0, "heard")
        assert await server.act("done") == (200, {"ok": True})

    async with table, asyncio.TaskGroup() as tasks:  # the installer failing ends the session
        tasks.create_task(installer())
        running = tasks.create_task(
            run_session(table, steps, page, settle_s=0.05, heard=page.heard))
    first, second = running.result().captures
    assert [(e.ch, e.t) for e in first.events] == [("beam.hl", 2.0), ("beam.hl", 2.02)]
    assert [e.ch for e in second.events] == ["beam.hr", "beam.hr"]
