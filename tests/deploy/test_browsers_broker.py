"""The browsers' broker as shipped (``deploy/mosquitto/billiards-web.conf``) on the Mosquitto
installed here (Debian 12's 2.0.11 on the machines of issue 33): it starts from its own file,
with no listener added by the tests, and no browser can push the bridge, or another browser,
off it."""

from __future__ import annotations

import asyncio
import re
import ssl
import subprocess
from pathlib import Path

import aiomqtt
import pytest
from aiomqtt.exceptions import MqttConnectError

from tests.broker import MOSQUITTO, ShippedBroker
from tests.deploy.test_mosquitto_acl import B1, BROWSERS, first_message, login
from tests.deploy.venue import WEB_CONF, Venue, make_certificates, shipped


def version() -> tuple[int, ...]:
    out = subprocess.run([MOSQUITTO, "-h"], capture_output=True, text=True, check=False).stdout
    m = re.search(r"mosquitto version (\d+)\.(\d+)\.(\d+)", out)
    assert m, out
    return tuple(int(g) for g in m.groups())


def test_the_shipped_file_starts_with_websockets_and_its_local_socket(tmp_path: Path) -> None:
    """Its files as install.sh leaves them (no bridge yet: billiards-web.d/ empty)."""
    etc = tmp_path / "etc"
    (etc / "billiards-web.d").mkdir(parents=True)
    (etc / "billiards.passwd").write_text("")
    (etc / "billiards.acl").write_text("")
    make_certificates(etc / "certs")
    ports: dict[int, int] = {}
    conf = shipped(WEB_CONF, etc, ports, tmp_path)
    assert sorted(ports) == [9001, 9443]  # the shipped listeners, nothing else
    broker = ShippedBroker(tmp_path, conf, ports[9001],
                           ready=[tmp_path / "mqtt.sock", *ports.values()])
    broker.start()
    try:
        assert broker.process is not None and broker.process.poll() is None
    finally:
        broker.stop()


@pytest.mark.skipif(version() >= (2, 1), reason="Mosquitto 2.1 has its own websockets")
def test_without_its_local_listener_mosquitto_2_0_does_not_start(tmp_path: Path) -> None:
    """Why the file has a Unix socket listener: websockets listeners alone do not start on
    2.0 (issue 33, finding 7)."""
    ports: dict[int, int] = {}
    lines = [line for line in WEB_CONF.read_text().splitlines()
             if not line.startswith("listener 0 ")]
    alone = tmp_path / "alone.conf"
    alone.write_text("\n".join(lines))
    conf = shipped(alone, tmp_path / "etc", ports, tmp_path)
    conf = "\n".join(line for line in conf.splitlines()
                     if not line.startswith(("certfile", "keyfile", "include_dir",
                                             "password_file", "acl_file")))
    (tmp_path / "alone-run.conf").write_text(conf)
    run = subprocess.run([MOSQUITTO, "-c", str(tmp_path / "alone-run.conf")],
                         capture_output=True, text=True, timeout=10, check=False)
    assert run.returncode == 1
    assert "Unable to start any listening sockets" in run.stderr


@pytest.mark.parametrize("identifier", ["local.web", "bridge.venue"])
async def test_a_browser_cannot_take_the_bridges_client_id(venue: Venue, identifier: str) -> None:
    """The bridge's old default id (local.<remote_clientid>) and its shipped one: refused,
    and the venue's topics still come in, the consoles' requests still go out."""
    with pytest.raises(MqttConnectError, match="Not authorized"):
        async with login(venue, "dashboard", port=9001, transport="websockets",
                         identifier=identifier):
            pass
    async with login(venue, "club/t1") as table, \
            login(venue, "dashboard", port=9001, transport="websockets") as dash:
        await table.subscribe(f"{B1}/request/+", qos=1)
        await dash.subscribe(f"{B1}/state", qos=1)
        await table.publish(f"{B1}/state", b'{"n": 1}', qos=1)
        assert (await first_message(dash)).payload == b'{"n": 1}'
        async with login(venue, "referee", port=9001, transport="websockets") as ref:
            await ref.publish(f"{B1}/request/undo", b'{"n": 2}', qos=1)
        assert (await first_message(table)).payload == b'{"n": 2}'


async def test_browsers_sharing_the_dashboard_user_stay_connected_together(venue: Venue) -> None:
    """Ten dashboards (one user, the pages' random ids) all receive the same message, and
    none is pushed off."""
    async with login(venue, "club/t1") as table:
        clients = [login(venue, "dashboard", port=port, transport="websockets",
                         tls_context=venue_tls(venue) if port == 9443 else None)
                   for port in BROWSERS * 5]
        entered = [await c.__aenter__() for c in clients]
        try:
            for dash in entered:
                await dash.subscribe(f"{B1}/event", qos=1)
            await table.publish(f"{B1}/event", b'{"seq": 1}', qos=1)
            got = await asyncio.gather(*(first_message(d) for d in entered))
            assert [m.payload for m in got] == [b'{"seq": 1}'] * 10
        finally:
            for c in reversed(clients):
                await c.__aexit__(None, None, None)


def venue_tls(venue: Venue) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(venue.ca))


async def test_the_local_socket_serves_the_same_users_and_rights(venue: Venue) -> None:
    """mosquitto_sub --unix, as the README's local check does: a wrong password is refused."""
    sock = venue.web.ready[0]
    wrong = subprocess.run(["mosquitto_sub", "--unix", str(sock), "-i", "web-check",
                            "-u", "dashboard", "-P", "wrong", "-t", "#", "-C", "1", "-W", "2"],
                           capture_output=True, text=True, check=False, timeout=10)
    assert wrong.returncode != 0 and "not authorised" in wrong.stderr.lower(), wrong
    with pytest.raises(aiomqtt.MqttError):
        async with aiomqtt.Client("127.0.0.1", venue.ports[9001], transport="websockets",
                                  identifier="web-00000000", timeout=3):
            pass


def test_the_pages_client_ids_have_the_prefix_the_broker_admits() -> None:
    """The pages make their ids (common.js); the broker admits only its clientid_prefixes."""
    page = (WEB_CONF.parents[2] / "controller/web/static/common.js").read_text()
    made = re.findall(r'clientId:\s*"([^"]*)"\s*\+', page)
    admitted = re.findall(r"^clientid_prefixes (\S+)$", WEB_CONF.read_text(), flags=re.M)
    assert made and admitted == ["web-"] and all(p.startswith("web-") for p in made), (made,
                                                                                     admitted)
