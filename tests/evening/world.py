"""The evening's world: what a table's players and referee do, played into a real table service.

A table's evening is a list of matches the simulator plays (``controller.sim.simulator``:
its game, 2–4 players, a race of several racks, a new seed each match), the same for a
given ``Seat`` whenever it is made. ``python -m tests.evening.world CONFIG`` runs one table's
service as ``python -m controller run`` does (``serve``), on the ``sim`` backend playing that
evening — and the world outlives the service: each line the service has taken is written to
the table's *world log* (``<data>/../<table>.world.jsonl``) before the next is handed over,
and a service started again (after ``kill -9``) goes on with the line after the last one
logged, the match the journal holds going on where it stood. The log is the truth the
checker holds the table to (``tests.evening.checker``): every drop the world played.

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
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from controller.service.config import ConfigError, load_controller_config, ready
from controller.service.shell import Service
from controller.sim.backend import SimBackend, regulars
from controller.sim.simulator import simulate_lines

Lines = list[dict[str, Any]]

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
        """Returns the evening's matches, each a trace (header first)."""
        return [regulars(simulate_lines(self.game, 400, self.seed + n, False, self.players,
                                        race_to=self.race_to))
                for n in range(self.matches)]

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


def resume(evening: list[Lines], log: Path) -> tuple[int, int]:
    """Returns where the world goes on: the (match, line) after the last one logged."""
    done = played(log)
    if not done:
        return 0, 0
    m, i = done[-1]
    return (m, i + 1) if i + 1 < len(evening[m]) else (m + 1, 0)


async def _lines(m: int, lines: Lines, first: int, out: IO[str]) -> AsyncIterator[dict[str, Any]]:
    for i in range(first, len(lines)):
        yield lines[i]
        # the backend asks for the next line once the service took this one
        out.write(json.dumps({"m": m, "i": i}) + "\n")
        out.flush()


def matches_from(evening: list[Lines], log: Path, out: IO[str]) -> Iterator[AsyncIterator[Any]]:
    """Yields the rest of the evening, match by match, logging each line the service takes."""
    m0, i0 = resume(evening, log)
    out.write(json.dumps({"life": True, "from": [m0, i0]}) + "\n")
    out.flush()
    for m in range(m0, len(evening)):
        yield _lines(m, evening[m], i0 if m == m0 else 0, out)


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


def main(argv: list[str]) -> int:
    """``python -m tests.evening.world CONFIG TABLE GAME PLAYERS RACE_TO SEED MATCHES``."""
    try:
        config = ready(load_controller_config(argv[0]), argv[0])
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
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
            return SimBackend(matches_from(evening, log, out), speed=service.core.speed,
                              on_request=lambda name, payload, t: service.request(name, payload, t),
                              pause=2.0, clock=service.host_clock)
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
