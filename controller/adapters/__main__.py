"""``python -m controller.adapters``: run one table's adapters beside the service.

    python -m controller.adapters --broker mqtt://adapters-t1@broker:1883 \\
        --password-file /etc/billiards-controller/adapters.password \\
        --venue club --table t1 --config /etc/billiards-controller/adapters.toml

The password comes from a file (``--password-file``) or the systemd credential
``mqtt-password``, never from the command line (any user can read a process's arguments).

Reconnects with jittered backoff when the broker goes away; stops on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import signal
import sys

from pydantic import ValidationError

from controller.adapters.config import AdaptersConfig, load_config
from controller.adapters.runner import serve
from controller.wire.connection import cancel_and_wait, parse_broker, read_password

log = logging.getLogger("controller.adapters")
ID = re.compile(r"^[a-z0-9_-]+$")
STOP_WITHIN = 3.0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m controller.adapters",
                                description="Drive displays and Home Assistant from one table's topics.")
    p.add_argument("--broker", default="mqtt://localhost:1883",
                   help="mqtt://[user@]host:port, or mqtts://… for TLS (a password here is "
                        "visible to every user of the machine: use --password-file)")
    p.add_argument("--password-file", help="the broker password's file (default: the systemd "
                   "credential mqtt-password, if the unit loads one)")
    p.add_argument("--venue", required=True, help="venue id ([a-z0-9_-]+)")
    p.add_argument("--table", required=True, help="table id ([a-z0-9_-]+)")
    p.add_argument("--config", required=True, help="the adapters' TOML file")
    p.add_argument("--prefix", default="billiards", help="topic prefix (default billiards)")
    p.add_argument("--cafile", help="CA certificate for mqtts:// (default: the system's)")
    p.add_argument("-v", "--verbose", action="store_true")
    return p


async def amain(args: argparse.Namespace, config: AdaptersConfig, password: str | None) -> None:
    base = f"{args.prefix}/{args.venue}/{args.table}"
    task = asyncio.create_task(serve(args.broker, args.cafile, base, config,
                                     f"adapters-{args.venue}-{args.table}", password=password),
                               name="adapters")
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    waiter = asyncio.create_task(stopping.wait(), name="signals")
    await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    try:
        async with asyncio.timeout(STOP_WITHIN):  # a graceful disconnect, but not forever
            await cancel_and_wait(task)
    except (asyncio.CancelledError, TimeoutError):
        pass
    log.info("stopped")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    for what in ("venue", "table"):
        if not ID.match(getattr(args, what)):
            print(f"--{what} must match [a-z0-9_-]+", file=sys.stderr)
            return 2
    try:
        config = load_config(args.config)
        parse_broker(args.broker)
        password = read_password(args.password_file)
    except (OSError, ValueError, ValidationError) as exc:
        print(f"cannot start: {exc}", file=sys.stderr)
        return 2
    asyncio.run(amain(args, config, password))
    return 0


if __name__ == "__main__":
    sys.exit(main())
