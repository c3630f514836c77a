"""The demo publishes real traffic; systemd hears READY and the watchdog."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

from controller.service.systemd import Notifier
from tests.service.conftest import Collector

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_starts_its_own_broker_plays_and_says_where_to_look():
    done = subprocess.run([sys.executable, "-m", "controller", "demo", "--seconds", "4",
                           "--speed", "20", "--tables", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0].startswith("broker: mqtt://127.0.0.1:") and "embedded Mosquitto" in out[0]
    assert out[1].startswith("watch:  mosquitto_sub -h 127.0.0.1 -p ") and "-t 'billiards/#' -v" in out[1]
    assert any(line.strip().startswith("t1 ") for line in out) and any(
        line.strip().startswith("t2 ") for line in out)
    published = out[-1]
    assert published.startswith("published ") and "event" in published and "state" in published


async def test_the_demo_on_a_given_broker_is_seen_by_a_subscriber_in_its_language(broker):
    async with Collector(broker, topic="billiards/demo/#") as col:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller", "demo", "--broker", broker.url, "--seconds", "3",
            "--speed", "20", "--tables", "1", "--game", "ten-ball", "--language", "ru", cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, err.decode()
    # a table's topics (billiards/demo/<table>/<kind>); the venue's own (its waiting list,
    # its roster: billiards/demo/<name>) are the recorder's
    kinds = {parts[3] for s in col.seen if len(parts := s.topic.split("/")) > 3}
    assert {"status", "state", "display", "health", "event"} <= kinds
    events = [s.payload for s in col.seen if s.topic.endswith("/event")]
    assert [e["data"]["game"] for e in events if e["type"] == "match_started"][0] == "ten-ball"
    assert [s.payload["state"] for s in col.seen if s.topic.endswith("/status")][-1] == "stopped"
    # the tables' language, carried in every state for the displays
    assert {s.payload["language"] for s in col.seen if s.topic.endswith("/state")} == {"ru"}


def test_systemd_hears_ready_and_the_watchdog(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        server.settimeout(2)
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "2000000",
                             "WATCHDOG_PID": str(os.getpid())})
        assert notifier.interval == 1.0
        assert notifier.notify("READY=1")

        async def ping_once() -> None:
            task = asyncio.create_task(notifier.watchdog())
            await asyncio.sleep(0.05)
            task.cancel()
        asyncio.run(ping_once())
        assert [server.recv(64), server.recv(64)] == [b"READY=1", b"WATCHDOG=1"]
    assert not Notifier({}).notify("READY=1")
