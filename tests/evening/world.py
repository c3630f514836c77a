"""The evening's world: what a table's players and referee do, played into a real table service.

A table's evening is a list of matches the simulator plays (``controller.sim.simulator``:
its game, 2–4 players, a race of several racks, a new seed each match), the same for a
given ``Seat`` whenever it is made. ``python -m tests.evening.world CONFIG`` runs one table's
service as ``python -m controller run`` does (``serve``), on the ``sim`` backend playing that
evening — and the world outlives the service: each line the service has taken is written to
the table's *world log* (``<data>/../<table>.world.jsonl``) before the next is handed over,
and a service started again (after ``kill -9``) goes on with the line after the last one
logged, the match the journal holds going on where it stood. The log is the truth the
checker holds the table to (``tests.evening.checker``): every drop the world played. The
simulator's referee answers nothing: at each of its answers the world pauses until the live
referee (``tests.evening.referee``) answered every open question over the broker.

The service's wall clock is the host's, but jumps ``JUMP_S`` ahead on SIGUSR1 and back on
SIGUSR2 (the evening's ``clock-jump``: a Pi whose clock NTP set late), each jump noted in the
world log (``{"wall": offset}``) once the service's clock has it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

from controller.service.config import Config, ConfigError, load_controller_config, ready
from controller.service.shell import Service
from controller.sim.backend import SimBackend
from tests.evening.referee import is_pause, simulated, wait_answered

Lines = list[dict[str, Any]]
#: What the world awaits after handing over a pause, before it goes on; returns how long it
#: waited (the match's seconds: the rest of the match is played that much later).
Gate = Callable[[dict[str, Any]], Awaitable[float]]

#: How far a table's wall clock jumps ahead on SIGUSR1 (seconds): an hour.
JUMP_S = 3600.0

#: The games an evening's tables play, in turn, and how many players each seats.
GAMES: tuple[tuple[str, int], ...] = (("ten-ball", 2), ("siberian-ten", 2), ("pyramid", 3),
                                      ("pyramid", 4), ("ten-ball", 2), ("pyramid", 2))


@dataclass(frozen=True, slots=True)
class Seat:
    """One table's evening: ``matches`` matches of ``game`` for ``players``, races to
    ``race_to`` racks, the first seeded ``seed`` (the next ``seed + 1``, ...)."""

    table: str
    game: str
    players: int
    race_to: int
    seed: int
    matches: int

    def evening(self) -> list[Lines]:
        """Returns the evening's matches, each a trace (header first), the referee's answers
        turned into pauses for the live referee (``tests.evening.referee``)."""
        return [lines for lines, _ in simulated(self)]

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "game": self.game, "players": self.players,
                "race_to": self.race_to, "seed": self.seed, "matches": self.matches}


def world_log(data: Path, table: str) -> Path:
    """Returns the path of ``table``'s world log, beside its data directory ``data``."""
    return data.parent / f"{table}.world.jsonl"


def played(log: Path) -> list[tuple[int, int]]:
    """Returns the (match, line) of every line the world log says a service took, in order."""
    if not log.exists():
        return []
    out = []
    for text in log.read_text().splitlines():
        try:
            item = json.loads(text)
        except json.JSONDecodeError:  # a line cut by kill -9
            continue
        if "m" in item:
            out.append((int(item["m"]), int(item["i"])))
    return out


def life(evening: list[Lines], m0: int, i0: int) -> str:
    """Returns the world log's line that a life of the world begins: where it goes on from,
    and the evening's shape (its matches' lengths: what ``Progress`` finishes at)."""
    return json.dumps({"life": True, "from": [m0, i0], "lengths": [len(m) for m in evening]}) + "\n"


class Progress:
    """How far a table's world log says the evening went, read as it grows (only the lines
    added since the last look are parsed: the whole logs of a venue, read every 0.2 s, took
    the harness's event loop whole)."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.last: tuple[int, int] | None = None  # the last (match, line) a service took
        self.lengths: list[int] | None = None  # the evening's shape, from its first life
        self._offset = 0

    def look(self) -> None:
        """Reads the lines added since the last look (a line cut by kill -9 is skipped)."""
        if not self.log.exists():
            return
        with self.log.open("rb") as f:
            f.seek(self._offset)
            data = f.read()
        end = data.rfind(b"\n") + 1  # complete lines only: the rest is read when whole
        self._offset += end
        for text in data[:end].splitlines():
            try:
                item = json.loads(text)
            except json.JSONDecodeError:
                continue
            if "m" in item:
                self.last = (int(item["m"]), int(item["i"]))
            elif "lengths" in item and self.lengths is None:
                self.lengths = [int(n) for n in item["lengths"]]

    def finished(self) -> bool:
        """Whether the service took the last line of the evening's last match."""
        if self.lengths is None or self.last is None:
            return False
        return self.last == (len(self.lengths) - 1, self.lengths[-1] - 1)


