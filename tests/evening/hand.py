"""The evening's hand-played table: ``python -m tests.evening.hand CONFIG`` runs a table's
service as ``python -m controller run`` does, on sensors that play nothing (the demo's
``--hand`` table: ``controller.sim.demo``): its matches, shots and answers come from its
console alone, which the evening drives in Chromium (``tests.evening.browser``)."""

from __future__ import annotations

import asyncio
import logging
import sys

from controller.service.config import ConfigError, load_controller_config, ready
from controller.service.shell import Service, serve
from controller.sim.backend import SimBackend
from controller.sim.demo import HAND_FUSION


def config_text(base: str) -> str:
    """Returns a table's configuration (TOML) made a hand-played table's: no cushion sensors,
    at real speed."""
    absent = ", ".join(f'"{c}"' for c in HAND_FUSION["absent"])
    return base.replace("speed = ", "speed = 1.0\n# the evening's speed: ", 1) + (
        f"\n[fusion]\nabsent = [{absent}]\n")


def main(argv: list[str]) -> int:
    """``python -m tests.evening.hand CONFIG``."""
    try:
        config = ready(load_controller_config(argv[0]), argv[0])
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    def backend(service: Service) -> SimBackend:
        return SimBackend((), speed=service.core.speed, clock=service.host_clock)

    asyncio.run(serve(config, argv[0], backend))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
