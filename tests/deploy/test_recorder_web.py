"""The shipped recorder unit serves the tournament's pages (issue 42): its command line, with
the shipped ``recorder.example.env``'s settings (the port moved to a free one, the broker and
the store the test's), run as systemd would run it, records and serves the bracket, the
director's tablet and the history, the director's actions refused while no password is set;
a ``recorder.env`` from before ``WEB`` (systemd hands ``--web ""``) records without pages."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.broker import Broker, free_port
from tests.deploy.test_install import DEPLOY, ROOT, unit_keys

UNIT = DEPLOY / "billiards-recorder.service"


def shipped_env() -> dict[str, str]:
    """Returns the settings of ``deploy/recorder.example.env`` (``KEY=value`` lines)."""
    return dict(line.split("=", 1) for line in (DEPLOY / "recorder.example.env").read_text()
                .splitlines() if re.match(r"^[A-Z]+=", line))


def command(env: dict[str, str]) -> list[str]:
    """Returns the unit's ExecStart as systemd runs it with ``env`` (``${X}``: one argument,
    empty when X is not set), this test's Python for the installed venv's."""
    [line] = unit_keys(UNIT)["Service"]["ExecStart"]
    argv = [re.sub(r"\$\{(\w+)\}", lambda m: env.get(m.group(1), ""), a) for a in shlex.split(line)]
    assert argv[0] == "/opt/billiards-controller/venv/bin/python"
    return [sys.executable, *argv[1:]]


def status(url: str, data: bytes | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=5) as r:  # noqa: S310
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def until_served(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()
        try:
            urllib.request.urlopen(url, timeout=2).close()  # noqa: S310
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.05)  # polling for the listening port: the condition, not a delay
    raise AssertionError(f"{url} was never served:\n{log.read_text()}")


@pytest.mark.timeout(120)
def test_the_shipped_recorder_unit_serves_the_bracket_and_the_directors_page(
        tmp_path: Path, broker: Broker) -> None:
    env = shipped_env()
    host, _, port = env["WEB"].rpartition(":")
    assert (host, port) == ("0.0.0.0", "8081")  # noqa: S104 (the venue's tablets reach it)
    web = f"127.0.0.1:{free_port()}"
    env |= {"BROKER": broker.url, "STORE": f"sqlite:///{tmp_path / 'record.sqlite3'}",
            "WEB": web}
    log = tmp_path / "recorder.log"
    process = subprocess.Popen(command(env), cwd=ROOT, stdout=log.open("wb"),
                               stderr=subprocess.STDOUT)
    try:
        until_served(f"http://{web}/record/health.json", process, log)
        pages = {page: status(f"http://{web}/{page}") for page in (
            "tournament.html", "director.html", "history.html", "record/tournaments/club.json")}
        action = status(f"http://{web}/record/tournaments/club", '{"name": "Кубок"}'.encode())
    finally:
        process.terminate()
        process.wait(30)
    assert pages == dict.fromkeys(pages, 200), pages
    assert action == 403  # no director's password configured: secure by default


@pytest.mark.timeout(120)
def test_a_recorder_env_from_before_web_records_without_pages(tmp_path: Path,
                                                              broker: Broker) -> None:
    env = {"BROKER": broker.url, "STORE": f"sqlite:///{tmp_path / 'record.sqlite3'}"}
    argv = command(env)
    assert argv[-2:] == ["--web", ""]
    log = tmp_path / "recorder.log"
    process = subprocess.Popen(argv, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "recording billiards/#" not in log.read_text() and process.poll() is None:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)  # polling its log for "recording": the condition
        alive = process.poll() is None
    finally:
        process.terminate()
        process.wait(30)
    assert alive, log.read_text()
