"""``python -m benchmarks.history [MATCHES]``: the match history's list with many matches.

Writes MATCHES finished matches (default 1,000) as the tables record them: four tables, ten
sessions each, every match a ``new_match`` and an ``end_match`` request (a match abandoned:
its row is a finished match like any other). Then times, through the one HTTP server:
the first list (every session read once), and the median and worst of 20 further requests
each of the first page, a page filtered by table, player and date, and the last page.
Prints one JSON object; the goal is under 200 ms for a list once the index is kept.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.web import WebConfig, WebServer
from controller.web.history import History

TABLES = ("t1", "t2", "t3", "t4")
SESSIONS = 10
NAMES = ("Борис", "Анна", "Пётр", "Ирина", "Вячеслав", "Александра")


def write(root: Path, matches: int) -> dict[str, Path]:
    """Writes the recordings; returns each table's data directory."""
    per_session = max(1, matches // (len(TABLES) * SESSIONS))
    n = 0
    for table in TABLES:
        traces = root / table / "traces"
        traces.mkdir(parents=True)
        t = 0.0
        for session in range(SESSIONS):
            day = 1 + session % 28
            lines: list[dict[str, Any]] = [{"trace": 1, "venue": "club", "table": table,
                                             "recorded": f"2026-11-{day:02d}T18:00:00Z"}]
            for _ in range(per_session):
                players = [NAMES[n % len(NAMES)], NAMES[(n + 1) % len(NAMES)]]
                t += 1.0
                lines.append({"t": t, "request": "new_match",
                              "payload": {"game": "pyramid", "players": players, "race_to": 3}})
                t += 600.0
                lines.append({"t": t, "request": "end_match", "payload": {}})
                n += 1
            (traces / f"trace-{session + 1:06d}.jsonl").write_text(
                "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return {table: root / table for table in TABLES}


async def _get(server: WebServer, target: str) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n".encode())
    raw = await reader.read()
    writer.close()
    took = time.perf_counter() - start
    return took * 1000, json.loads(raw.partition(b"\r\n\r\n")[2])


async def measure(matches: int, repeat: int = 20) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="history-bench-") as tmp:
        tables = write(Path(tmp), matches)
        async with WebServer(WebConfig(), history=History(tables)) as server:
            first_ms, first = await _get(server, "/history.json?page=1")
            out: dict[str, Any] = {"matches": first["total"], "first_list_ms": round(first_ms, 1)}
            pages = first["pages"]
            for name, target in (("page_1", "/history.json?page=1"),
                                 ("filtered", "/history.json?table=t2&player=" + quote("анна")
                                              + "&since=2026-11-03&until=2026-11-08"),
                                 ("last_page", f"/history.json?page={pages}")):
                times = [(await _get(server, target))[0] for _ in range(repeat)]
                out[name] = {"median_ms": round(statistics.median(times), 1),
                             "max_ms": round(max(times), 1)}
            return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print(json.dumps(asyncio.run(measure(int(args[0]) if args else 1000)), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
