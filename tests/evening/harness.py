"""The club's evening as a test: a venue built from the deploy files, played under faults.

``Evening(plan).run()`` starts the venue as shipped (``tests.deploy.venue``: the venue broker
on ``deploy/mosquitto/billiards.conf`` with its password file and ACL, the browsers' broker
bridged to it), one table service per ``Seat`` (``tests.evening.world``: the real service on the
``sim`` backend, playing an evening of matches whose world outlives the service), the venue
recorder (``python -m controller record``) on SQLite or PostgreSQL, and an observer on the
tables' ``status`` (as the dashboard user). It applies the fault schedule (``tests.evening.faults``)
while the tables play, waits until every table has played its evening (bounded), stops the
tables, waits until the record holds what they published (bounded), stops everything, and
returns the ``History`` the checker (``tests.evening.checker``) reads. Whatever happens, every
process it started is stopped.

``python -m tests.evening.harness [--seed S] [--short] [--store postgresql]`` (``./dev soak
evening``) runs one evening and prints the schedule, the seed and the checker's report.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.deploy.venue import USERS, Venue, password, start_venue
from tests.evening.boards import BoardSeat, BoardTable, serial_config
from tests.evening.browser import Console, Wall
from tests.evening.clients import ask, flood, observe, undo_while_hung
from tests.evening.defects import ENV as DEFECTS_ENV
from tests.evening.defects import page_defects
from tests.evening.disks import CannotMount, small_disk, unmount_keeping
from tests.evening.faults import AT_A_BOARD, KINDS, SHORT_KINDS, Fault, schedule
from tests.evening.journals import TickKeeper, snapshot_inputs
from tests.evening.procs import Child, environment, unit_policy
from tests.evening.referee import Referee
from tests.evening.world import GAMES, Progress, Seat, jumps, lives, world_log
from tests.smallfs import fill

if TYPE_CHECKING:
    from tests.evening.checker import Report

VENUE = "club"
#: How often the tables' journaled ticks are read (before a new match compacts them away).
TICKS_EVERY_S = 1.0
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


@dataclass(frozen=True)
class Plan:
    """What an evening plays: its tables, their evenings, the speed, the faults, the store."""

    seed: int = 1
    tables: int = 4
    matches: int = 2
    race_to: int = 2
    speed: float = 20.0
    kinds: tuple[str, ...] = SHORT_KINDS
    each: int = 1
    span: float = 20.0
    store: str = "sqlite"
    #: how many tables (the last ones) are on the serial backend, each a board on the
    #: MicroPython VM (``tests.evening.boards``); their evening cut at ``serial_cut_s`` s
    serial: int = 0
    serial_cut_s: float = 0.0
    #: the size of a table's data directory's own filesystem, where its disk is filled
    disk_kb: int = 65536
    #: an evening ends when every table played its evening, or after this many seconds
    bound_s: float = 240.0
    #: how long the record may take to hold every journal, once the tables played
    settle_s: float = 60.0
    #: junk requests in a flood (each answered with an error: a message the record keeps)
    flood_n: int = 300
    #: the seams of the checker's own tests (``tests.evening.defects``): how a table and the
    #: recorder are run (after ``python``), and the defects put back in them
    table_cmd: tuple[str, ...] = ("-m", "tests.evening.world")
    recorder_cmd: tuple[str, ...] = ("-m", "controller")
    defects: str = ""
    #: the TV wall in Chromium at 1080p, sampled every this many seconds (0: no wall)
    wall_every_s: float = 0.0
    #: the game of a table played by hand from its console in Chromium ("": none; needs the
    #: wall's browser): table ``hand_table()``
    hand: str = ""

    def hand_table(self) -> str:
        return f"t{self.tables + 1}"

    def seats(self) -> list[Seat]:
        out = []
        for n in range(1, self.tables + 1):
            game, players = GAMES[(n - 1 + self.seed) % len(GAMES)]
            seat = Seat(f"t{n}", game, players, self.race_to, self.seed * 1000 + n * 10,
                        self.matches)
            if n > self.tables - self.serial:
                seat = BoardSeat(*seat.to_json().values(), cut_s=self.serial_cut_s)
            out.append(seat)
        return out

    def faults(self) -> list[Fault]:
        seats = self.seats()
        return schedule(self.seed, self.kinds, self.each, self.span, [s.table for s in seats],
                        [s.table for s in seats if isinstance(s, BoardSeat)])


@dataclass
class History:
    """What an evening left for the checker: its directory (the tables' data, journals and
    world logs, the store), the faults as applied, and what the observer saw."""

    plan: Plan
    directory: Path
    store_url: str
    faults: list[tuple[float, float, Fault]] = field(default_factory=list)
    statuses: list[tuple[float, str, str]] = field(default_factory=list)  # (t, table, state)
    #: each health a table's status named: (t, table, ok)
    healthy: list[tuple[float, str, bool]] = field(default_factory=list)
    #: each link a table's health named: (t, table, link, up, since: the table's time)
    links: list[tuple[float, str, str, bool, float]] = field(default_factory=list)
    #: what exited by itself and was started again as its unit says: (t, name, exit status)
    restarts: list[tuple[float, str, int]] = field(default_factory=list)
    finished: dict[str, bool] = field(default_factory=dict)
    #: what a console asked a table under a fault, and the answer: (t, table, what, answer)
    consoles: list[tuple[float, str, str, str]] = field(default_factory=list)
    wall_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: the live referee's tablet (``tests.evening.referee``): every question it read
    referee: Referee | None = None
    #: the TV wall's samples (``tests.evening.browser``), when the plan shows one
    wall: Wall | None = None

    def data(self, table: str) -> Path:
        return self.directory / "tables" / table

    def save(self) -> None:
        """Writes what the evening saw to ``history.json`` in its directory."""
        (self.directory / "history.json").write_text(json.dumps({
            "plan": {k: v for k, v in self.plan.__dict__.items()},
            "faults": [(a, b, f.__dict__ if hasattr(f, "__dict__") else str(f))
                       for a, b, f in self.faults],
            "statuses": self.statuses, "restarts": self.restarts, "finished": self.finished,
            "consoles": self.consoles, "links": self.links, "healthy": self.healthy,
            "wall_s": self.wall_s, "notes": self.notes,
            "asked": [a.__dict__ for a in self.referee.asked] if self.referee else [],
            "wall": [s.__dict__ for s in self.wall.samples] if self.wall else []},
            indent=1, default=str))


def table_config(plan: Plan, seat: Seat, data: Path, port: int) -> str:
    """Returns a table's configuration file (TOML): the sim backend at the plan's speed."""
    return f"""venue = "{VENUE}"
