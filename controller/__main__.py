"""``python -m controller``: run, demo, replay, simulate (interfaces §4)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller",
                                     description="Billiards table controller")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="feed a trace through the pipeline and print what it publishes")
    p.add_argument("trace", help="a trace file (JSONL), or - for standard input")
    args = parser.parse_args(argv)
    if args.command == "replay":
        from controller.replay import main as replay_main

        return replay_main(args.trace)
    return 2


if __name__ == "__main__":
    sys.exit(main())
