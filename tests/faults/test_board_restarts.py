"""A board runs on while the service restarts (issue 38 §1): the firmware on the MicroPython VM
behind a pty, the live ``controller run`` (serial backend) and a real Mosquitto.

A self-powered board keeps the edges no host took; the next service gets them at its Hello.
Every ball that fell meanwhile is published once, with its own time, in the shot it fell in.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.broker import Broker
from tests.faults.vmboard import CUSHION_H, VmBoard
from tests.firmware_bridge.test_micropython import needs_micropython
from tests.service.conftest import Collector, Requester, requester

ROOT = Path(__file__).resolve().parents[2]
#: Between two cushion hits of a shot still rolling: hits apart (``cushion_gap_s``, 60 ms),
#: and well within the shot's quiet window (``quiet_s``, 2.5 s).
ROLL_S = 0.25
POCKETS = ["fl", "fr", "sl", "sr", "hl", "hr", "fl", "fr", "sl", "sr", "hl"]


def write_config(tmp_path: Path, broker: Broker, ports: list[Path]) -> Path:
    path = tmp_path / "controller.toml"
    path.write_text(f"""
venue = "club"
table = "t1"
backend = "serial"
data = "{tmp_path / 'data'}"

[mqtt]
url = "{broker.url}"
reconnect_min_s = 0.1
reconnect_max_s = 0.5

[serial]
ports = {[str(p) for p in ports]!r}

[health]
tick_s = 0.1

[web]
enabled = false
""".replace("'", '"'))
    return path


@contextmanager
def service(config: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``controller run`` in its own process, its log in ``log`` (appended); killed at the end
    if it still runs."""
    with log.open("ab") as err:
        proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config",
                                 str(config)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def board_up(col: Collector, uid: str, since: int = 0) -> bool:
    return any(h.get("links", {}).get(uid, {}).get("up") and h["links"][uid]["channels"]
               for h in col.of("health")[since:])


async def kept_across_a_restart(tmp_path: Path, broker: Broker, *, kill: bool,
                                cable_dead_s: float, ended: bool = False,
                                ) -> tuple[list[dict[str, Any]], list[tuple[str, float, float]], int]:
    """Plays a ball (and ends that shot, ``ended``), then the service goes (``kill``: SIGKILL,
    else a clean stop) and a new one starts at once while 11 balls fall (the cable dead
    ``cable_dead_s``, 0: in); returns the ``ball_pocketed`` events, the balls as the board saw
    them, and the shot they fell in (the one open at the restart, or the next)."""
    link = tmp_path / "usb-MicroPython_Board_in_FS_mode_e661410401020304-if00"
    config = write_config(tmp_path, broker, [link])
    log = tmp_path / "service.log"
    with VmBoard(tmp_path / "board", link) as board:
        async with Collector(broker) as col, requester(broker) as req:
            with service(config, log) as first:
                await col.wait(lambda: board_up(col, board.uid), 60)
                await req.send("new_match", {"game": "pyramid", "players": ["Ann", "Bob"],
                                             "transaction": "nm"})
                await col.response("new_match", "nm")
                board.set(CUSHION_H, 1)  # the shot opens: a cushion, then a ball
                board.set(CUSHION_H, 0)
                board.drop("hr")
                await col.wait(lambda: col.events("ball_pocketed"), 20)
                shot = col.events("ball_pocketed")[0]["data"]["shot"]
                if ended:  # the shot is over: what falls next is a shot of its own
                    await req.send("shot_end", {"transaction": "end"})
                    await col.response("shot_end", "end")
                    await req.settle(col)
                    shot += 1
                if kill:
                    first.send_signal(signal.SIGKILL)
                else:
                    first.terminate()
                first.wait(30)
            seen = len(col.of("health"))
            if kill:  # systemd starts it again at once; the cable is dead meanwhile
                board.cable(False)
                with service(config, log):
                    await balls(board, cable_dead_s)
                    board.cable(True)
                    await settled(col, req, board.uid, seen)
            else:  # stopped for 3 s, the cable in
                await balls(board, 3.0)
                with service(config, log):
                    await settled(col, req, board.uid, seen)
    # a message the killed service had sent but not yet seen acknowledged is sent again, with
    # its seq (at least once): a subscriber takes each seq once
    once = {e["seq"]: e for e in col.events("ball_pocketed")}
    return [once[seq] for seq in sorted(once)], board.drops(), shot


async def balls(board: VmBoard, seconds: float) -> None:
    """11 balls through the beams over ``seconds``."""
    start = time.monotonic()
    for n, pocket in enumerate(POCKETS):
        await asyncio.sleep(max(0.0, start + n * seconds / len(POCKETS) - time.monotonic()))
        board.drop(pocket)
    await asyncio.sleep(max(0.0, start + seconds - time.monotonic()))


