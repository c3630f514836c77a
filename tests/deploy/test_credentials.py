"""Broker passwords come from files or systemd credentials, never from a command line: the
units pass none, the service and the adapters read theirs from a file (the adapters, for
real, log in to the shipped venue broker with it, and their command line holds no secret)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import aiomqtt
import pytest

from controller.service.config import ConfigError, validate
from controller.wire.connection import read_password
from tests.deploy.test_install import unit_keys
from tests.deploy.venue import Venue, password

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_a_password_is_read_from_its_file_or_the_systemd_credential(tmp_path: Path) -> None:
    secret = tmp_path / "pw"
    secret.write_text("s#cr/t:@x\n")
    assert read_password(secret) == "s#cr/t:@x"
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    assert read_password(env={"CREDENTIALS_DIRECTORY": str(credentials)}) is None
    (credentials / "mqtt-password").write_text("from-systemd")
    assert read_password(env={"CREDENTIALS_DIRECTORY": str(credentials)}) == "from-systemd"
    secret.write_text("")
    assert read_password(secret) is None  # an empty file: no password
    with pytest.raises(OSError):
        read_password(tmp_path / "missing")


def test_the_service_takes_its_password_from_mqtt_password_file(tmp_path: Path) -> None:
    secret = tmp_path / "mqtt.password"
    secret.write_text("s#cr/t\n")
    config = validate({"mqtt": {"url": "mqtt://broker:1883", "username": "club/t1",
                                "password_file": str(secret)}})
    broker = config.broker()
    assert (broker.username, broker.password) == ("club/t1", "s#cr/t")
    secret.unlink()
    with pytest.raises(ConfigError, match="mqtt.password_file") as error:
        config.broker()
    assert "s#cr/t" not in str(error.value)


@pytest.mark.parametrize("unit", ["billiards-controller.service", "billiards-adapters.service"])
def test_the_units_hand_the_password_over_as_a_credential_not_an_argument(unit: str) -> None:
    service = unit_keys(DEPLOY / unit)["Service"]
    [credential] = service["LoadCredential"]
    assert credential.startswith("mqtt-password:/etc/billiards-controller/")
    assert "PASSWORD" not in service["ExecStart"][-1].upper()
    assert "SECRET" not in (DEPLOY / unit).read_text()


async def test_the_adapters_log_in_with_a_password_file_kept_off_their_command_line(
        venue: Venue, tmp_path: Path) -> None:
    secret = tmp_path / "adapters.password"
    secret.write_text(password("adapters-t1") + "\n")
    secret.chmod(0o600)
    config = tmp_path / "adapters.toml"
    config.write_text('[[text]]\npanel = "2x16"\n')
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.adapters",
         "--broker", f"mqtt://adapters-t1@127.0.0.1:{venue.ports[1883]}",
         "--password-file", str(secret), "--venue", "club", "--table", "t1",
         "--config", str(config)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ})
    try:
        state = {"v": 1, "seq": 1, "ts": 1.0, "game": "ten-ball", "status": "in_play",
                 "to_shoot": 0, "players": [{"name": "Ann", "score": 3, "games": 0},
                                            {"name": "Bob", "score": 1, "games": 0}]}
        async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="dashboard",
                                  password=password("dashboard")) as dash:
            await dash.subscribe("billiards/club/t1/display/2x16", qos=1)
            async with aiomqtt.Client("127.0.0.1", venue.ports[1883], username="club/t1",
                                      password=password("club/t1")) as table:
                async with asyncio.timeout(20):
                    messages = aiter(dash.messages)
                    while True:  # until the adapters are connected and subscribed
                        await table.publish("billiards/club/t1/state", json.dumps(state), qos=1)
                        try:
                            async with asyncio.timeout(0.5):
                                message = await anext(messages)
                                break
                        except TimeoutError:
                            assert process.poll() is None, process.stdout
        assert "ANN" in json.loads(message.payload)["text"]  # type: ignore[arg-type]
        cmdline = Path(f"/proc/{process.pid}/cmdline").read_bytes()
        assert password("adapters-t1").encode() not in cmdline
    finally:
        process.terminate()
        process.wait(10)


#: a URL with a password in it (user:pass@), or a Mosquitto client given -P
PASSWORD_ON_A_COMMAND_LINE = re.compile(
    r"\w+://\[?[\w%.\-]+:[\w%.\-]+@|\bmosquitto_(?:pub|sub|rr)\b[^\n`]*\s-P\s")


def test_no_document_shows_a_password_on_a_command_line() -> None:
    """Issue 33, finding 11: docs/interfaces.md documented --broker mqtt://user:pass@…"""
    root = DEPLOY.parent
    documents = [root / "README.md", *root.glob("docs/*.md"), *root.glob("*/README.md")]
    found = [f"{path.relative_to(root)}:{n}: {line.strip()}" for path in documents
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if PASSWORD_ON_A_COMMAND_LINE.search(line)]
    assert found == []
    assert PASSWORD_ON_A_COMMAND_LINE.search("--broker mqtt://[user:pass@]host:port")
    assert PASSWORD_ON_A_COMMAND_LINE.search("mosquitto_sub -h x -u dashboard -P secret -t '#'")
