"""``python -m controller.adapters``: run one table's adapters beside the service.

    python -m controller.adapters --broker mqtt://adapters:secret@broker:1883 \\
        --venue club --table t1 --config /etc/billiards-controller/adapters.toml

Reconnects with jittered backoff when the broker goes away; stops on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import re
import signal
import ssl
import sys
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import aiomqtt
from pydantic import ValidationError

from controller.adapters.config import AdaptersConfig, load_config
from controller.adapters.runner import run_adapters

log = logging.getLogger("controller.adapters")
ID = re.compile(r"^[a-z0-9_-]+$")
STOP_WITHIN = 3.0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m controller.adapters",
                                description="Drive displays and Home Assistant from one table's topics.")
    p.add_argument("--broker", default="mqtt://localhost:1883",
                   help="mqtt://[user:pass@]host:port, or mqtts://… for TLS")
    p.add_argument("--venue", required=True, help="venue id ([a-z0-9_-]+)")
    p.add_argument("--table", required=True, help="table id ([a-z0-9_-]+)")
    p.add_argument("--config", required=True, help="the adapters' TOML file")
    p.add_argument("--prefix", default="billiards", help="topic prefix (default billiards)")
    p.add_argument("--cafile", help="CA certificate for mqtts:// (default: the system's)")
    p.add_argument("-v", "--verbose", action="store_true")
    return p


@dataclass(frozen=True, slots=True)
class BrokerUrl:
    host: str
    port: int
    username: str | None
    password: str | None
    tls: bool


def parse_broker(url: str) -> BrokerUrl:
    """Returns the parts of an ``mqtt://`` / ``mqtts://`` URL. Raises ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ValueError(f"broker URL must start with mqtt:// or mqtts://, not {url!r}")
    tls = parts.scheme == "mqtts"
    return BrokerUrl(parts.hostname or "localhost", parts.port or (8883 if tls else 1883),
                     unquote(parts.username) if parts.username else None,
                     unquote(parts.password) if parts.password else None, tls)


def client_for(url: str, cafile: str | None, identifier: str) -> aiomqtt.Client:
    """Returns a client for the broker at ``url`` (inside a running event loop)."""
    b = parse_broker(url)
    tls = ssl.create_default_context(cafile=cafile) if b.tls else None
    return aiomqtt.Client(b.host, b.port, username=b.username, password=b.password,
                          identifier=identifier, tls_context=tls)


async def serve(url: str, cafile: str | None, base: str, config: AdaptersConfig,
                identifier: str) -> None:
    """Runs the adapters, reconnecting after a lost connection, until cancelled."""
    delay = 1.0
    while True:
        try:
            async with client_for(url, cafile, identifier) as client:
                log.info("connected to %s; adapters for %s", url.split("@")[-1], base)
                delay = 1.0
                await run_adapters(client, base, config)
        except aiomqtt.MqttError as exc:
            wait = delay * random.uniform(0.5, 1.5)
            log.warning("broker connection lost (%s); retrying in %.1f s", exc, wait)
            await asyncio.sleep(wait)
            delay = min(delay * 2, 30.0)


async def amain(args: argparse.Namespace, config: AdaptersConfig) -> None:
    base = f"{args.prefix}/{args.venue}/{args.table}"
    task = asyncio.create_task(serve(args.broker, args.cafile, base, config,
                                     f"adapters-{args.venue}-{args.table}"), name="adapters")
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    waiter = asyncio.create_task(stopping.wait(), name="signals")
    await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    task.cancel()
    try:
        async with asyncio.timeout(STOP_WITHIN):  # a graceful disconnect, but not forever
            await task
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
    except (OSError, ValueError, ValidationError) as exc:
        print(f"cannot start: {exc}", file=sys.stderr)
        return 2
    asyncio.run(amain(args, config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
