"""Configurations that would blind the table are refused before anything starts, naming the
key, the value and why (issue 28): a table of the mistakes an installer makes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.service.config import ConfigError, ready, validate

ROOT = Path(__file__).resolve().parents[2]
#: docs/wiring.md's reference wiring: every beam and cushion sensor on a pin.
WIRED: dict[str, int | str] = {
    "beam.hl": 5, "beam.hr": 6, "beam.sl": 13, "beam.sr": 19, "beam.fl": 26, "beam.fr": 21,
    "cushion.h": 17, "cushion.f": 27, "cushion.lh": 22, "cushion.lf": 23, "cushion.rh": 24,
    "cushion.rf": 25}


def _without(*channels: str) -> dict[str, int | str]:
    return {ch: pin for ch, pin in WIRED.items() if ch not in channels}


def _gpio(pins: dict[str, int | str], **sections: Any) -> dict[str, Any]:
    return {"backend": "gpio", "gpio": {"pins": pins}, **sections}


MISTAKES = [
    pytest.param(_gpio(_without("beam.fr")),
                 r'gpio.pins: beam.fr has no pin: wire it \("beam.fr" = its BCM number\) or '
                 r'declare it absent \(\[fusion\] absent = \["beam.fr"\]', id="a pocket not wired"),
    pytest.param(_gpio(WIRED, fusion={"min_block_s": 5}),
                 r"fusion.min_block_s = 5.0: 5 s is outside 0.5 ms–50 ms; it is in seconds: "
                 r"5 ms would be 0.005", id="milliseconds typed as seconds"),
    pytest.param(_gpio(WIRED, fusion={"noise_s": 0.01, "min_block_s": 0.008}),
                 r"fusion.noise_s = 0.01: 10 ms is not below fusion.min_block_s = 0.008 \(8 ms\)",
                 id="noise above the shortest block"),
    pytest.param(_gpio(WIRED, fusion={"quiet_s": 0}),
                 r"fusion.quiet_s = 0.0: 0 ms is outside 200 ms–30 s", id="no quiet at all"),
    pytest.param({"backend": "serial", "serial": {"ports": ["/dev/ttyACM0"],
                                                  "invert": ["beam.HL"]}},
                 r"serial.invert = \['beam.HL'\]: unknown channel 'beam.HL'",
                 id="an unknown channel in serial.invert"),
    pytest.param(_gpio(WIRED) | {"gpio": {"pins": WIRED, "invert": ["beam.HL"]}},
                 r"gpio.invert = \['beam.HL'\]: unknown channel 'beam.HL'",
                 id="an unknown channel in gpio.invert"),
    pytest.param(_gpio({"beam.hl": 5}) | {"gpio": {"pins": {"beam.hl": 5}, "invert": ["beam.hr"]}},
                 r"gpio.invert = \['beam.hr'\]: invert names channels with no pin: beam.hr",
                 id="invert names a channel with no pin"),
    pytest.param(_gpio(_without("beam.fr") | {"beam.fr": "GPIO26"}),
                 r'gpio.pins."beam.fr" = \'GPIO26\': GPIO 26 is already "beam.fl"\'s pin',
                 id="a pin used twice"),
    pytest.param(_gpio(_without("cushion.f") | {"cushion.f": "BOARD11"}),
                 r'gpio.pins."cushion.f" = \'BOARD11\': GPIO 17 is already "cushion.h"\'s pin',
                 id="a pin used twice under two names"),
    pytest.param(_gpio(WIRED | {"beam.xx": 4}),
                 r'gpio.pins."beam.xx" = 4: unknown channel \'beam.xx\'', id="an unknown channel"),
    pytest.param(_gpio(_without("beam.fl") | {"beam.fl": 37}),
                 r'gpio.pins."beam.fl" = 37: 37 is no GPIO \(BCM numbers are 0–27\): header pin '
                 r'37 is GPIO 26; write 26 \(the BCM number\) or "BOARD37"',
                 id="a header pin number where a BCM number is expected"),
    pytest.param(_gpio(_without("beam.fl") | {"beam.fl": 39}),
                 r'gpio.pins."beam.fl" = 39: 39 is no GPIO \(BCM numbers are 0–27\): header pin '
                 r"39 is ground", id="a ground pin"),
    pytest.param(_gpio(_without("beam.fl") | {"beam.fl": "BOARD6"}),
                 r'gpio.pins."beam.fl" = \'BOARD6\': header pin 6 is ground, not a GPIO',
                 id="a header ground pin by name"),
    pytest.param(_gpio(_without("beam.fl") | {"beam.fl": "pin 26"}),
                 r"gpio.pins.\"beam.fl\" = 'pin 26': 'pin 26' is not a pin name",
                 id="an invalid pin"),
    pytest.param(_gpio(WIRED | {"ball_id": 4}),
                 r'gpio.pins."ball_id" = 4: the identity reader is a serial device, not a pin',
                 id="a reader on a pin"),
    pytest.param(_gpio(WIRED, fusion={"absent": ["beam.fl"]}),
                 r"fusion.absent = \['beam.fl'\]: beam.fl cannot be absent and wired",
                 id="absent and wired"),
    pytest.param(_gpio(WIRED, fusion={"absent": ["beam.fx"]}),
                 r"fusion = .*'absent': unknown sensor channel 'beam.fx'",
                 id="an unknown channel declared absent"),
    pytest.param(_gpio({}), r"gpio.pins: the gpio backend needs at least one channel = pin",
                 id="no pins at all"),
    pytest.param({"backend": "serial"}, r"serial.ports: the serial backend needs at least one port",
                 id="no ports at all"),
]


@pytest.mark.parametrize(("raw", "message"), MISTAKES)
def test_a_configuration_that_blinds_the_table_is_refused_naming_the_key(
        raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ready(validate(raw, "controller.toml"), "controller.toml")


@pytest.mark.parametrize("raw", [
    _gpio(WIRED),
    _gpio(_without("beam.fr", "cushion.lf"), fusion={"absent": ["beam.fr", "cushion.lf"]}),
    _gpio(_without(*[ch for ch in WIRED if ch.startswith("cushion.")]),
          fusion={"cushion_sensors": False}),
    _gpio(_without("cushion.f") | {"cushion.f": "BOARD13", "cue": "GPIO4"}),  # BOARD13: GPIO 27
], ids=["every channel wired", "two declared absent", "no cushion sensors", "pins by name"])
def test_a_table_that_sees_what_the_game_needs_is_ready(raw: dict[str, Any]) -> None:
    assert ready(validate(raw)) is not None


def test_run_refuses_a_blind_table_before_the_journal_or_the_pages_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = tmp_path / "controller.toml"
    pins = "\n".join(f'"{ch}" = {pin}' for ch, pin in _without("beam.sl").items())
    config.write_text(f'backend = "gpio"\ndata = "{data}"\n[web]\nport = 0\n[gpio.pins]\n{pins}\n')
    run = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(config)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert f"error: {config}: gpio.pins: beam.sl has no pin" in run.stderr
    assert "dashboard:" not in run.stdout
    assert not data.exists()  # no journal, no traces
