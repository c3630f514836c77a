"""``python -m controller``: run, check, demo, replay, simulate (interfaces §4), commission, record.

Each command lives in its own module; this file only parses the command line.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from controller.words.catalogue import languages
from rules import GAMES

LANGUAGES = languages()

COMMANDS = {
    "run": ("controller.run", "run_main"),
    "check": ("controller.service.check", "check_main"),
    "demo": ("controller.sim.demo", "main"),
    "replay": ("controller.pipeline.replay", "cli"),
    "simulate": ("controller.sim.simulator", "cli"),
    "commission": ("controller.commission", "cli"),
    "record": ("controller.record.cli", "main"),
}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m controller",
                                description="Billiards table controller: referee, sensors, MQTT.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="the table service: sensors, referee, MQTT, journal")
    run.add_argument("--config", help="the TOML configuration file")
    run.add_argument("--broker", help="mqtt://[user:pass@]host:port, or mqtts://… for TLS")
    run.add_argument("--venue", help="venue id ([a-z0-9_-]+)")
    run.add_argument("--table", help="table id ([a-z0-9_-]+)")
    run.add_argument("--backend", choices=["sim", "gpio", "serial"], help="sensor backend")
    run.add_argument("--data", help="directory for the journal and recorded traces")

    check = sub.add_parser("check", help="is the table ready? reads the configuration, probes its "
                                         "boards and broker, changes nothing; non-zero on a problem")
    check.add_argument("--config", help="the TOML configuration file")

    demo = sub.add_parser("demo", help="a simulated table and a broker, no hardware, no set-up")
    demo.add_argument("--broker", help="use this broker instead of starting one")
    demo.add_argument("--tables", type=int, default=None,
                      help="how many simulated tables (default 2; a tournament's 4)")
    demo.add_argument("--speed", type=float, default=1.0, help="play faster than real time")
    demo.add_argument("--seconds", type=float, default=None, help="stop after this long")
    demo.add_argument("--game", choices=sorted(GAMES), default=None)
    demo.add_argument("--language", choices=LANGUAGES, default=None,
                      help="the tables' language (questions, displays) and the pages' default "
                           "(default: English tables, each browser's own language)")
    demo.add_argument("--tournament", type=int, default=None, metavar="PLAYERS",
                      help="play a double elimination of this many players on the tables, each "
                           "match started from the bracket, each result taken from its table")
    demo.add_argument("--hand", metavar="TABLE", action="append", default=[],
                      help="leave this table (e.g. t2) to a person at its console: it plays nothing "
                           "by itself (again for more tables)")

    rep = sub.add_parser("replay", help="feed a trace through the pipeline, print what it publishes")
    rep.add_argument("trace", help="a trace file (JSONL), or - for standard input")

    sim = sub.add_parser("simulate", help="write the trace of a simulated match to standard output")
    sim.add_argument("--game", required=True, choices=sorted(GAMES))
    sim.add_argument("--shots", type=int, required=True, help="how many shots to play (at most)")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--noise", action="store_true", help="glitches, crosstalk, rattles, stuck sensors")
    sim.add_argument("--players", type=int, default=2, help="players (pyramid: 2–4)")
    sim.add_argument("--physics", action="store_true",
                     help="one rack played by the pooltool physics (./dev physics-install)")

    from controller.commission import add_parser as commission_parser
    commission_parser(sub)
    from controller.record import add_parser as record_parser
    record_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    module, func = COMMANDS[args.command]
    handler = getattr(importlib.import_module(module), func)
    code: int = handler(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
