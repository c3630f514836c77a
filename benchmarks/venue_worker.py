"""One process of the venue benchmark: several simulated tables, each a whole ``Service``.

``python -m benchmarks.venue_worker URL DIR FIRST COUNT SECONDS`` runs tables
``t<FIRST>`` … ``t<FIRST+COUNT-1>`` (sim backend, real time) for SECONDS, stops them cleanly and
prints ``{table: last seq}`` as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

from controller.config import validate
from controller.service import Service


async def main(url: str, data: Path, first: int, count: int, seconds: float) -> dict[str, int]:
    services = []
    for n in range(first, first + count):
        raw = {"venue": "venue", "table": f"t{n:03d}", "backend": "sim",
               "data": str(data / f"t{n:03d}"), "log_level": "warning",
               "mqtt": {"url": url},
               "sim": {"game": "ten-ball", "shots": 60, "seed": n, "speed": 1.0, "loop": True}}
        services.append(Service(validate(raw, "venue")))
    tasks = [asyncio.create_task(s.run()) for s in services]
    await asyncio.sleep(seconds)
    for s in services:
        s.stop()
    await asyncio.gather(*tasks)
    return {s.config.table: s.table.seq for s in services}


if __name__ == "__main__":
    logging.basicConfig(level=logging.ERROR)
    url, data, first, count, seconds = sys.argv[1:6]
    print(json.dumps(asyncio.run(main(url, Path(data), int(first), int(count), float(seconds)))))