table = "{seat.table}"
backend = "sim"
data = "{data}"
log_level = "warning"

[mqtt]
url = "mqtt://127.0.0.1:{port}"
username = "{VENUE}/{seat.table}"
password = "{password(f'{VENUE}/{seat.table}')}"
keepalive = 5
reconnect_min_s = 0.2
reconnect_max_s = 2.0

[sim]
speed = {plan.speed}
game = "{seat.game}"
players = {seat.players}

[health]
publish_interval_s = 5.0

[web]
enabled = false
"""


class Evening:
    """One evening (see the module docstring); ``run()`` returns its ``History``."""

    def __init__(self, plan: Plan, directory: Path) -> None:
        self.plan = plan
        self.directory = directory
        self.seats = plan.seats()
        self.venue: Venue | None = None
        self.tables: dict[str, Child] = {}
        self.recorder: Child | None = None
        self.boards: dict[str, BoardTable] = {}
        self.disks: list[Path] = []  # the small filesystems mounted (tests.evening.disks)
        self.postgres: Any = None
        self.history = History(plan, directory, "")
        self._t0 = time.monotonic()
        self._schedule_t0 = 0.0
        self._ticks: dict[str, TickKeeper] = {}  # each table's journaled ticks, as they come
        self._progress: dict[str, Progress] = {}  # how far each world log went

    def now(self) -> float:
        return time.monotonic() - self._t0

    # ------------------------------------------------------------------ the venue's parts
    def _start_venue(self) -> Venue:
        tables = [s.table for s in self.seats] + ([self.plan.hand_table()] if self.plan.hand else [])
        # each table logs in twice: as itself, and as its referee lane's user (the consoles'
        # requests on B/referee/request/+, controller/service/referee.py)
        users = (*USERS, *(f"{VENUE}/{t}{lane}" for t in tables for lane in ("", "/referee")))
        return start_venue(self.directory / "brokers", users=tuple(dict.fromkeys(users)))

    def _store(self) -> str:
        if self.plan.store == "postgresql":
            from tests.postgres import Postgres
            self.postgres = Postgres()
            self.postgres.start()
            return str(self.postgres.database())
        return f"sqlite:///{self.directory / 'record.sqlite3'}"

    def _children(self, port: int) -> None:
        env = {**environment(), DEFECTS_ENV: self.plan.defects}
        for seat in self.seats:
            data = self.history.data(seat.table)
            data.mkdir(parents=True, exist_ok=True)
            if any(f.kind == "disk-full" and f.target == seat.table for f in self.plan.faults()):
                try:
                    self.disks.append(small_disk(data, self.plan.disk_kb))
                except CannotMount as exc:  # its disk-full faults are not applied, and said so
                    self.history.notes.append(str(exc))
            conf = self.directory / "tables" / f"{seat.table}.toml"
            if isinstance(seat, BoardSeat):
                argv = self._serial_table(seat, conf, data, port)
            else:
                conf.write_text(table_config(self.plan, seat, data, port))
                argv = [sys.executable, *self.plan.table_cmd, str(conf),
                        *map(str, seat.to_json().values())]
            self.tables[seat.table] = Child(seat.table, argv, self.directory / f"{seat.table}.log",
                                            env=env)
            self.tables[seat.table].policy = unit_policy(DEPLOY / "billiards-controller.service")
        if self.plan.hand:
            self._hand_child(port, env)
        # its password in a file only it reads, as the unit's credential: never in argv or a log
        secret = self.directory / "recorder.password"
        secret.touch(mode=0o600)
        secret.write_text(password("recorder") + "\n")
        self.recorder = Child("recorder", [sys.executable, *self.plan.recorder_cmd, "record",
                                           "--broker", f"mqtt://recorder@127.0.0.1:{port}",
                                           "--password-file", str(secret),
                                           "--store", self.history.store_url],
                              self.directory / "recorder.log", cwd=self.directory, env=env)
        self.recorder.policy = unit_policy(DEPLOY / "billiards-recorder.service")

    def _hand_child(self, port: int, env: dict[str, str]) -> None:
        """The table played by hand from its console (``tests.evening.hand``)."""
        from tests.evening.hand import config_text
        table = self.plan.hand_table()
        data = self.history.data(table)
        data.mkdir(parents=True, exist_ok=True)
        conf = self.directory / "tables" / f"{table}.toml"
        seat = Seat(table, self.plan.hand, 2, 2, 0, 0)
        conf.write_text(config_text(table_config(self.plan, seat, data, port)))
        self.tables[table] = Child(table, [sys.executable, "-m", "tests.evening.hand", str(conf)],
                                   self.directory / f"{table}.log", env=env)
        self.tables[table].policy = unit_policy(DEPLOY / "billiards-controller.service")

    def _serial_table(self, seat: BoardSeat, conf: Path, data: Path, port: int) -> list[str]:
        """Makes a serial table's board (powered on) and configuration; returns the argv of
        its service (``controller run``, as the recorder's command runs ``controller``)."""
        board = BoardTable(seat, self.directory / "boards" / seat.table,
                           world_log(data, seat.table))
        board.start()
        self.boards[seat.table] = board
        conf.write_text(serial_config(VENUE, seat, data, port, board.link))
        return [sys.executable, *self.plan.recorder_cmd, "run", "--config", str(conf)]

    def stop_all(self) -> None:
        """Stops every process the evening started (whatever state it is in)."""
        for child in self.tables.values():
            child.stop()
        for board in self.boards.values():
            board.close()
        if self.recorder is not None:
            self.recorder.stop()
        if self.venue is not None:
            for broker in (self.venue.broker, self.venue.web):
                if broker.process is not None:
                    broker.process.send_signal(signal.SIGCONT)
            self.venue.stop()

    def close(self) -> None:
        """Stops the store's PostgreSQL, if the evening started one, and unmounts the tables'
        small disks, their files kept (after the check read them)."""
        while self.disks:
            unmount_keeping(self.disks.pop())
        if self.postgres is not None:
            self.postgres.stop()
            self.postgres = None

    # ------------------------------------------------------------------ the evening
    async def run(self) -> History:
        """Plays the evening; returns its history. Stops everything it started."""
        self._t0 = time.monotonic()
        try:
            self.venue = self._start_venue()
            self.history.store_url = self._store()
            self._children(self.venue.ports[1883])
            assert self.recorder is not None
            self.recorder.start()
            # the recorder runs before the evening begins, as it does all day at a club (a
            # recorder that starts late fills what it missed from the tables' journals: one
            # history_since answer over the broker's size limit, issue 39, fixed elsewhere)
            await self._until(lambda: self._recording(), 60.0, "the recorder to subscribe")
            # the referee knows every table's evening (simulated: seconds a table, in a thread)
            self.history.referee = await asyncio.to_thread(
                Referee, self.venue.ports[9001], VENUE, self.seats, self.history.data, self.now)
            for child in self.tables.values():
                child.start()
            self._show_wall()
            async with self._observing():
                # the schedule's clock starts once every table is online (on a loaded machine
                # a service takes seconds to start: a fault before it would miss the evening)
                await self._until(self._all_online, 60.0, "every table to be online")
                self.history.notes.append(f"every table online at {self.now():.1f} s; "
                                          "the schedule's times count from there")
                self._schedule_t0 = self.now()
                async with self._driving():
                    await self._play()
                self.history.notes.append(f"the tables played their evenings by {self.now():.1f} s")
                await self._boards_heard_back()
                if self.history.wall is not None:
                    await asyncio.to_thread(self.history.wall.stop)
                await self._record_settles()  # the tables answer the recorder's askings
                for child in self.tables.values():
                    child.terminate()
                for table, child in self.tables.items():
                    child.stop()
                    snapshot_inputs(self.history.data(table), child.starts)
                await self._record_settles()  # their last words (status "stopped")
        finally:
            if self.history.wall is not None:
                await asyncio.to_thread(self.history.wall.stop)
            self.stop_all()
            self.history.wall_s = self.now()
            self.history.save()
        return self.history

    def _show_wall(self) -> None:
        """Starts the TV wall's sampler, if the plan shows one (``tests.evening.browser``)."""
        if self.plan.wall_every_s > 0 and self.venue is not None:
            console = (Console(self.plan.hand_table(), self.plan.hand,
                               page_defects(self.plan.defects, "console"))
                       if self.plan.hand else None)
            self.history.wall = Wall(self.venue.ports[9001], VENUE, list(self.tables), self.now,
                                     self.plan.wall_every_s,
                                     page_defects(self.plan.defects, "wall"),
                                     console, self.directory)
            self.history.wall.start()

    async def _play(self) -> None:
        for fault in self.plan.faults():
            await asyncio.sleep(max(0.0, self._schedule_t0 + fault.at - self.now()))  # its time
            start = self.now()
            await self._apply(fault)
            self.history.faults.append((start, self.now(), fault))
        await self._until(self.all_finished, self.plan.bound_s - self.now(),
                          "every table to play its evening")

    def _all_online(self) -> bool:
        online = {table for _, table, state in self.history.statuses if state == "online"}
        return online >= set(self.tables)

    def _recording(self) -> bool:
        assert self.recorder is not None
        return self.recorder.log.exists() and b"recording billiards/#" in self.recorder.log.read_bytes()

    def all_finished(self) -> bool:
        """Whether every table's world played the last line of its evening's last match, as
        its world log says (a serial table's evening, cut at ``serial_cut_s``, has fewer
        matches than ``seat.matches``)."""
        for seat in self.seats:
            if seat.table not in self._progress:
                self._progress[seat.table] = Progress(
                    world_log(self.history.data(seat.table), seat.table))
            progress = self._progress[seat.table]
            progress.look()
            self.history.finished[seat.table] = progress.finished()
        return all(self.history.finished.values())

    async def _boards_heard_back(self) -> None:
        """Waits, up to the checker's limit, until every board a fault took away shows up again
        in its table's health: an evening ending sooner would leave the limit unobserved, and
        the checker would call it broken (a brown-out near the end of a short evening did)."""
        from tests.evening.checker import BOARD_UP_WITHIN_S
        for _, end, fault in list(self.history.faults):
            if fault.kind not in AT_A_BOARD:
                continue
            deadline = end + BOARD_UP_WITHIN_S
            while self.now() < deadline and not any(
                    t >= end and up for t, table, _, up, _ in self.history.links
                    if table == fault.target):
                await asyncio.sleep(0.2)

    async def _until(self, check: Callable[[], bool], timeout: float, what: str) -> bool:
        """Waits for ``check()`` (looked at every 0.2 s) up to ``timeout`` s; notes a miss."""
        deadline = time.monotonic() + max(0.0, timeout)
        while not check():
            if time.monotonic() > deadline:
                self.history.notes.append(f"timed out waiting for {what}")
                return False
            await asyncio.sleep(0.2)
        return True

    async def _apply(self, fault: Fault) -> None:
        assert self.venue is not None and self.recorder is not None
        broker = self.venue.broker
        if fault.kind == "table-kill":
            child = self.tables[fault.target]
            child.kill()
            snapshot_inputs(self.history.data(fault.target), child.starts)
            await asyncio.sleep(fault.hold)
            child.start()
        elif fault.kind == "broker-kill":
            broker.kill()
            await asyncio.sleep(fault.hold)
            broker.start()
        elif fault.kind == "broker-pause":
            assert broker.process is not None
            broker.process.send_signal(signal.SIGSTOP)
            await asyncio.sleep(fault.hold)
            broker.process.send_signal(signal.SIGCONT)
        elif fault.kind == "undo-hung":
            await self._undo_hung(fault)
        elif fault.kind == "bridge-cut":
            self.venue.web.stop()
            await asyncio.sleep(fault.hold)
            self.venue.web.start()
        elif fault.kind == "recorder-kill":
            self.recorder.kill()
            await asyncio.sleep(fault.hold)
            self.recorder.start()
        elif fault.kind == "store-restart":
            if self.postgres is None:
                self.history.notes.append(f"nothing to restart on SQLite: {fault}")
                return
            await asyncio.to_thread(self.postgres.crash)
            await asyncio.sleep(fault.hold)
            await asyncio.to_thread(self.postgres.resume)
        elif fault.kind in AT_A_BOARD:
            await self._board_fault(fault)
        elif fault.kind == "disk-full":
            data = self.history.data(fault.target)
            if data not in self.disks:  # never the evening's own disk
                self.history.notes.append(f"no small disk to fill: {fault}")
                return
            filler = fill(data)
            await asyncio.sleep(fault.hold)
            filler.unlink()
        elif fault.kind == "clock-jump":
            await self._clock_jump(fault)
        elif fault.kind == "flood":
            await flood(self.venue.ports[1883], VENUE, fault.target, self.plan.flood_n)
        else:
            raise ValueError(f"unknown fault kind {fault.kind!r}: {', '.join(KINDS)}")

    async def _undo_hung(self, fault: Fault) -> None:
        assert self.venue is not None and self.venue.broker.process is not None
        wall = self.history.wall
        if wall is not None and wall.console is not None and not wall.console.undos:
            await self._console_undo_hung(wall, wall.console, fault)  # the console's own
            return
        problem = await undo_while_hung(self.venue.ports[1883], self.venue.broker.process,
                                        fault.target, fault.hold, f"evening-undo-{self.now():.3f}")
        if problem:
            self.history.notes.append(f"{fault}: the undo's publish: {problem}")

    async def _console_undo_hung(self, wall: Wall, console: Console, fault: Fault) -> None:
        """The undo-hung fault made the hand-played table's console's: its Undo sent from
        Chromium while the venue broker hangs."""
        broker = self.venue.broker.process if self.venue is not None else None
        assert broker is not None

        def hang() -> None:
            broker.send_signal(signal.SIGSTOP)

        def resume() -> None:
            broker.send_signal(signal.SIGCONT)

        try:
            await asyncio.to_thread(wall.run_in_browser,
                                    lambda: console.undo_hung(hang, resume, fault.hold))
        except Exception as exc:  # noqa: BLE001 - said in the report
            self.history.notes.append(f"{fault}: the console's undo: {exc}")
        finally:
            broker.send_signal(signal.SIGCONT)
        self.history.notes.append(f"{fault}: sent from the console of "
                                  f"{self.plan.hand_table()} instead")

    async def _board_fault(self, fault: Fault) -> None:
        board = self.boards[fault.target]
        if fault.kind == "board-unplug":
            await board.unplug(fault.hold)
        elif fault.kind == "board-brownout":
            await board.brownout(fault.hold)
        else:
            await board.reboot()

    @contextlib.asynccontextmanager
    async def _driving(self) -> AsyncIterator[None]:
        """The serial tables' worlds play while the block runs (a world that fails is noted)."""
        assert self.venue is not None
        port = self.venue.ports[9001]  # the browsers' broker (websockets)
        tasks = [asyncio.create_task(b.drive(port, VENUE), name=f"world-{t}")
                 for t, b in self.boards.items()]
        try:
            yield
        finally:
            for task in tasks:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    # noted as a miss: the checker's "played" counts it
                    self.history.notes.append(f"timed out: {task.get_name()} failed: "
                                              f"{task.exception()!r}")
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=15.0)

    async def _clock_jump(self, fault: Fault) -> None:
        """Jumps ``fault.target``'s wall clock an hour ahead, asks it as a console does once
        the jump is taken (the answer in ``History.consoles``), and brings it back after the
        hold."""
        assert self.venue is not None
        start = self.now()
        child = self.tables[fault.target]
        log = world_log(self.history.data(fault.target), fault.target)
        await self._until(lambda: lives(log) >= child.starts, 60.0,
                          f"{fault.target}'s service to take its world's lines")
        before = jumps(log)
        child.signal(signal.SIGUSR1)
        if await self._until(lambda: jumps(log) > before, 20.0, f"{fault.target}'s clock to jump"):
            answer = await ask(self.venue.ports[1883], VENUE, fault.target,
                               f"evening-get-{start:.3f}")
            self.history.consoles.append((self.now(), fault.target,
                                          "a get while its wall clock was an hour ahead", answer))
        await asyncio.sleep(max(0.0, start + fault.hold - self.now()))
        child.signal(signal.SIGUSR2)

    async def _record_settles(self) -> None:
        from tests.evening.checker import record_holds_journals
        await self._until(lambda: record_holds_journals(self.history), self.plan.settle_s,
                          "the record to hold every table's journal")

    # ------------------------------------------------------------------ the observer
    @contextlib.asynccontextmanager
    async def _observing(self) -> AsyncIterator[None]:
        assert self.history.referee is not None
        tasks = [asyncio.create_task(self._observe(), name="observer"),
                 asyncio.create_task(self._supervise(), name="systemd"),
                 asyncio.create_task(self.history.referee.run(), name="referee"),
                 asyncio.create_task(self._keep_ticks(), name="ticks")]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            for keeper in self._ticks.values():
                keeper.look()
                keeper.save()

    async def _keep_ticks(self) -> None:
        """Keeps each table's journaled ticks before a new match compacts them away (the
        checker's replay runs the clock where the table ran it: ``journals.TickKeeper``)."""
        for table in self.tables:
            self._ticks.setdefault(table, TickKeeper(self.history.data(table)))
        while True:
            await asyncio.sleep(TICKS_EVERY_S)
            for keeper in self._ticks.values():
                await asyncio.to_thread(keeper.look)

    async def _supervise(self) -> None:
        """Starts again what exits by itself, as its shipped unit's policy says (systemd)."""
        while True:
            for child in [*self.tables.values(), *filter(None, [self.recorder])]:
                if child.supervise(time.monotonic()):
                    self.history.restarts.append((self.now(), child.name, child.exits[-1]))
            await asyncio.sleep(0.2)

    async def _observe(self) -> None:
        assert self.venue is not None
        h = self.history
        await observe(self.venue.ports[1883], VENUE,
                      lambda table, state: h.statuses.append((self.now(), table, state)),
                      lambda table, ok: h.healthy.append((self.now(), table, ok)),
                      lambda table, link, up, since: h.links.append(
                          (self.now(), table, link, up, since)))


