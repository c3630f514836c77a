"""A sensor board the configuration names that is not connected is a fault from the first
second, named by its port with the reason (issue 28): absent, busy (held by another process),
not permitted, silent in the board protocol (another firmware), another protocol version.
Real ptys, the real link, the real firmware for the board that does answer."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time
import tty
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from controller.service.backends import UNWIRED, Boards, hardware_backend, not_connected
from controller.service.config import validate
from firmware_bridge import protocol as P
from firmware_bridge.sim import SimBoard
from hardware.events import LinkChanged, SensorEvent
from tests.firmware_bridge.test_link import old_board
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]
#: Longer than ``GRACE_S``: a board up by then is never said to be down.
GRACE_WAIT = 1.2


class Seen:
    """Everything a backend yields, with the host time it came."""

    def __init__(self) -> None:
        self.items: list[tuple[float, SensorEvent | LinkChanged]] = []

    def links(self, source: str) -> list[LinkChanged]:
        return [i for _, i in self.items if isinstance(i, LinkChanged) and i.source == source]


@contextlib.asynccontextmanager
async def watching(ports: list[str], **options: object) -> AsyncIterator[tuple[Seen, float]]:
    seen = Seen()
    start = time.monotonic()
    async with Boards(ports, **options) as backend:  # type: ignore[arg-type]
        async def pull() -> None:
            async for item in backend.events():
                seen.items.append((time.monotonic(), item))
        task = asyncio.create_task(pull())
        try:
            yield seen, start
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


@contextlib.contextmanager
def silent_pty() -> Iterator[str]:
    """A pty nobody answers on (a board with other firmware, or a plain serial device)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        yield os.ttyname(slave)
    finally:
        os.close(master)
        os.close(slave)


