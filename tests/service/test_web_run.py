"""``run`` serves the venue dashboard and the referee console, and prints where."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.broker import Broker, free_port
from tests.service.test_restart import write_config

ROOT = Path(__file__).resolve().parents[2]


def test_run_serves_the_pages_and_prints_their_addresses(tmp_path: Path, broker: Broker) -> None:
    port = free_port()
    web = (f'host = "127.0.0.1"\nport = {port}\nbroker_ws = "ws://{{host}}:9001"\n'
           'dashboard_username = "dashboard"')
    config = write_config(tmp_path, broker, table="t7", web=web)
    proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        second = proc.stdout.readline()
        assert first.strip() == f"dashboard: http://127.0.0.1:{port}/"
        assert second.strip() == f"console:   http://127.0.0.1:{port}/console.html?table=t7"
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/config.json", timeout=2) as r:
                    pages = json.load(r)
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert pages["venue"] == "club" and pages["tables"] == ["t7"]
        assert pages["dashboard"]["username"] == "dashboard"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
            assert b"<html" in r.read().lower()
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_taken_port_costs_the_pages_not_the_table(tmp_path: Path, broker: Broker) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = write_config(tmp_path, broker, web=f'host = "127.0.0.1"\nport = {port}')
        proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(config)],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            said = ""
            for line in proc.stderr:  # until it says so, or ends
                said += line
                if "cannot serve the web pages" in line:
                    break
            assert "cannot serve the web pages" in said, said
            # the table goes on: it comes online on the broker after giving up the pages
            host, port = broker.url.removeprefix("mqtt://").rsplit(":", 1)
            status = subprocess.run(
                ["mosquitto_sub", "-h", host, "-p", port, "-t", "billiards/club/t1/status",
                 "-C", "1", "-W", "30", "-F", "%p"], capture_output=True, text=True, timeout=40)
            assert json.loads(status.stdout)["state"] == "online", status
            assert proc.poll() is None, said
        finally:
            proc.terminate()
            proc.communicate(timeout=10)
