"""Configuration and credentials: a bad one stops the service at start, saying why."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from controller.__main__ import parser
from controller.service.config import ConfigError, load_controller_config, validate
from controller.service.shell import overrides_of
from tests.broker import Broker, password_file
from tests.service.conftest import make_config, running

ROOT = Path(__file__).resolve().parents[2]
#: Mosquitto started by root drops to the user "mosquitto", who cannot read pytest's tmp_path.


def run(*argv: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "run", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_a_bad_config_stops_the_service_naming_key_value_and_why(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('venue = "Club A"\n[mqtt]\nkeepalive = "soon"\nurl = "http://x"\n[journal]\nsnyc = 1\n')
    done = run("--config", str(path), "--data", str(tmp_path / "data"))
    assert done.returncode == 2
    err = done.stderr
    assert str(path) in err
    assert "venue = 'Club A'" in err and "pattern" in err
    assert "mqtt.keepalive = 'soon'" in err and "integer" in err
    assert "mqtt.url = 'http://x'" in err and "mqtts://" in err
    assert "journal.snyc = 1: unknown setting" in err
    assert "Traceback" not in err


def test_a_config_that_is_not_toml_or_not_there_is_said_so(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("venue = \n")
    assert "not valid TOML" in run("--config", str(broken)).stderr
    assert "cannot read" in run("--config", str(tmp_path / "missing.toml")).stderr


def test_a_bad_fusion_setting_is_named():
    with pytest.raises(ConfigError, match="fusion = .*unknown fusion setting 'quiet'"):
        validate({"fusion": {"quiet": 2}})


def test_the_example_config_is_valid_and_documents_every_setting():
    example = ROOT / "deploy" / "controller.example.toml"
    config = load_controller_config(example)
    assert config.base == "billiards/club/t1"
    text = example.read_text()

    def keys(model, prefix=""):
        for name in type(model).model_fields:
            value = getattr(model, name)
            if isinstance(value, BaseModel):
                yield from keys(value, f"{prefix}{name}.")
            else:
                yield name
    missing = [k for k in keys(config) if k not in text]
    assert not missing


def test_flags_override_the_file_and_credentials_come_from_the_url(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('venue = "club"\ntable = "t1"\n[mqtt]\nurl = "mqtt://broker:1883"\nusername = "u"\n')
    args = parser().parse_args(["run", "--config", str(path), "--table", "t9", "--backend", "sim",
                                "--broker", "mqtts://ann:p%40ss@example.org", "--data", str(tmp_path)])
    config = load_controller_config(args.config, overrides_of(args))
    assert config.table == "t9" and config.data == tmp_path
    broker = config.broker()
    assert (broker.host, broker.port, broker.tls, broker.username, broker.password) == (
        "example.org", 8883, True, "ann", "p@ss")
    assert overrides_of(argparse.Namespace())["venue"] is None


def test_a_user_the_broker_refuses_stops_the_service_with_a_clear_error(tmp_path):
    pw = password_file(tmp_path / "auth", {"table": "right"})
    broker = Broker(tmp_path / "broker", extra=f"password_file {pw}", anonymous=False)
    broker.start()
    try:
        done = run("--broker", f"mqtt://table:wrong@127.0.0.1:{broker.port}", "--backend", "sim",
                   "--data", str(tmp_path / "data"))
        anonymous = run("--broker", broker.url, "--backend", "sim", "--data", str(tmp_path / "d2"))
    finally:
        broker.stop()
    assert done.returncode == 2
    assert f"the broker at mqtt://127.0.0.1:{broker.port} refused user 'table'" in done.stderr
    assert "wrong" not in done.stderr  # the password is never printed
    assert anonymous.returncode == 2 and "refused anonymous clients" in anonymous.stderr


async def test_a_user_the_broker_knows_is_served(tmp_path):
    pw = password_file(tmp_path / "auth", {"table": "right", "app": "app"})
    broker = Broker(tmp_path / "broker", extra=f"password_file {pw}", anonymous=False)
    broker.start()
    try:
        config = make_config(tmp_path, broker, mqtt={"username": "table", "password": "right"})
        async with running(config) as service:
            assert service.link.connected
    finally:
        broker.stop()
