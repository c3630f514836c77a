"""A Mosquitto of our own: the demo's embedded broker (and the tests' real one).

It listens on a free port of 127.0.0.1 with its own configuration file (Mosquitto 2 ignores
``-p`` when its configuration has a listener, so the port is written in the file), and can be
stopped and started again on the same port.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from controller.errors import ControllerError

SEARCHED = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")


class MosquittoError(ControllerError, RuntimeError):
    """Mosquitto is missing, or did not start."""


def find_mosquitto() -> str | None:
    """Returns the path of the mosquitto binary, or None when it is not installed."""
    return shutil.which("mosquitto") or next((p for p in SEARCHED if Path(p).exists()), None)


def free_port() -> int:
    """Returns a TCP port of 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Mosquitto:
    """One Mosquitto process on ``directory``; ``start()`` / ``stop()`` may be called again."""

    def __init__(self, directory: Path, *, extra: str = "", port: int | None = None,
                 anonymous: bool = True) -> None:
        binary = find_mosquitto()
        if binary is None:
            raise MosquittoError("Mosquitto is not installed (sudo apt install mosquitto)")
        self.binary = binary
        self.directory = directory
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.anonymous = anonymous
        self.extra = extra
        self.conf = directory / "mosquitto.conf"
        self.log = directory / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)
        self.write_conf()

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def write_conf(self) -> None:
        lines = [
            # Started by root, Mosquitto drops to the user "mosquitto", who cannot write its
            # log or its persistence file in a private directory: it then loses its queued
            # messages on a restart without a word. Ours stays the user that started it.
            "user root" if os.geteuid() == 0 else "",
            f"listener {self.port} 127.0.0.1",
            f"allow_anonymous {'true' if self.anonymous else 'false'}",
            "persistence false",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            self.extra,
        ]
        self.conf.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 10.0) -> None:
        """Starts Mosquitto and returns once it accepts connections. Raises MosquittoError."""
        if self.process is not None and self.process.poll() is None:
            return
        self.process = subprocess.Popen([self.binary, "-c", str(self.conf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                log = self.log.read_text() if self.log.exists() else ""
                self.process = None
                raise MosquittoError(f"mosquitto exited: {(err + log).strip()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise MosquittoError(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
