"""The shipped venue broker configuration, started for real on free ports.

``deploy/mosquitto/billiards.conf`` is used line for line, except that every ``listener N``
becomes a free port on 127.0.0.1 and paths under ``/etc/mosquitto/`` point into the test's
directory, where a password file (``mosquitto_passwd``) and a self-signed CA and server
certificate (``openssl``) are generated. The ACL file is the shipped one, copied unchanged.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.broker import Broker, free_port

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "deploy" / "mosquitto" / "billiards.conf"
ACL = ROOT / "deploy" / "mosquitto" / "billiards.acl"
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
OPENSSL = shutil.which("openssl")

USERS = ("table-t1", "table-t2", "referee", "dashboard", "display", "adapters", "devices",
         "homeassistant")


def password(user: str) -> str:
    return f"pw-{user}"


@dataclass
class Venue:
    broker: Broker
    ports: dict[int, int] = field(default_factory=dict)  # shipped port -> test port
    ca: Path | None = None


def make_certificates(directory: Path) -> Path:
    """Writes ca.crt, server.crt, server.key (for 127.0.0.1) and returns the CA path."""
    assert OPENSSL is not None
    directory.mkdir(parents=True, exist_ok=True)

    def run(*args: str) -> None:
        subprocess.run([OPENSSL, *args], check=True, cwd=directory, capture_output=True)

    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    run("req", "-x509", *key, "-days", "2", "-subj", "/CN=test-ca", "-keyout", "ca.key", "-out", "ca.crt")
    run("req", *key, "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr")
    (directory / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "ext.cnf", "-out", "server.crt")
    for name in ("server.key", "server.crt", "ca.crt"):
        (directory / name).chmod(0o644)
    return directory / "ca.crt"


def venue_config(directory: Path) -> tuple[str, dict[int, int]]:
    """Returns the shipped configuration rewritten for a test in ``directory``."""
    ports: dict[int, int] = {}
    lines = []
    for line in CONF.read_text().splitlines():
        m = re.fullmatch(r"listener (\d+)(?: \S+)?", line.strip())
        if m:
            port = free_port()
            ports[int(m.group(1))] = port
            line = f"listener {port} 127.0.0.1"
        lines.append(line.replace("/etc/mosquitto/", f"{directory}/"))
    lines.append(f"persistence_location {directory}/")
    # (the launcher keeps Mosquitto the user who runs the tests: it must read this directory)
    return "\n".join(lines), ports


def start_venue(directory: Path) -> Venue:
    """Starts Mosquitto with the shipped configuration and ACL; users: ``USERS``."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(ACL, directory / "billiards.acl")
    passwd = directory / "billiards.passwd"
    passwd.write_text("")
    for user in USERS:
        subprocess.run([PASSWD, "-b", str(passwd), user, password(user)], check=True,
                       capture_output=True)
    passwd.chmod(0o644)
    ca = make_certificates(directory / "certs") if OPENSSL else None
    extra, ports = venue_config(directory)
    if ca is None:  # no openssl here: leave the TLS listener's certificate lines out
        extra = "\n".join(x for x in extra.splitlines()
                          if not x.startswith(("certfile", "keyfile", "cafile", "tls_version")))
    broker = Broker(directory, extra=extra, anonymous=False)
    broker.start()
    for port in ports.values():  # the websockets listener comes up after the others
        wait_for_port(port)
    return Venue(broker, ports, ca)


def wait_for_port(port: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        for host in ("127.0.0.1", "::1"):
            try:
                with socket.create_connection((host, port), timeout=0.2):
                    return
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing listens on port {port}")
        time.sleep(0.05)
