"""The evening's hand-played table: ``python -m tests.evening.hand CONFIG`` runs a table's
service as ``python -m controller run`` does, on sensors that play nothing (the demo's
``--hand`` table: ``controller.sim.demo``): its matches, shots and answers come from its
console alone, which the evening drives in Chromium (``tests.evening.browser``)."""

from __future__ import annotations

import asyncio
import sys

from controller.service.shell import Service, serve
from controller.sim.backend import SimBackend
from controller.sim.demo import HAND_FUSION
from tests.evening.world import configured


def config_text(base: str) -> str:
    """Returns a table's configuration (TOML) made a hand-played table's: no cushion sensors,
    at real speed."""
    absent = ", ".join(f'"{c}"' for c in HAND_FUSION["absent"])
    return base.replace("speed = ", "speed = 1.0\n# the evening's speed: ", 1) + (
        f"\n[fusion]\nabsent = [{absent}]\n")


def main(argv: list[str]) -> int:
    """``python -m tests.evening.hand CONFIG``."""
    config = configured(argv[0])
    if config is None:
        return 2

    def backend(service: Service) -> SimBackend:
        return SimBackend((), speed=service.core.time.speed, clock=service.host_clock)

    asyncio.run(serve(config, argv[0], backend))
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
