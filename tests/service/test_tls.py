"""mqtts://: the service talks TLS to a broker whose certificate it checks."""

from __future__ import annotations

import ssl
import subprocess
from pathlib import Path

import aiomqtt
import pytest

from tests.broker import Broker
from tests.service.conftest import make_config, running


def certificates(d: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 it signed."""
    d.mkdir(parents=True, exist_ok=True)
    ext = d / "ext.cnf"
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    steps = [
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
         "-days", "1", "-subj", "/CN=test-ca"],
        ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
         "-subj", "/CN=127.0.0.1"],
        ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
         "-out", "server.crt", "-days", "1", "-extfile", "ext.cnf"],
    ]
    for step in steps:
        subprocess.run(["openssl", *step], cwd=d, check=True, capture_output=True)
    return d / "ca.crt", d / "server.crt", d / "server.key"


@pytest.mark.skipif(not Path("/usr/bin/openssl").exists(), reason="openssl is not installed")
async def test_the_service_publishes_over_tls(tmp_path):
    ca, cert, key = certificates(tmp_path / "pki")
    broker = Broker(tmp_path / "broker", extra=f"cafile {ca}\ncertfile {cert}\nkeyfile {key}")
    broker.start()
    try:
        config = make_config(tmp_path, broker, mqtt={"url": f"mqtts://127.0.0.1:{broker.port}",
                                                     "tls": {"ca_file": str(ca)}})
        async with running(config) as service:
            assert service.link.connected and service.link.broker.tls
            context = ssl.create_default_context(cafile=str(ca))
            async with aiomqtt.Client("127.0.0.1", broker.port, tls_context=context) as sub:
                await sub.subscribe("billiards/club/t1/status", qos=1)
                message = await anext(sub.messages)
                assert b'"online"' in message.payload
    finally:
        broker.stop()


@pytest.mark.skipif(not Path("/usr/bin/openssl").exists(), reason="openssl is not installed")
async def test_a_broker_certificate_we_do_not_trust_stops_the_service_with_a_clear_error(tmp_path):
    from controller.service.mqtt import UntrustedBroker
    from controller.service.shell import Service
    from controller.sim.backend import sim_backend
    _, cert, key = certificates(tmp_path / "pki")
    other_ca, _, _ = certificates(tmp_path / "other")
    broker = Broker(tmp_path / "broker", extra=f"cafile {other_ca}\ncertfile {cert}\nkeyfile {key}")
    broker.start()
    try:
        config = make_config(tmp_path, broker, mqtt={"url": f"mqtts://127.0.0.1:{broker.port}",
                                                     "tls": {"ca_file": str(other_ca)}})
        with pytest.raises(ExceptionGroup) as caught:
            await Service(config, backend=sim_backend).run()
    finally:
        broker.stop()
    (error,) = caught.value.exceptions
    assert isinstance(error, UntrustedBroker) and "certificate" in str(error)
