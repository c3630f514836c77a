"""One process of the venue benchmark: several simulated tables, each a whole ``Service``.

``python -m benchmarks.venue_worker URL DIR FIRST COUNT SECONDS`` runs tables
``t<FIRST>`` … ``t<FIRST+COUNT-1>`` (sim backend, real time) for SECONDS, stops them cleanly and
prints, as one JSON line, ``{table: {topic: [seq, ...]}}``: every message each table produced
(handed to its outbox), by topic (relative to the table's base topic).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from controller.config import validate
from controller.journal import Outgoing
from controller.service import Service


async def main(url: str, data: Path, first: int, count: int,
               seconds: float) -> dict[str, dict[str, list[int]]]:
    services = []
    for n in range(first, first + count):
        raw = {"venue": "venue", "table": f"t{n:03d}", "backend": "sim",
               "data": str(data / f"t{n:03d}"), "log_level": "warning",
               "mqtt": {"url": url},
               "sim": {"game": "ten-ball", "shots": 60, "seed": n, "speed": 1.0, "loop": True}}
        services.append(Service(validate(raw, "venue")))
    produced: dict[str, dict[str, list[int]]] = {}
    for s in services:
        mine = produced.setdefault(s.config.table, {})
        add = s.outbox.add

        def noted(item: Outgoing, add: Callable[[Outgoing], None] = add,
                  mine: dict[str, list[int]] = mine, base: str = s.base) -> None:
            seq = json.loads(item.payload).get("seq") if item.topic.startswith(base) else None
            if seq is not None:
                mine.setdefault(item.topic.removeprefix(base + "/"), []).append(seq)
            add(item)

        s.outbox.add = noted  # type: ignore[method-assign]
    tasks = [asyncio.create_task(s.run()) for s in services]
    await asyncio.sleep(seconds)
    for s in services:
        s.stop()
    await asyncio.gather(*tasks)
    return produced


if __name__ == "__main__":
    logging.basicConfig(level=logging.ERROR)
    url, data, first, count, seconds = sys.argv[1:6]
    print(json.dumps(asyncio.run(main(url, Path(data), int(first), int(count), float(seconds)))))
