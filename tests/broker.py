"""A real Mosquitto broker for tests, on a free port with its own configuration file.

Mosquitto 2 ignores ``-p`` when its configuration has a listener, so the port is written in
the file. ``Broker`` can be stopped and started again on the same port (outage tests), and
takes extra configuration lines (passwords, ACLs, TLS, websockets).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from controller.sim.broker import Mosquitto, find_mosquitto, free_port

__all__ = ["MOSQUITTO", "Broker", "free_port", "password_file"]

MOSQUITTO = find_mosquitto() or "/usr/sbin/mosquitto"


class Broker(Mosquitto):
    """One Mosquitto process; ``start()`` / ``stop()`` may be called again and again."""

    def __init__(self, directory: Path, extra: str = "", port: int | None = None,
                 anonymous: bool = True) -> None:
        super().__init__(directory, extra=extra, port=port, anonymous=anonymous)


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
