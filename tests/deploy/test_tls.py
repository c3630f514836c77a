"""The install's own broker files, for real: the certificates ``install.sh --with-broker``
makes (real ``openssl``) pass strict X.509 verification (``VERIFY_X509_STRICT``, what
Python 3.13 turns on by default) for every name a client may use, on MQTT over TLS and on
websockets over TLS, and its browsers' broker bridges to its venue broker with the password
it generated."""

from __future__ import annotations

import asyncio
import socket
import ssl
import subprocess
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from tests.deploy.test_install import install
from tests.deploy.venue import Venue, add_users, password, start_brokers

ETC = "etc/mosquitto"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Venue]]:
    root = tmp_path_factory.mktemp("installed")
    run = install(root / "root", "--with-broker", "--no-apt")
    assert run.returncode == 0, run.stderr
    etc = root / "root" / ETC
    add_users(etc / "billiards.passwd", ("club/t1", "dashboard"))
    venue = start_brokers(root / "run", etc)  # waits for the bridge: its password works
    try:
        yield etc, venue
    finally:
        venue.stop()


def extensions(certificate: Path) -> str:
    return subprocess.run(["openssl", "x509", "-in", str(certificate), "-noout", "-text"],
                          capture_output=True, text=True, check=True).stdout


def strict(ca: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(ca))
    context.verify_flags |= ssl.VERIFY_X509_STRICT
    return context


def test_the_ca_may_sign_certificates_and_the_server_certificate_serves_tls(
        installed: tuple[Path, Venue]) -> None:
    etc, _ = installed
    ca = " ".join(extensions(etc / "certs/ca.crt").split())
    assert "X509v3 Basic Constraints: critical CA:TRUE" in ca
    assert "X509v3 Key Usage: critical Certificate Sign, CRL Sign" in ca
    server = " ".join(extensions(etc / "certs/server.crt").split())
    assert "X509v3 Basic Constraints: critical CA:FALSE" in server
    assert "X509v3 Key Usage: critical Digital Signature" in server
    assert "X509v3 Extended Key Usage: TLS Web Server Authentication" in server
    host = socket.gethostname()
    for name in (f"DNS:{host},", f"DNS:{host}.local,", "DNS:localhost,", "IP Address:127.0.0.1"):
        assert name in server
    assert oct((etc / "certs/ca.key").stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("name", ["localhost", "127.0.0.1", socket.gethostname()])
async def test_strict_clients_accept_the_broker_over_tls_by_each_name(
        installed: tuple[Path, Venue], name: str) -> None:
    etc, venue = installed
    context = strict(etc / "certs/ca.crt")
    port = venue.ports[8883]
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context,
                                                   server_hostname=name)
    writer.close()
    await writer.wait_closed()
    async with aiomqtt.Client("127.0.0.1", port, username="dashboard",
                              password=password("dashboard"), tls_context=context,
                              identifier="tls-test") as client:
        await client.subscribe("billiards/club/t1/state", qos=1)


async def test_browsers_get_wss_with_the_same_certificate(installed: tuple[Path, Venue]) -> None:
    etc, venue = installed
    context = strict(etc / "certs/ca.crt")
    async with aiomqtt.Client("127.0.0.1", venue.ports[9443], username="dashboard",
                              password=password("dashboard"), transport="websockets",
                              tls_context=context, identifier="web-0000a11c") as dash:
        await dash.subscribe("billiards/club/t1/state", qos=1)
        async with aiomqtt.Client("127.0.0.1", venue.ports[8883], username="club/t1",
                                  password=password("club/t1"), tls_context=context) as table:
            await table.publish("billiards/club/t1/state", b'{"v": 1}', qos=1, retain=False)
        async with asyncio.timeout(5):
            message = await anext(aiter(dash.messages))
    assert message.payload == b'{"v": 1}'


async def test_a_client_without_the_venue_ca_is_refused(installed: tuple[Path, Venue]) -> None:
    _, venue = installed
    with pytest.raises(ssl.SSLCertVerificationError):
        await asyncio.open_connection("127.0.0.1", venue.ports[8883],
                                      ssl=ssl.create_default_context(), server_hostname="localhost")
