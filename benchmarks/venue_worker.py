"""One process of the venue benchmark: several simulated tables, each a whole ``Service``.

``python -m benchmarks.venue_worker URL DIR FIRST COUNT SECONDS`` runs tables
``t<FIRST>`` … ``t<FIRST+COUNT-1>`` (sim backend, real time) for SECONDS, stops them cleanly and
prints, as one JSON line, ``{"produced": {table: {topic: [seq, ...]}}, "clears": {table:
{pocket: [t, ...]}}}``: every message each table produced (handed to its outbox), by topic
(relative to the table's base topic), and the source time of every edge of a pocket beam
clearing (host monotonic seconds: the tables run at speed 1 on fresh journals), from which
the dashboard times each ``ball_pocketed`` from the edge that decided it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.pipeline.table import Message
from controller.service.config import validate
from controller.service.delivery import Delivery
from controller.service.shell import Service
from controller.sim.backend import sim_backend
from hardware.events import SensorEvent
from rules.games import default_game
from vocabulary import POCKET_OF_BEAM


async def main(url: str, data: Path, first: int, count: int,
               seconds: float) -> dict[str, dict[str, Any]]:
    services = []
    for n in range(first, first + count):
        raw = {"venue": "venue", "table": f"t{n:03d}", "backend": "sim",
               "data": str(data / f"t{n:03d}"), "log_level": "warning",
               "mqtt": {"url": url},
               "sim": {"game": default_game(), "shots": 60, "seed": n, "speed": 1.0, "loop": True}}
        services.append(Service(validate(raw, "venue"), backend=sim_backend))
    produced: dict[str, dict[str, list[int]]] = {}
    clears: dict[str, dict[str, list[float]]] = {}
    for s in services:
        mine = produced.setdefault(s.config.table, {})
        add = s.outbox.add

        def noted(item: Delivery, add: Callable[[Delivery], None] = add,
                  mine: dict[str, list[int]] = mine, base: str = s.base) -> None:
            seq = json.loads(item.payload).get("seq") if item.topic.startswith(base) else None
            if seq is not None:
                mine.setdefault(item.topic.removeprefix(base + "/"), []).append(seq)
            add(item)

        s.outbox.add = noted  # type: ignore[method-assign]
        beams = clears.setdefault(s.config.table, {})
        sensor = s.table.sensor

        def seen(ev: SensorEvent, sensor: Callable[[SensorEvent], list[Message]] = sensor,
                 beams: dict[str, list[float]] = beams) -> list[Message]:
            pocket = POCKET_OF_BEAM.get(ev.ch)
            if pocket is not None and not ev.v:
                beams.setdefault(pocket, []).append(ev.t)
            return sensor(ev)

        s.table.sensor = seen  # type: ignore[method-assign]
    tasks = [asyncio.create_task(s.run()) for s in services]
    await asyncio.sleep(seconds)
    for s in services:
        s.stop()
    await asyncio.gather(*tasks)
    return {"produced": produced, "clears": clears}


if __name__ == "__main__":
    logging.basicConfig(level=logging.ERROR)
    url, data, first, count, seconds = sys.argv[1:6]
    print(json.dumps(asyncio.run(main(url, Path(data), int(first), int(count), float(seconds)))))