async def settled(col: Collector, req: Requester, uid: str, seen: int) -> None:
    """Waits for the board to be up again and every ball to be published."""
    await col.wait(lambda: board_up(col, uid, seen), 60)
    await col.wait(lambda: len({e["seq"] for e in col.events("ball_pocketed")}) > len(POCKETS),
                   30)
    await req.settle(col)


def check(events: list[dict[str, Any]], truth: list[tuple[str, float, float]],
          shot: int) -> None:
    """Each ball once, in order, at its own time (within 1 ms of the span it fell in), the
    11 in ``shot``."""
    assert [e["data"]["pocket"] for e in events] == [p for p, _, _ in truth]  # once, in order
    assert len(events) == 1 + len(POCKETS)
    # The service's clock is host monotonic plus its journal's offset, the same across a
    # restart of the service: measured from the first ball (before it), each ball's time
    # lies within the spans the two balls fell in.
    _, before0, after0 = truth[0]
    for event, (pocket, before, after) in zip(events, truth, strict=True):
        since = event["ts"] - events[0]["ts"]
        assert before - after0 - 0.001 < since < after - before0 + 0.001, (pocket, since,
                                                                           before, after)
    assert {e["data"]["shot"] for e in events[1:]} == {shot}  # where they fell


@needs_micropython
async def test_balls_kept_while_the_service_was_killed_and_the_cable_dead_8_s_are_published(
        tmp_path: Path, broker: Broker) -> None:
    check(*await kept_across_a_restart(tmp_path, broker, kill=True, cable_dead_s=8.0))


@needs_micropython
async def test_balls_kept_through_a_3_s_restart_with_the_cable_in_are_published(
        tmp_path: Path, broker: Broker) -> None:
    check(*await kept_across_a_restart(tmp_path, broker, kill=False, cable_dead_s=0.0))


@needs_micropython
async def test_balls_kept_through_a_3_s_stop_after_a_shot_ended_are_a_shot_of_their_own(
        tmp_path: Path, broker: Broker) -> None:
    """The shot was over when the service stopped: the balls that fell while it was down are
    the next shot, played while no service ran."""
    check(*await kept_across_a_restart(tmp_path, broker, kill=False, cable_dead_s=0.0,
                                       ended=True))


@needs_micropython
async def test_a_brown_out_loop_within_one_shot_names_each_gap_in_what_the_referee_is_asked(
        tmp_path: Path, broker: Broker) -> None:
    """Issue 38 §2: the board off 0.3 s, five times within one shot (the balls rolling on:
    cushion hits between, never ``quiet_s`` apart). Every drop seen while powered is published;
    the referee is asked about each pocket once, the question saying it lost data 5 times and
    on which channels."""
    link = tmp_path / "usb-MicroPython_Board_in_FS_mode_e661410401020304-if00"
    config = write_config(tmp_path, broker, [link])
    with VmBoard(tmp_path / "board", link) as board:
        async with Collector(broker) as col, requester(broker) as req:
            with service(config, tmp_path / "service.log"):
                await col.wait(lambda: board_up(col, board.uid), 60)
                await req.send("new_match", {"game": "pyramid", "players": ["Ann", "Bob"],
                                             "transaction": "nm"})
                await col.response("new_match", "nm")
                for n, pocket in enumerate(["fl", "fr", "sl", "sr", "hl"], start=1):
                    for _ in range(2):  # balls still rolling: the shot stays open
                        board.set(CUSHION_H, 1)
                        board.set(CUSHION_H, 0)
                        await asyncio.sleep(ROLL_S)
                    board.drop(pocket)
                    await col.wait(lambda n=n: len(col.events("ball_pocketed")) >= n, 20)
                    gaps = len([w for w in col.events("warning")
                                if w["data"].get("kind") == "data_gap"])
                    board.power_cycle(0.3)
                    await col.wait(lambda gaps=gaps: len(
                        [w for w in col.events("warning")
                         if w["data"].get("kind") == "data_gap"]) > gaps, 20)
                assert not col.events("shot_result")  # all within one shot
                await req.send("shot_end", {"transaction": "end"})
                await col.response("shot_end", "end")
                await req.settle(col)
                asked = [q for q in col.last("state")["questions"] if q["topic"] == "ball_fell"]
    assert len(col.events("ball_pocketed")) == 5
    warned = [w["data"] for w in col.events("warning") if w["data"].get("kind") == "data_gap"]
    assert len(warned) == 5
    channels = sorted(warned[0]["channels"])
    assert sorted(q["about"]["pocket"] for q in asked) == ["fl", "fr", "hl", "hr", "sl", "sr"]
    for q in asked:
        assert q["about"]["gaps"] == 5 and q["about"]["channels"] == channels, q
        assert f"lost data 5 times in this shot ({', '.join(channels)})" in q["prompt"], q
