"""A real Mosquitto broker for tests, on a free port with its own configuration file.

Mosquitto 2 ignores ``-p`` when its configuration has a listener, so the port is written in
the file. ``Broker`` can be stopped and started again on the same port (outage tests), and
takes extra configuration lines (passwords, ACLs, TLS, websockets).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Broker:
    """One Mosquitto process; ``start()`` / ``stop()`` may be called again and again."""

    def __init__(self, directory: Path, extra: str = "", port: int | None = None,
                 anonymous: bool = True) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.conf = directory / "mosquitto.conf"
        self.log = directory / "mosquitto.log"
        directory.mkdir(parents=True, exist_ok=True)
        lines = [
            f"listener {self.port} 127.0.0.1",
            f"allow_anonymous {'true' if anonymous else 'false'}",
            "persistence false",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            extra,
        ]
        self.conf.write_text("\n".join(lines) + "\n")
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                log = self.log.read_text() if self.log.exists() else ""
                raise RuntimeError(f"mosquitto exited: {err}{log}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"mosquitto did not listen on {self.port} within {timeout} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def password_file(directory: Path, users: dict[str, str]) -> Path:
    """Writes a Mosquitto password file for ``users`` (name: password); returns its path."""
    path = directory / "passwords"
    directory.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    for name, password in users.items():
        subprocess.run([shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd",
                        "-b", str(path), name, password], check=True, capture_output=True)
    path.chmod(0o600)
    return path