def resume(evening: list[Lines], log: Path) -> tuple[int, int]:
    """Returns where the world goes on: the (match, line) after the last one logged."""
    done = played(log)
    if not done:
        return 0, 0
    m, i = done[-1]
    return (m, i + 1) if i + 1 < len(evening[m]) else (m + 1, 0)


async def _lines(m: int, lines: Lines, first: int, out: IO[str],
                 gate: Gate | None = None) -> AsyncIterator[dict[str, Any]]:
    shift = 0.0  # the match's seconds the players waited for the referee so far
    for i in range(first, len(lines)):
        yield {**lines[i], "t": lines[i]["t"] + shift} if shift and "t" in lines[i] else lines[i]
        if gate is not None and is_pause(lines[i]):
            shift += await gate(lines[i])  # the players wait for the live referee
        # the backend asks for the next line once the service took this one
        out.write(json.dumps({"m": m, "i": i}) + "\n")
        out.flush()


def matches_from(evening: list[Lines], log: Path, out: IO[str],
                 gate: Gate | None = None) -> Iterator[AsyncIterator[Any]]:
    """Yields the rest of the evening, match by match, logging each line the service takes
    (a pause once ``gate`` let the world go on)."""
    m0, i0 = resume(evening, log)
    out.write(life(evening, m0, i0))
    out.flush()
    for m in range(m0, len(evening)):
        yield _lines(m, evening[m], i0 if m == m0 else 0, out, gate)


class Wall:
    """A table's wall clock: the host's, ``offset`` seconds ahead (0 until it jumps)."""

    def __init__(self, log: IO[str]) -> None:
        self.offset = 0.0
        self._log = log

    def __call__(self) -> float:
        return time.time() + self.offset

    def jump(self, offset: float) -> None:
        """Moves the clock to ``offset`` seconds ahead of the host's; notes it in the log."""
        self.offset = offset
        self._log.write(json.dumps({"wall": offset}) + "\n")
        self._log.flush()


def seat_of(argv: list[str]) -> Seat:
    table, game, players, race_to, seed, matches = argv
    return Seat(table, game, int(players), int(race_to), int(seed), int(matches))


async def _serve(config: Any, backend: Any, wall: Wall) -> None:
    """Runs the service as ``controller.service.shell.serve`` does (no web pages: the
    evening's tables have none), on the jumping wall clock ``wall``."""
    service = Service(config, backend=backend, wall=wall)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, service.stop)
    await service.run()


def configured(path: str) -> Config | None:
    """Returns a table's configuration, its logging set up as ``controller run`` does it
    (None, said on standard error, when the file is wrong)."""
    try:
        config = ready(load_controller_config(path), path)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return config


def main(argv: list[str]) -> int:
    """``python -m tests.evening.world CONFIG TABLE GAME PLAYERS RACE_TO SEED MATCHES``."""
    config = configured(argv[0])
    if config is None:
        return 2
    seat = seat_of(argv[1:])
    log = world_log(config.data, config.table)
    evening = seat.evening()
    with log.open("a", encoding="utf-8") as out:
        wall = Wall(out)
        # from the start (SIGUSR1's default ends the process): the harness jumps a table's
        # clock once its world's life began (``lives``), when these are long in place
        signal.signal(signal.SIGUSR1, lambda *_: wall.jump(JUMP_S))
        signal.signal(signal.SIGUSR2, lambda *_: wall.jump(0.0))

        def backend(service: Service) -> SimBackend:
            handed: dict[str, float] = {}  # when the last request was handed over

            def request(name: str, payload: dict[str, Any], t: float) -> None:
                handed["at"] = t
                service.request(name, payload, t)

            gate = partial(wait_answered, service, handed)
            return SimBackend(matches_from(evening, log, out, gate), speed=service.core.time.speed,
                              on_request=request, pause=2.0, clock=service.host_clock)
        asyncio.run(_serve(config, backend, wall))
    return 0


def jumps(log: Path) -> int:
    """Returns how many times the world log says the table's wall clock moved."""
    return log.read_text().count('{"wall": ') if log.exists() else 0


def lives(log: Path) -> int:
    """Returns how many times a service began taking the world's lines (its backend ran)."""
    return log.read_text().count('{"life": true') if log.exists() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
