"""A real Mosquitto broker for tests, on a free port with its own configuration file.

Mosquitto 2 ignores ``-p`` when its configuration has a listener, so the port is written in
the file. ``Broker`` can be stopped and started again on the same port (outage tests), and
takes extra configuration lines (passwords, ACLs, TLS, websockets); it always adds a plain
listener of its own. ``ShippedBroker`` adds none: it runs a configuration as given (a shipped
file with its ports and paths rewritten), so a file Mosquitto refuses fails the test.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from controller.sim.broker import Mosquitto, find_mosquitto

__all__ = ["MOSQUITTO", "Broker", "ShippedBroker", "free_port", "password_file"]

#: The tests' ports: below the kernel's ephemeral ports (32768–60999 here), which outgoing
#: connections and port 0 take, shared out between the pytest-xdist workers.
PORTS = range(20000, 32768)
_handed: set[int] = set()


def free_port() -> int:
    """Returns a TCP port of 127.0.0.1 that is free now and was never handed out before in
    this run, from this pytest-xdist worker's own share of ``PORTS``.

    Why not the kernel's port 0: a broker that a test stops and starts again keeps its port,
    and while it was down the other worker's port 0 (or an outgoing connection) could take
    it: that worker's broker then answered this test's tables (CI, test_wall_legible: «the
    test table did not connect to the broker»)."""
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    index = int(name[2:]) % workers if name[2:].isdigit() else 0
    share = len(PORTS) // workers
    mine = range(PORTS.start + index * share, PORTS.start + (index + 1) * share)
    for port in random.sample(mine, len(mine)):
        if port in _handed:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed.add(port)
        return port
    raise RuntimeError(f"no free port left in {mine}")

MOSQUITTO = find_mosquitto() or "/usr/sbin/mosquitto"


class Broker(Mosquitto):
    """One Mosquitto process; ``start()`` / ``stop()`` may be called again and again."""

    def __init__(self, directory: Path, extra: str = "", port: int | None = None,
                 anonymous: bool = True) -> None:
        super().__init__(directory, extra=extra, port=port or free_port(), anonymous=anonymous)

    def kill(self) -> None:
        """Kills Mosquitto with SIGKILL (a crash: no DISCONNECT to anyone, nothing saved)."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None


class ShippedBroker:
    """One Mosquitto process on the configuration ``conf`` as given; ``start()`` returns once
    each of ``ready`` (TCP ports of 127.0.0.1, or Unix socket paths) accepts a connection, the
    first (plain MQTT) answering a CONNECT: Mosquitto's main loop runs (a websockets port
    accepts connections before Mosquitto may give up and exit).

    Only ``user root`` goes before it when the tests run as root: Mosquitto started by root
    drops to the user "mosquitto", who cannot read the test's files (the shipped unit starts
    the browsers' broker as that user; Debian's venue broker drops to it). Its log goes to
    ``log`` (stderr, as under systemd, where it goes to the journal)."""

    def __init__(self, directory: Path, conf: str, port: int,
                 ready: Sequence[int | Path] = ()) -> None:
        self.directory = directory
        self.host = "127.0.0.1"
        self.port = port
        self.ready = list(ready) or [port]
        self.conf = directory / "mosquitto.conf"
        self.log = directory / "mosquitto.log"
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)
        self.conf.write_text(("user root\n" if os.geteuid() == 0 else "") + conf + "\n")

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        """Starts Mosquitto; raises RuntimeError with its log if it exits or does not listen."""
        if self.process is not None and self.process.poll() is None:
            return
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)],
                                            stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        waiting = list(self.ready)
        while waiting:
            if self.process.poll() is not None:
                self.process = None
                raise RuntimeError(f"mosquitto exited: {self.log.read_text().strip()}")
            if accepts(waiting[0], connect=len(waiting) == len(self.ready)):
                waiting.pop(0)
                continue
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"mosquitto did not listen on {waiting[0]} in {timeout} s: "
                                   f"{self.log.read_text().strip()}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Stops Mosquitto as systemd does (SIGTERM: it saves its database)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        """Kills Mosquitto with SIGKILL (a crash: it saves nothing)."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None


#: an MQTT 3.1.1 CONNECT (client id "web-ready", no user): any broker answers it with a CONNACK
CONNECT = b"\x10\x15\x00\x04MQTT\x04\x02\x00\x0a\x00\x09web-ready"


def accepts(where: int | Path, connect: bool = False) -> bool:
    """Returns whether a TCP port of 127.0.0.1, or a Unix socket, accepts a connection now
    (and with ``connect``, answers an MQTT CONNECT with a CONNACK)."""
    family = socket.AF_UNIX if isinstance(where, Path) else socket.AF_INET
    address = str(where) if isinstance(where, Path) else ("127.0.0.1", where)
    try:
        with socket.socket(family) as s:
            s.settimeout(0.5)
            s.connect(address)
            if connect:
                s.sendall(CONNECT)
                return s.recv(1) == b"\x20"
    except OSError:
        return False
    return True


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
