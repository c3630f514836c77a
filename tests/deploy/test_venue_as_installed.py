"""The venue's two brokers as an installer gets them (issue 33: "the browsers' broker started
from billiards-web.conf as shipped"), in private mount and network namespaces: the files
``install.sh --dry-run --with-broker`` writes, owned as a real install owns them, bound over
``/etc/mosquitto``; Debian's own ``mosquitto.conf``; the venue broker started as Debian's unit
starts it (by root, dropping to the user mosquitto), the browsers' broker as ours does
(``User=mosquitto``, ``RuntimeDirectory=billiards-web-broker``). Nothing is rewritten: ports,
paths and users are the real ones, in namespaces no one else sees.

A dashboard then reads a table's state over ``wss://127.0.0.1:9443`` and over the local
socket, and a browser with the bridge's client id is refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
set -euo pipefail
I="$1/etc/mosquitto"; T="$2"; PY="$3"
ip link set lo up
cp /etc/mosquitto/mosquitto.conf "$I/mosquitto.conf"
chown root:mosquitto "$I/billiards.acl" "$I/billiards.passwd" "$I/certs" "$I/certs/server.key" \
    "$I/billiards-web.d" "$I/billiards-web.d/bridge.conf"
mkdir -p "$T/lib" "$T/log" "$T/run"
chown mosquitto "$T/lib" "$T/log"
mount --bind "$I" /etc/mosquitto
mount --bind "$T/lib" /var/lib/mosquitto
mount --bind "$T/log" /var/log/mosquitto
mount --bind "$T/run" /run
install -d -m 0740 -o mosquitto /run/mosquitto
install -d -m 0750 -o mosquitto -g mosquitto /run/billiards-web-broker
for u in club/t1 dashboard; do mosquitto_passwd -b /etc/mosquitto/billiards.passwd "$u" "pw-$u"; done
trap 'kill $(cat /run/mosquitto/mosquitto.pid) $web 2>/dev/null || true' EXIT
mosquitto -c /etc/mosquitto/mosquitto.conf -d
setpriv --reuid mosquitto --regid mosquitto --init-groups \
    mosquitto -c /etc/mosquitto/billiards-web.conf > "$T/web.log" 2>&1 &
web=$!
"$PY" - <<'END'
import asyncio, socket, ssl, subprocess, time
import aiomqtt

def up(address, family=socket.AF_INET):
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.socket(family) as s:
                s.connect(address)
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)

for port in (1883, 8883, 9001, 9443):
    up(("127.0.0.1", port))
up("/run/billiards-web-broker/mqtt.sock", socket.AF_UNIX)

async def main():
    ctx = ssl.create_default_context(cafile="/etc/mosquitto/certs/ca.crt")
    ctx.verify_flags |= ssl.VERIFY_X509_STRICT
    async with aiomqtt.Client("127.0.0.1", 1883, username="club/t1", password="pw-club/t1") as t:
        await t.publish("billiards/club/t1/state", b'{"shot": 8}', qos=1, retain=True)
    async with asyncio.timeout(10):
        while True:  # (the bridge connects within a second or two)
            async with aiomqtt.Client("127.0.0.1", 9443, username="dashboard",
                                      password="pw-dashboard", transport="websockets",
                                      tls_context=ctx, identifier="web-12345678") as c:
                await c.subscribe("billiards/club/t1/state", qos=1)
                try:
                    async with asyncio.timeout(1):
                        async for m in c.messages:
                            print("wss:", m.topic, m.payload.decode())
                            break
                    break
                except TimeoutError:
                    pass
    try:
        async with aiomqtt.Client("127.0.0.1", 9001, username="dashboard",
                                  password="pw-dashboard", transport="websockets",
                                  identifier="bridge.venue"):
            print("bridge id: accepted")
    except aiomqtt.MqttError as e:
        print("bridge id:", e)

asyncio.run(main())
END
export HOME="$T/home"; mkdir -p "$HOME/.config"
(umask 077; printf -- '-u dashboard\n-P pw-dashboard\n' > "$HOME/.config/mosquitto_sub")
mosquitto_sub --unix /run/billiards-web-broker/mqtt.sock -i web-check -t 'billiards/#' -v -C 1 -W 5 \
    | sed 's/^/local: /'
"""


def namespaces_work() -> bool:
    if os.geteuid() != 0 or not all(shutil.which(c) for c in ("unshare", "ip", "setpriv")):
        return False
    run = subprocess.run(["unshare", "-mn", "true"], capture_output=True, check=False)
    return run.returncode == 0 and Path("/etc/mosquitto/mosquitto.conf").exists()


@pytest.mark.skipif(not namespaces_work(), reason="needs root, unshare and Debian's Mosquitto")
def test_the_installed_brokers_start_as_shipped_and_serve_a_dashboard(tmp_path: Path) -> None:
    dest = tmp_path / "root"
    install = subprocess.run(["bash", str(ROOT / "deploy/install.sh"), "--dry-run", "--destdir",
                              str(dest), "--with-broker", "--no-apt"],
                             capture_output=True, text=True, timeout=120, check=False)
    assert install.returncode == 0, install.stderr
    run = subprocess.run(["unshare", "-mn", "bash", "-c", SCRIPT, "venue", str(dest),
                          str(tmp_path / "state"), sys.executable],
                         capture_output=True, text=True, timeout=120, check=False)
    web_log = tmp_path / "state" / "web.log"
    logs = run.stderr + (web_log.read_text() if web_log.exists() else "")
    assert run.returncode == 0, run.stdout + logs
    assert run.stdout.splitlines() == [
        'wss: billiards/club/t1/state {"shot": 8}',
        "bridge id: [code:135] Not authorized",
        'local: billiards/club/t1/state {"shot": 8}',
    ], run.stdout + logs