def play(plan: Plan, directory: Path) -> Report:
    """Plays an evening in ``directory`` and returns the checker's report on it."""
    from tests.evening.checker import check

    evening = Evening(plan, directory)
    try:
        return check(asyncio.run(evening.run()))
    finally:
        evening.close()


def short_plan(seed: int) -> Plan:
    """The short evening ``./dev test`` plays: 4 tables (2 serial, their boards on the
    MicroPython VM, 30 s of play in real time), a race to 2 each, every kind of
    ``SHORT_KINDS`` once."""
    # a flood of 300 (the full evening's): its gap filled in pages of history_since answers
    return Plan(seed=seed, tables=4, matches=1, race_to=2, speed=10.0, each=1, span=15.0,
                bound_s=150.0, settle_s=40.0, serial=2, serial_cut_s=30.0, wall_every_s=2.0,
                hand="ten-ball")


def full_plan(seed: int) -> Plan:
    """The full evening (``--soak``): 12 tables, the twelfth played by hand from its console,
    the other 11 each over two simulated hours (races to 3) at 10x, but for the 2 serial ones
    (15 minutes of play in real time: played late, never squeezed), every kind 5 times.
    Twelve is what a 1080p wall shows on one screen at legible letters (``wall.js``): a
    thirteenth table turns the wall's pages, and the wall's invariant wants one screen."""
    return Plan(seed=seed, tables=11, matches=16, race_to=3, speed=10.0, each=5, span=600.0,
                kinds=tuple(KINDS), bound_s=2400.0, serial=2, serial_cut_s=900.0,
                wall_every_s=5.0, hand="siberian-ten")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev soak evening", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000)
    parser.add_argument("--short", action="store_true", help="the short evening (./dev test's)")
    parser.add_argument("--store", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--tables", type=int, help="how many tables (default: the size's)")
    parser.add_argument("--matches", type=int, help="matches a table plays (default: the size's)")
    parser.add_argument("--serial", type=int, help="how many tables (the last) are serial, "
                                                  "a board on the MicroPython VM each")
    parser.add_argument("--each", type=int, help="faults of each kind (default: the size's)")
    parser.add_argument("--span", type=float, help="seconds the faults are drawn over")
    parser.add_argument("--kinds", help="the fault kinds, comma-separated (default: the size's; "
                                        f"all: {','.join(KINDS)})")
    parser.add_argument("--wall", type=float, dest="wall_every_s",
                        help="sample the TV wall every this many seconds (0: no wall; default: "
                             "the size's)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the evening's directory (a failing one is always kept)")
    args = parser.parse_args(argv)
    plan = short_plan(args.seed) if args.short else full_plan(args.seed)
    given = {"tables": args.tables, "matches": args.matches, "each": args.each, "span": args.span,
             "serial": args.serial,
             "kinds": tuple(args.kinds.split(",")) if args.kinds else None,
             "wall_every_s": args.wall_every_s}
    plan = replace(plan, store=args.store, **{k: v for k, v in given.items() if v is not None})
    print(f"evening: seed {plan.seed}, {plan.tables} tables, {plan.matches} matches each "
          f"(race to {plan.race_to}) at {plan.speed:g}x, store {plan.store}")
    for seat in plan.seats():
        print(f"  {seat.table}: {seat.game}, {seat.players} players, seed {seat.seed}"
              + (", serial (a board on the MicroPython VM)" if isinstance(seat, BoardSeat)
                 else ""))
    if plan.hand:
        print(f"  {plan.hand_table()}: {plan.hand}, played by hand from its console in Chromium")
    print(f"faults (replay: --seed {plan.seed}{' --short' if args.short else ''}):")
    for fault in plan.faults():
        print(f"  {fault}")
    directory = Path(tempfile.mkdtemp(prefix="billiards-evening-"))
    try:
        report = play(plan, directory)
        print(report.text())
        args.keep = args.keep or not report.ok  # a failing evening is kept for a look
        return 0 if report.ok else 1
    finally:
        if args.keep:
            print(f"kept: {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
