"""The evening's serial tables: the project's firmware on the MicroPython VM behind a pty relay
(``tests.faults.vmboard.VmBoard``), its pins driven by the simulation's world, read by the
real ``controller run`` on the serial backend.

A serial table's world lives in the evening's own process, not in the table's service: the
board runs on (keeping the edges no host took) while the service is killed and started again,
as a self-powered board does (issue 38). ``BoardSeat.evening()`` is the simulator's evening
played in real time — the board stamps each edge with its own ticks, which the service takes
as they are — with every idle spell cut to ``IDLE_S`` and the whole cut at ``cut_s`` seconds
(the short evening's serial tables play its first shots). ``BoardTable.drive`` plays it: each
level through the stub's drive file (``VmBoard.set``), each request (new match, calls,
answers, declares) sent as the referee's console in a browser does (the ``referee`` user on
the browsers' broker, over the bridge), each line noted in the world log once done (the same
log the sim tables keep: the checker reads both alike).

Board faults (``tests.evening.faults``): ``board-unplug`` (the relay's pty gone for the hold:
the board runs on and keeps what it sees), ``board-reboot`` (off and on again at once: what
it kept is gone, and a new boot) and ``board-brownout`` (off for the hold). The world waits
while its board is off: no ball falls then (a drop the board never saw is no drop the checker
can hold the table to).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path

import aiomqtt

from controller.wire.connection import cancel_and_wait, publish
from tests.deploy.venue import password
from tests.evening.world import Lines, Seat, life
from tests.faults.vmboard import BEAM_PINS, VmBoard

#: The firmware's default map (firmware_bridge/README.md): each channel's GPIO.
PINS: dict[str, int] = {**{f"beam.{p}": pin for p, pin in BEAM_PINS.items()}, "cue": 8,
                        **{f"cushion.{c}": 9 + n for n, c in
                           enumerate(("h", "f", "lh", "lf", "rh", "rf"))}}
#: The longest idle spell a serial table's world keeps (seconds): longer than a shot's quiet
#: window (``FusionConfig.quiet_s``, 2.5 s) and its ruling, so shots end as they do in play.
IDLE_S = 3.5
#: The pause between two matches (seconds).
BETWEEN_S = 2.0


@dataclass(frozen=True, slots=True)
class BoardSeat(Seat):
    """A serial table's evening: ``Seat``'s, in real time, idle spells cut to ``IDLE_S``,
    the whole cut at ``cut_s`` seconds (0: not cut)."""

    cut_s: float = 0.0

    def evening(self) -> list[Lines]:
        out: list[Lines] = []
        total = 0.0
        for match in Seat.evening(self):
            lines: Lines = []
            last = None
            t = 0.0
            for line in match:
                if "t" in line:
                    t += 0.0 if last is None else min(float(line["t"]) - last, IDLE_S)
                    last = float(line["t"])
                    if self.cut_s and total + t > self.cut_s:
                        break
                    line = {**line, "t": round(t, 6)}
                lines.append(line)
            out.append(lines)
            total += t + BETWEEN_S
            if self.cut_s and total > self.cut_s:
                break
        return out


def serial_config(venue: str, seat: Seat, data: Path, port: int, link: Path) -> str:
    """Returns a serial table's configuration file (TOML): its board at ``link``."""
    return f"""venue = "{venue}"
table = "{seat.table}"
backend = "serial"
data = "{data}"
log_level = "warning"

[mqtt]
url = "mqtt://127.0.0.1:{port}"
username = "{venue}/{seat.table}"
password = "{password(f'{venue}/{seat.table}')}"
keepalive = 5
reconnect_min_s = 0.2
reconnect_max_s = 2.0

[serial]
ports = ["{link}"]

[health]
publish_interval_s = 5.0

[web]
enabled = false
"""


class BoardTable:
    """One serial table's board and world: ``start()`` powers the board on; ``drive(...)``
    plays the seat's evening into it; ``unplug``, ``reboot``, ``brownout`` are its faults;
    ``close()`` powers it off."""

    def __init__(self, seat: BoardSeat, folder: Path, log: Path) -> None:
        self.seat = seat
        folder.mkdir(parents=True, exist_ok=True)
        self.link = folder / f"usb-MicroPython_Board_in_FS_mode_{seat.seed:016x}-if00"
        self.uid = f"{seat.seed:016x}"
        self.board = VmBoard(folder / "board", self.link, uid=self.uid)
        self.log = log
        self._power = asyncio.Lock()  # held while the board is off: the world waits

    def start(self) -> None:
        self.board.__enter__()

    def close(self) -> None:
        self.board.__exit__(None, None, None)

    async def drive(self, web_port: int, venue: str) -> None:
        """Plays the evening: each line at its time, noted in the world log once done (a
        request once handed to the console, which sends it through the browsers' broker)."""
        requests: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        console = asyncio.create_task(self._console(web_port, requests),
                                      name=f"console-{self.seat.table}")
        try:
            with self.log.open("a", encoding="utf-8") as out:
                evening = await asyncio.to_thread(self.seat.evening)
                out.write(life(evening, 0, 0))
                for m, lines in enumerate(evening):
                    start = time.monotonic() + BETWEEN_S
                    for i, line in enumerate(lines):
                        if "t" in line:
                            # late (a board off, a loaded host): the rest of the match is
                            # played later, never squeezed (a beam blocked 20 ms stays 20 ms)
                            start = max(start, time.monotonic() - line["t"])
                            await asyncio.sleep(start + line["t"] - time.monotonic())
                        if "ch" in line:
                            async with self._power:
                                await asyncio.to_thread(self.board.set, PINS[line["ch"]],
                                                        int(line["v"]))
                            # the next edge at least its interval after this one was applied
                            start = max(start, time.monotonic() - line["t"])
                        elif "request" in line:
                            requests.put_nowait((
                                f"billiards/{venue}/{self.seat.table}/request/{line['request']}",
                                json.dumps(line["payload"]).encode()))
                        out.write(json.dumps({"m": m, "i": i}) + "\n")
                        out.flush()
            await requests.join()
        finally:
            await cancel_and_wait(console)

    async def _console(self, web_port: int, requests: asyncio.Queue[tuple[str, bytes]]) -> None:
        """The referee's console of this table (a browser's client of the browsers' broker,
        its own client id): sends each request in turn (QoS 1), connecting again after a cut
        and sending again what was not acknowledged, until cancelled."""
        pending: tuple[str, bytes] | None = None
        while True:
            try:
                async with aiomqtt.Client("127.0.0.1", web_port, transport="websockets",
                                          username="referee", password=password("referee"),
                                          identifier=f"evening-world-{self.seat.table}",
                                          timeout=10.0) as client:
                    while True:
                        if pending is None:
                            pending = await requests.get()
                        await publish(client, pending[0], pending[1], qos=1)
                        pending = None
                        requests.task_done()
            except aiomqtt.MqttError:
                await asyncio.sleep(0.5)

    async def unplug(self, hold: float) -> None:
        """The USB cable out for ``hold`` seconds: the board runs on, keeping its edges."""
        await asyncio.to_thread(self.board.cable, False)
        await asyncio.sleep(hold)
        await asyncio.to_thread(self.board.cable, True)

    async def brownout(self, hold: float) -> None:
        """The board off for ``hold`` seconds, then booting again (what it kept is gone)."""
        async with self._power:
            await asyncio.to_thread(self.board.power_cycle, hold)

    async def reboot(self) -> None:
        """The board reset (off and on at once: a new boot, what it kept gone)."""
        await self.brownout(0.05)

