"""A junk flood from another user and a referee's requests (issue 39, item 8), on the shipped
venue broker and ``controller run`` in its own process.

Home Assistant's user publishes ``n`` malformed undo requests (QoS 1, 200 in flight) as fast
as the broker takes them; meanwhile a referee's client on the venue broker sends a ``get``
every 2 s (a new transaction each, resent under it after ``RESEND_S`` without an answer)
and times each answer. Prints, for each lane measured (``general``: ``B/request/get``, the
topic Home Assistant floods; ``referee``: ``B/referee/request/get``, the table's referee lane,
``controller.service.referee``), the flood's rate (publishes a second the broker took), how
many of the referee's requests were answered and the median and worst wait.

    python -m benchmarks.flood_referee [--n 100000] [--lane general|referee|both]
        [--conf-extra 'autosave_on_changes false']
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiomqtt

from benchmarks.live import stop_process
from tests.deploy.venue import Venue, password, start_venue

ROOT = Path(__file__).resolve().parents[1]
B = "billiards/club/t1"
JUNK = b'{"shots": "x", "transaction": 7}'
#: How often the referee asks, and how long it waits before sending its request again.
EVERY_S = 2.0
RESEND_S = 5.0


@dataclass
class Timings:
    waits: list[float] = field(default_factory=list)
    unanswered: int = 0
    resent: int = 0


def service_config(directory: Path, venue: Venue) -> Path:
    """Writes ``controller run``'s configuration: the sim backend, idle, on the venue broker."""
    trace = directory / "idle.jsonl"
    trace.write_text('{"trace": 1, "venue": "club", "table": "t1"}\n')
    path = directory / "controller.toml"
    path.write_text(f"""
venue = "club"
table = "t1"
backend = "sim"
data = "{directory / 'data'}"

[mqtt]
url = "mqtt://127.0.0.1:{venue.ports[1883]}"
username = "club/t1"
password = "{password('club/t1')}"

[sim]
trace = "{trace}"
loop = false

[web]
enabled = false
""")
    return path


async def flood(venue: Venue, n: int) -> float:
    """Publishes ``n`` junk undo requests as Home Assistant's user; returns the seconds taken."""
    started = time.monotonic()
    async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="homeassistant",
                              password=password("homeassistant"),
                              max_inflight_messages=200) as c:
        for start in range(0, n, 200):
            await asyncio.gather(*(c.publish(f"{B}/request/undo", JUNK, qos=1)
                                   for _ in range(start, min(n, start + 200))))
    return time.monotonic() - started


#: Where the referee's requests go, by lane.
LANES = {"general": f"{B}/request/get", "referee": f"{B}/referee/request/get"}


async def referee(venue: Venue, done: asyncio.Event, timings: Timings, topic: str) -> None:
    """Asks ``get`` on ``topic`` every ``EVERY_S`` until ``done``; notes each answer's wait."""
    answers: dict[str, float] = {}
    waiting: dict[str, asyncio.Event] = {}
    async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="referee",
                              password=password("referee")) as c:
        await c.subscribe(f"{B}/response/get", qos=1)
        await c.subscribe(f"{B}/referee/response/get", qos=1)  # the lane's copy, if any

        async def listen() -> None:
            async for m in c.messages:
                tx = json.loads(m.payload).get("transaction")
                answers.setdefault(tx, time.monotonic())
                if tx in waiting:
                    waiting[tx].set()

        listening = asyncio.create_task(listen())

        async def ask(n: int) -> None:
            tx = f"ref-{n}"
            waiting[tx] = asyncio.Event()
            sent = time.monotonic()
            for attempt in range(40):
                await c.publish(topic, json.dumps({"transaction": tx}), qos=1)
                try:
                    async with asyncio.timeout(RESEND_S):
                        await waiting[tx].wait()
                except TimeoutError:
                    continue
                timings.waits.append(answers[tx] - sent)
                timings.resent += attempt
                return
            timings.unanswered += 1

        asks = []
        n = 0
        while not done.is_set():
            asks.append(asyncio.create_task(ask(n)))
            n += 1
            await asyncio.sleep(EVERY_S)
        await asyncio.gather(*asks)
        listening.cancel()


async def measure(n: int, extra: str, lane: str) -> dict[str, float | str]:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        venue = start_venue(directory, extra)
        proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config",
                                 str(service_config(directory, venue))], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="referee",
                                      password=password("referee")) as c:
                await c.subscribe(f"{B}/state", qos=1)
                async with asyncio.timeout(30):
                    await anext(aiter(c.messages))
            timings = Timings()
            done = asyncio.Event()
            asking = asyncio.create_task(referee(venue, done, timings, LANES[lane]))
            seconds = await flood(venue, n)
            done.set()
            await asking
        finally:
            stop_process(proc)
            venue.stop()
    waits = sorted(timings.waits)
    return {"lane": lane, "n": n, "flood_s": round(seconds, 1), "publishes_per_s": round(n / seconds),
            "asked": len(waits) + timings.unanswered, "answered": len(waits),
            "resent": timings.resent,
            "median_s": round(waits[len(waits) // 2], 3) if waits else -1,
            "worst_s": round(waits[-1], 3) if waits else -1}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--lane", choices=(*LANES, "both"), default="both")
    p.add_argument("--conf-extra", default="", help="lines added to the venue broker's file")
    args = p.parse_args()
    for lane in LANES if args.lane == "both" else (args.lane,):
        print(json.dumps(asyncio.run(measure(args.n, args.conf_extra.replace("\\n", "\n"),
                                             lane))), flush=True)


if __name__ == "__main__":
    main()
