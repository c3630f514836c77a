"""The runner: junk and stale payloads change nothing; the standalone command runs the adapters;
the example configuration documents every key."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from controller.adapters import Adapters, AdaptersConfig, load_config
from controller.adapters.config import AwtrixConfig, TextDisplayConfig
from tests.adapters.harness import B, Device, client, device_client, rig
from tests.broker import Broker

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "deploy" / "adapters.example.toml"
CONFIG = AdaptersConfig(text=[TextDisplayConfig(panel="2x16", format="text")])


async def test_junk_on_the_state_topic_is_ignored_and_the_adapters_keep_going(broker: Broker) -> None:
    async with rig(broker, CONFIG, f"{B}/display/2x16") as (table, device):
        _, idle, _ = await device.next()
        async with client(broker, "junk") as junk:
            for payload in (b"not json", b"[1, 2]", b"", b'{"players": 7}'):
                await junk.publish(f"{B}/state", payload, qos=1)
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        seen = await device.next()
        await device.nothing(0.2)
    # the object with a wrong "players" reads as an idle table (already shown: not resent)
    assert seen[1] == ">ANN" + " " * 11 + "0\n" + " BOB" + " " * 11 + "0"


def test_snapshots_are_taken_in_order_even_when_seq_starts_again() -> None:
    adapters = Adapters(B, CONFIG)
    state = {"seq": 10, "status": "in_play", "game": "pyramid", "to_shoot": 0,
             "players": [{"name": "Ann", "score": 1}, {"name": "Bob", "score": 0}]}
    [first] = adapters.receive(f"{B}/state", _json(state))
    assert adapters.receive(f"{B}/state", _json(state)) == []  # nothing new to show
    [second] = adapters.receive(f"{B}/state", _json({**state, "seq": 1, "to_shoot": 1}))
    assert (first.payload, second.payload) == (
        ">ANN" + " " * 11 + "1\n BOB" + " " * 11 + "0", " ANN" + " " * 11 + "1\n>BOB" + " " * 11 + "0")
    assert adapters.receive("elsewhere/state", _json(state)) == []
    assert adapters.subscriptions() == [f"{B}/state", f"{B}/event"]


def _json(data: dict[str, Any]) -> bytes:
    import json

    return json.dumps(data).encode()


async def test_the_standalone_command_drives_a_clock(broker: Broker, tmp_path: Path) -> None:
    config = tmp_path / "adapters.toml"
    config.write_text('[[awtrix]]\nprefix = "clock"\nname_chars = 1\n')
    async with client(broker, "table") as table, device_client(broker, "clock") as clock:
        await clock.subscribe("clock/custom/billiards", qos=1)
        state = {"v": 1, "seq": 3, "ts": 0.0, "game": "pyramid", "status": "in_play",
                 "to_shoot": 0, "players": [{"name": "Ann", "score": 2}, {"name": "Bob", "score": 1}]}
        await table.publish(f"{B}/state", _json(state), qos=1, retain=True)
        proc = subprocess.Popen(
            [sys.executable, "-m", "controller.adapters", "--broker", broker.url, "--venue", "club",
             "--table", "t1", "--config", str(config)], cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE)
        try:
            topic, payload, _ = await Device(clock).next(timeout=10)
            assert [f["t"] for f in payload["text"]] == ["A ", "2", ":", "1", " B"]
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                code = await asyncio.to_thread(proc.wait, 10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise AssertionError(proc.stderr.read() if proc.stderr else "") from None
        assert code == 0, proc.stderr.read() if proc.stderr else ""


def test_the_standalone_command_refuses_a_bad_config(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[awtrix]]\napp = "no prefix"\n')
    run = subprocess.run([sys.executable, "-m", "controller.adapters", "--venue", "club",
                          "--table", "t1", "--config", str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 2 and "prefix" in run.stderr


def _fields(model: type[BaseModel], where: str) -> set[str]:
    out = set()
    for name, field in model.model_fields.items():
        out.add(f"{where}.{name}")
        for sub in (field.annotation, *getattr(field.annotation, "__args__", ())):
            if isinstance(sub, type) and issubclass(sub, BaseModel):
                out |= _fields(sub, f"{where}.{name}")
    return out


def _documented(text: str) -> set[str]:
    """Returns section.key for every key in the example, set or commented out."""
    found, section = set(), ""
    for line in text.splitlines():
        bare = line.lstrip("# ").strip()
        if bare.startswith("["):
            section = bare.strip("[]").split("]")[0]
            found.add(section)
        elif "=" in bare and not line.startswith("#   ") and bare.split("=")[0].strip().isidentifier():
            found.add(f"{section}.{bare.split('=')[0].strip()}")
    return found


def test_the_example_configuration_is_valid_and_documents_every_key() -> None:
    config = load_config(EXAMPLE)
    assert config.awtrix and config.text and config.wled and config.homeassistant
    tomllib.loads(EXAMPLE.read_text())
    expected = set()
    for name, field in AdaptersConfig.model_fields.items():
        model = field.annotation
        args = getattr(model, "__args__", ())
        inner = next((a for a in (model, *args) if isinstance(a, type) and issubclass(a, BaseModel)),
                     None)
        expected |= _fields(inner, name) if inner is not None else {f".{name}"}  # a top-level key
    assert expected - _documented(EXAMPLE.read_text()) == set()
    assert AwtrixConfig(prefix="x") == config.awtrix[0].model_copy(update={"prefix": "x"})