@contextlib.contextmanager
def held_pty() -> Iterator[str]:
    """A silent pty that another process holds open exclusively (a serial console, mpremote,
    ModemManager), until the block ends."""
    with silent_pty() as port:
        holder = subprocess.Popen(
            [sys.executable, "-c", "import serial, time\n"
             f"s = serial.Serial({port!r}, exclusive=True)\nprint('held', flush=True)\n"
             "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            yield port
        finally:
            holder.kill()
            holder.wait()


async def _first_down(seen: Seen, port: str, timeout: float) -> LinkChanged:
    await until(lambda: seen.links(port), timeout, f"{port} reported down")
    (first, *_) = seen.links(port)
    assert not first.up and first.channels == ()
    return first


async def test_an_absent_board_is_down_within_the_first_second(tmp_path: Path) -> None:
    port = str(tmp_path / "usb-board-not-plugged")
    async with watching([port]) as (seen, start):
        down = await _first_down(seen, port, 1.0)
        assert seen.items[0][0] - start < 1.0
    assert down.reason.startswith(f"absent: no device {port}")


async def test_a_board_not_connected_is_said_in_the_tables_language(tmp_path: Path) -> None:
    # the reason is shown as it is on the table's console: a Russian club's reads Russian
    port = str(tmp_path / "usb-board-not-plugged")
    async with watching([port], language="ru") as (seen, _):
        down = await _first_down(seen, port, 1.0)
    assert down.reason == (f"нет устройства {port} (подключена ли плата? Её имя — в "
                           "/dev/serial/by-id/)")


async def test_a_board_held_by_another_process_is_busy() -> None:
    with held_pty() as port:
        async with watching([port]) as (seen, start):
            down = await _first_down(seen, port, 1.0)
    assert down.reason.startswith(f"busy: another program holds {port}"), down.reason


#: Run without the right to open what its permissions forbid (root's CAP_DAC_OVERRIDE
#: dropped, util-linux's setpriv): prints the first report.
UNPRIVILEGED = """
import asyncio, sys
from controller.service.backends import Boards

async def main():
    async with Boards([sys.argv[1]]) as backend:
        async for item in backend.events():
            print(item.source, item.up, item.reason, sep="|", flush=True)
            return

asyncio.run(main())
"""


async def test_a_board_this_user_may_not_open_is_permission_denied() -> None:
    with silent_pty() as port:
        os.chmod(port, 0)  # nobody may open it
        if os.geteuid() != 0:
            async with watching([port]) as (seen, _):
                reason = (await _first_down(seen, port, 1.0)).reason
        else:  # root may open anything, unless it gives up overriding permissions
            if shutil.which("setpriv") is None:
                pytest.skip("root without util-linux's setpriv opens any device")
            drop = "-dac_override,-dac_read_search"
            run = subprocess.run(["setpriv", "--bounding-set", drop, "--inh-caps", drop,
                                  sys.executable, "-c", UNPRIVILEGED, port],
                                 cwd=ROOT, capture_output=True, text=True, timeout=30)
            source, up, reason = run.stdout.strip().split("|")
            assert (source, up) == (port, "False"), run.stderr
    assert reason.startswith(f"permission denied: this user cannot open {port}"), reason


async def test_a_device_that_does_not_speak_the_board_protocol_is_wrong_firmware() -> None:
    with silent_pty() as port:
        async with watching([port], hello_timeout=0.3) as (seen, _):
            await until(lambda: any("wrong firmware" in d.reason for d in seen.links(port)),
                        3.0, "wrong firmware reported")
            assert len(seen.links(port)) <= 2  # (no answer yet, then why): each said once
            await asyncio.sleep(1.0)  # it keeps failing the same way: not said again
            assert len(seen.links(port)) <= 2


async def test_a_board_of_another_protocol_version_is_wrong_protocol() -> None:
    stop, path = threading.Event(), list[str]()
    thread = threading.Thread(target=old_board, args=(path, stop), daemon=True)
    thread.start()
    try:
        await until(lambda: path, 2.0, "the old board's pty")
        async with watching([path[0]], hello_timeout=0.3) as (seen, _):
            await until(lambda: any("wrong protocol" in d.reason for d in seen.links(path[0])),
                        3.0, "wrong protocol reported")
    finally:
        stop.set()
        thread.join(2)
    (said,) = [d for d in seen.links(path[0]) if "wrong protocol" in d.reason]
    assert "the board speaks protocol 1, this host protocol 2" in said.reason


async def test_a_board_that_answers_is_never_reported_down_and_a_late_one_comes_up(
        tmp_path: Path) -> None:
    with SimBoard() as board:
        async with watching([board.path]) as (seen, _):
            await until(lambda: [i for _, i in seen.items if isinstance(i, LinkChanged)
                                 and i.up], 5.0, "the board up")
            await asyncio.sleep(GRACE_WAIT)
            assert seen.links(board.path) == []  # its own link (by uid) says it is up
            assert [i.up for i in seen.links(board.uid)] == [True]
    with SimBoard(link=tmp_path / "usb-board-by-id") as board:  # a stable name, as by-id's
        board.port.unplug()
        async with watching([board.path]) as (seen, _):
            await _first_down(seen, board.path, 1.0)
            board.port.plug()
            await until(lambda: seen.links(board.path)[-1].up, 5.0, "the port up again")
    assert seen.links(board.path)[-1].reason == f"connected: board {board.uid}"


@pytest.mark.parametrize(("error", "said"), [
    ("/dev/ttyACM0 is absent", "absent: no device /dev/ttyACM0"),
    ("cannot open /dev/ttyACM0: [Errno 13] could not open port /dev/ttyACM0: [Errno 13] "
     "Permission denied: '/dev/ttyACM0'", "permission denied: this user cannot open"),
    ("cannot open /dev/ttyACM0: Could not exclusively lock port /dev/ttyACM0: [Errno 11] "
     "Resource temporarily unavailable", "busy: another program holds /dev/ttyACM0"),
    ("cannot open /dev/ttyACM0: [Errno 16] Device or resource busy", "busy: another program"),
    ("the board speaks protocol 1, this host protocol 2: flash the firmware",
     "wrong protocol on /dev/ttyACM0: the board speaks protocol 1"),
    ("no hello from the board", "wrong firmware on /dev/ttyACM0: no hello from the board"),
    ("", "no board answered on /dev/ttyACM0 yet"),
])
def test_each_reason_is_said_in_plain_words(error: str, said: str) -> None:
    assert not_connected("/dev/ttyACM0", error).startswith(said)


def test_the_service_s_serial_backend_reports_boards_not_connected() -> None:
    config = validate({"backend": "serial", "serial": {"ports": ["/dev/ttyACM0"]}})
    assert isinstance(hardware_backend(config), Boards)


async def test_a_channel_the_game_needs_on_no_board_is_named_once_every_board_is_up() -> None:
    beams_only = tuple((i, f"beam.{p}", P.MODE_DIGITAL, 2 + i, 300, 0, 0)
                       for i, p in enumerate(("hl", "hr", "sl", "sr", "fl", "fr")))
    with SimBoard(channels=beams_only) as board:
        async with watching([board.path], needed=("beam.fl", "cushion.h", "cushion.f")) as (
                seen, _):
            await until(lambda: seen.links(UNWIRED), 5.0, "the unwired channels named")
    (unwired,) = seen.links(UNWIRED)
    assert not unwired.up and unwired.channels == ()  # no channel of it is held: none exists
    assert unwired.reason.startswith("no board carries cushion.h, cushion.f: wire it, or "
                                     "declare it absent")
    with SimBoard() as board:
        async with watching([board.path], needed=("beam.fl", "cushion.h")) as (seen, _):
            await until(lambda: [i for _, i in seen.items if isinstance(i, LinkChanged)
                                 and i.up], 5.0, "the board up")
            await asyncio.sleep(0.3)
    assert seen.links(UNWIRED) == []


async def test_a_board_that_goes_down_is_said_in_the_tables_language_with_its_port(
        tmp_path: Path) -> None:
    # its link's own words (an OSError's, "closed") inside the table's: the console shows it
    with SimBoard(link=tmp_path / "usb-board-by-id") as board:
        async with watching([board.path], language="ru") as (seen, _):
            await until(lambda: [i.up for i in seen.links(board.uid)] == [True], 5.0,
                        "the board up")
            board.port.unplug()
            await until(lambda: len(seen.links(board.uid)) == 2, 5.0, "the board down")
    down = seen.links(board.uid)[1]
    assert not down.up
    assert down.reason.startswith(f"нет связи с платой на {board.path}: "), down.reason
