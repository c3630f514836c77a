"""A fresh install referees nothing: the configuration the install puts in place names no
backend, and the service run on it (the unit's command line, real process, systemd's
notify socket) says it is ready and waiting, why, and stays up without a table, a journal
or a broker until it is stopped."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

from controller.service.config import load_controller_config
from tests.deploy.test_install import UNIT, install, unit_keys


def test_the_installed_configuration_names_no_backend(tmp_path: Path) -> None:
    assert install(tmp_path / "root").returncode == 0
    config = load_controller_config(tmp_path / "root/etc/billiards-controller/controller.toml")
    assert config.backend is None


def test_the_service_on_a_fresh_install_waits_and_tells_systemd_why(tmp_path: Path) -> None:
    assert install(tmp_path / "root").returncode == 0
    toml = tmp_path / "root/etc/billiards-controller/controller.toml"
    argv = shlex.split(unit_keys(UNIT)["Service"]["ExecStart"][-1])
    argv[0] = sys.executable
    argv[argv.index("--config") + 1] = str(toml)
    data = tmp_path / "data"
    argv[argv.index("--data") + 1] = str(data)
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        server.settimeout(30)
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   env={**os.environ, "NOTIFY_SOCKET": path,
                                        "WATCHDOG_USEC": "1000000"})
        try:
            said = []
            while not any(m.startswith("STATUS=") for m in said) or "WATCHDOG=1" not in said:
                said.append(server.recv(4096).decode())
            assert said[0] == "READY=1"
            [status] = [m for m in said if m.startswith("STATUS=")]
            assert status.startswith("STATUS=waiting for configuration: no backend in")
            assert str(toml) in status
            assert process.poll() is None  # not exiting (and restarted) again and again
        finally:
            process.send_signal(signal.SIGTERM)
            out, _ = process.communicate(timeout=20)
    assert process.returncode == 0, out
    assert b"waiting for configuration" in out
    assert b"broker" not in out  # it did not try the broker
    assert not (data / "journal.sqlite3").exists()
