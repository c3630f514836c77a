"""``python -m firmware_bridge probe`` against ``board --pty``, both as real subprocesses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.firmware.main import VERSION as FIRMWARE_VERSION

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, timeout: float = 20.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "firmware_bridge", *args], cwd=ROOT, capture_output=True,
        text=True, timeout=timeout,
    )


@pytest.fixture
def board_path() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware_bridge", "board", "--pty", "--uid", "e66141040a0b0c0d",
         "--drift-ppm", "25"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        assert os.path.exists(path), path
        yield path
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(5) == 0  # a clean stop on SIGTERM


def test_probe_reports_identity_firmware_channels_clock_and_link_of_a_pty_board(
    board_path: str,
) -> None:
    done = run("probe", board_path, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["uid"] == "e66141040a0b0c0d"
    assert report["firmware"] == FIRMWARE_VERSION and report["protocol"] == 2
    assert report["tick_bits"] == 64
    names = [c["name"] for c in report["channels"]]
    assert names[:6] == ["beam.hl", "beam.hr", "beam.sl", "beam.sr", "beam.fl", "beam.fr"]
    assert report["clock"]["samples"] >= 8
    assert isinstance(report["clock"]["offset_s"], float)
    assert report["link"]["bad_frames"] == 0 and report["link"]["rtt_min_ms"] < 50

    text = run("probe", board_path, "--listen", "0.1")
    assert text.returncode == 0, text.stderr
    for needle in ("e66141040a0b0c0d", f"firmware   {FIRMWARE_VERSION}", "beam.hl", "offset", "rtt min"):
        assert needle in text.stdout, text.stdout


def test_probe_of_a_missing_port_fails_with_a_reason() -> None:
    done = run("probe", "/dev/serial/by-id/no-such-board", "--timeout", "0.5")
    assert done.returncode == 1
    assert "no-such-board" in done.stderr and "absent" in done.stderr
