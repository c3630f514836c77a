"""The shipped venue brokers, started for real on free ports.

``deploy/mosquitto/billiards.conf`` (the venue broker) and ``billiards-web.conf`` (the
browsers' broker, bridged to it with ``billiards-web-bridge.conf``) are used line for line,
with no listener added: every ``listener N`` becomes a free port on 127.0.0.1, paths under
``/etc/mosquitto/``, ``/var/lib/mosquitto/`` and ``/run/billiards-web-broker/`` point into the
test's directory, and the bridge's address and password are the test's. The venue broker also
gets the ``persistence_location`` Debian's stock ``/etc/mosquitto/mosquitto.conf`` gives it
(the shipped file goes into that one's ``conf.d``). The password file is made with
``mosquitto_passwd``, the certificates with ``deploy/venue-certificates.sh`` (the install's
own code path, real ``openssl``); the ACL file is the shipped one, copied unchanged.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.broker import ShippedBroker, free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
CONF = DEPLOY / "mosquitto" / "billiards.conf"
WEB_CONF = DEPLOY / "mosquitto" / "billiards-web.conf"
WEB_BRIDGE = DEPLOY / "mosquitto" / "billiards-web-bridge.conf"
ACL = DEPLOY / "mosquitto" / "billiards.acl"
CERTIFICATES = DEPLOY / "venue-certificates.sh"
PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"

#: one user per client (sessions are named after users): tables (each with its referee lane's
#: user, controller/service/referee.py), people, services, devices
USERS = ("club/t1", "club/t1/referee", "club/t2", "club/t2/referee", "referee", "dashboard",
         "scoreboard-bar", "keypad-t1", "adapters-t1", "homeassistant", "web", "awtrix_a1b2c3", "wled/a1b2c3",
         "esphome/t1-lcd", "esphome/bar-matrix", "recorder")


def password(user: str) -> str:
    """Returns the test's password of ``user`` (a table's referee lane has the table's)."""
    return f"pw-{user.removesuffix('/referee')}"


@dataclass
class Venue:
    broker: ShippedBroker
    web: ShippedBroker
    ports: dict[int, int] = field(default_factory=dict)  # shipped port -> test port
    ca: Path = Path()

    def stop(self) -> None:
        self.web.stop()
        self.broker.stop()


def make_certificates(directory: Path) -> Path:
    """Runs the install's certificate script for 127.0.0.1; returns the CA's path."""
    subprocess.run(["bash", str(CERTIFICATES), str(directory), "--host", "venue-test",
                    "--no-own-ips"], check=True, capture_output=True, timeout=60)
    return directory / "ca.crt"


def shipped(path: Path, etc: Path, ports: dict[int, int], data: Path) -> str:
    """Returns a shipped configuration file rewritten for a test: its files under ``etc``
    (for /etc/mosquitto), its data and sockets under ``data`` (for /var/lib/mosquitto and
    /run/billiards-web-broker); each ``listener N`` (not a Unix socket's ``listener 0``) gets
    a free port, recorded in ``ports``."""
    lines = []
    for line in path.read_text().splitlines():
        m = re.fullmatch(r"listener ([1-9]\d*)(?: \S+)?", line.strip())
        if m:
            port = free_port()
            ports[int(m.group(1))] = port
            line = f"listener {port} 127.0.0.1"
        lines.append(line.replace("/etc/mosquitto/", f"{etc}/")
                     .replace("/var/lib/mosquitto/", f"{data}/")
                     .replace("/run/billiards-web-broker/", f"{data}/"))
    return "\n".join(lines)


def start_venue(directory: Path, extra: str = "", users: tuple[str, ...] = USERS) -> Venue:
    """Starts the venue broker (with the configuration lines ``extra`` added) and the
    browsers' broker bridged to it; ``users`` (default ``USERS``) with ``password(user)``."""
    etc = directory / "etc"
    etc.mkdir(parents=True, exist_ok=True)
    shutil.copy(ACL, etc / "billiards.acl")
    passwd = etc / "billiards.passwd"
    passwd.write_text("")
    add_users(passwd, users)
    make_certificates(etc / "certs")
    (etc / "billiards-web.d").mkdir()
    (etc / "billiards-web.d" / "bridge.conf").write_text(
        WEB_BRIDGE.read_text().replace("@PASSWORD@", password("web")))
    return start_brokers(directory, etc, extra)


def add_users(passwd: Path, users: tuple[str, ...]) -> None:
    """Adds ``users`` (with ``password(user)``) to a Mosquitto password file."""
    for user in users:
        subprocess.run([PASSWD, "-b", str(passwd), user, password(user)], check=True,
                       capture_output=True)
    passwd.chmod(0o644)


def start_brokers(directory: Path, etc: Path, extra: str = "") -> Venue:
    """Starts the shipped venue broker and browsers' broker on the files in ``etc`` (as in
    /etc/mosquitto: billiards.passwd, billiards.acl, certs/, billiards-web.d/bridge.conf)."""
    ports: dict[int, int] = {}
    data = directory / "venue"
    data.mkdir(parents=True, exist_ok=True)
    broker = ShippedBroker(data, shipped(CONF, etc, ports, data)
                           + f"\npersistence_location {data}/\n{extra}", 0)
    broker.port = ports[1883]
    broker.ready = [ports[1883], ports[8883]]
    bridge = directory / "billiards-web.d"
    bridge.mkdir(exist_ok=True)
    (bridge / "bridge.conf").write_text((etc / "billiards-web.d" / "bridge.conf").read_text()
                                        .replace("127.0.0.1:1883", f"127.0.0.1:{ports[1883]}"))
    web_data = directory / "web"
    web_ports: dict[int, int] = {}
    web_conf = (shipped(WEB_CONF, etc, web_ports, web_data)
                .replace(f"include_dir {etc}/billiards-web.d", f"include_dir {bridge}"))
    ports.update(web_ports)
    web = ShippedBroker(web_data, web_conf, web_ports[9001],
                        ready=[web_data / "mqtt.sock", *web_ports.values()])
    broker.start()
    try:
        web.start()
    except BaseException:
        broker.stop()
        raise
    venue = Venue(broker, web, ports, etc / "certs" / "ca.crt")
    try:
        wait_bridged(venue)
    except BaseException:
        venue.stop()
        raise
    return venue


def wait_bridged(venue: Venue, timeout: float = 10.0) -> None:
    """Returns once a message published on the venue broker reaches the browsers' broker."""
    topic = "billiards/club/t1/health"
    common = ["-q", "1", "-t", topic]
    deadline = time.monotonic() + timeout
    try:
        while True:
            subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(venue.ports[1883]),
                            "-u", "club/t1", "-P", password("club/t1"), "-r", "-m", "probe", *common],
                           check=True, capture_output=True, timeout=10)
            seen = subprocess.run(["mosquitto_sub", "--unix", str(venue.web.ready[0]),
                                   "-i", "web-probe", "-u", "dashboard",
                                   "-P", password("dashboard"), "-C", "1", "-W", "1", *common],
                                  capture_output=True, text=True, timeout=10, check=False)
            if seen.stdout.strip() == "probe":
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the browsers' broker did not bridge to the venue broker")
    finally:  # clear the retained probe
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(venue.ports[1883]),
                        "-u", "club/t1", "-P", password("club/t1"), "-r", "-n", *common],
                       check=False, capture_output=True, timeout=10)
