"""``python -m controller check``: the configuration, its boards (a real firmware on a pty)
and its broker (a real Mosquitto with passwords) found as they are, in plain words, changing
nothing, and a non-zero exit on a problem (issue 28)."""

from __future__ import annotations

import asyncio
import importlib.util
import io
import subprocess
import sys
from argparse import Namespace
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from controller.service.check import BOARD_S, check_main
from firmware_bridge import protocol as P
from firmware_bridge.sim import SimBoard
from tests.broker import Broker, password_file
from tests.service.test_config_mistakes import WIRED

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Broker]:
    """A Mosquitto that lets in the table's user with its password, no one anonymous."""
    passwords = password_file(tmp_path / "auth", {"club/t1": "secret"})
    broker = Broker(tmp_path / "broker", anonymous=False, extra=f"password_file {passwords}\n")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


def _config(tmp_path: Path, text: str, broker: Broker, password: str = "secret") -> Path:
    path = tmp_path / "controller.toml"
    path.write_text(f'venue = "club"\ntable = "t1"\ndata = "{tmp_path / "data"}"\n{text}\n'
                    f'[mqtt]\nurl = "{broker.url}"\nusername = "club/t1"\n'
                    f'password = "{password}"\n')
    return path


def _check(path: Path, board_s: float = BOARD_S) -> tuple[int, str]:
    out = io.StringIO()
    code = check_main(Namespace(config=str(path)), out, board_s=board_s)
    return code, out.getvalue()


async def _check_async(path: Path, board_s: float = BOARD_S) -> tuple[int, str]:
    return await asyncio.to_thread(_check, path, board_s)  # check runs its own event loop


async def test_a_ready_table_is_found_ready_and_nothing_changes(tmp_path: Path,
                                                                guarded: Broker) -> None:
    with SimBoard() as board:
        path = _config(tmp_path, f'backend = "serial"\n[serial]\nports = ["{board.path}"]',
                       guarded)
        async with aiomqtt.Client(guarded.host, guarded.port, username="club/t1",
                                  password="secret") as watcher:
            await watcher.subscribe("#")
            code, out = await _check_async(path)
            with pytest.raises(TimeoutError):  # the check published nothing
                async with asyncio.timeout(0.5):
                    await anext(watcher.messages)
        assert board.store.saves == 0  # and configured nothing on the board
    assert code == 0, out
    assert f"✓ board {board.uid} on {board.path}: firmware " in out
    assert ", protocol 2, channels beam.hl, beam.hr, beam.sl, beam.sr, beam.fl, beam.fr, cue" in out
    assert "✓ every pocket's beam and every cushion sensor the game needs is there" in out
    assert f"✓ broker mqtt://{guarded.host}:{guarded.port}: connected as club/t1" in out
    assert out.rstrip().endswith("ready: the table sees what the game needs and reaches its broker")
    assert not (tmp_path / "data").exists()  # no journal, no traces


async def test_an_absent_board_and_a_wrong_password_are_each_named(tmp_path: Path,
                                                                    guarded: Broker) -> None:
    port = tmp_path / "usb-Raspberry_Pi_Pico-if00"
    path = _config(tmp_path, f'backend = "serial"\n[serial]\nports = ["{port}"]', guarded,
                   password="wrong")
    # an absent device is named however long it is given (each open fails at once): 1 s here,
    # not the command's 4 s
    code, out = await _check_async(path, board_s=1.0)
    assert code == 1
    assert f"✗ board on {port}: absent: no device {port}" in out
    assert f"✗ broker mqtt://{guarded.host}:{guarded.port}: cannot connect as club/t1:" in out
    assert "problems found: 2" in out


async def test_a_board_held_by_another_program_is_named_busy_with_the_service_to_stop(
        tmp_path: Path, guarded: Broker) -> None:
    # in the table's language: a Russian installer reads which program may hold the port
    from tests.service.test_boards_not_connected import held_pty
    with held_pty() as port:
        path = _config(tmp_path, f'language = "ru"\nbackend = "serial"\n[serial]\n'
                                 f'ports = ["{port}"]', guarded)
        code, out = await _check_async(path, board_s=1.0)
    assert code == 1
    assert (f"✗ плата на {port}: занято: {port} держит другая программа (последовательная "
            f"консоль, mpremote, ModemManager: её назовёт `fuser {port}`); если это служба "
            "самого стола: systemctl stop billiards-controller") in out, out
    assert out.rstrip().endswith("найдено проблем: 1"), out


async def test_a_channel_no_board_carries_must_be_declared_absent(tmp_path: Path,
                                                                  guarded: Broker) -> None:
    beams_only = tuple((i, f"beam.{p}", P.MODE_DIGITAL, 2 + i, 300, 0, 0)
                       for i, p in enumerate(("hl", "hr", "sl", "sr", "fl", "fr")))
    with SimBoard(channels=beams_only) as board:
        path = _config(tmp_path, f'backend = "serial"\n[serial]\nports = ["{board.path}"]\n'
                                 '[fusion]\nabsent = ["cushion.h", "cushion.f", "cushion.lh", '
                                 '"cushion.lf", "cushion.rh"]', guarded)
        code, out = await _check_async(path)
    assert code == 1, out
    assert ("✗ cushion.rf is on no board: wire it, or declare it absent ([fusion] absent = "
            '["cushion.rf"]') in out
    assert "declared absent (asked, never read as nothing): cushion.h, cushion.f" in out
    assert "channels beam.hl, beam.hr, beam.sl, beam.sr, beam.fl, beam.fr\n" in out
    assert [line for line in out.splitlines() if line.startswith("✗")] == [
        '✗ cushion.rf is on no board: wire it, or declare it absent ([fusion] absent = '
        '["cushion.rf"]: the referee is then asked what it would have told)']


def test_a_fresh_install_says_what_to_fill_in(tmp_path: Path, guarded: Broker) -> None:
    code, out = _check(_config(tmp_path, "", guarded))
    assert code == 1
    assert '✗ no backend in ' in out and 'set backend = "gpio" or "serial"' in out


def test_a_configuration_that_blinds_the_table_is_named_and_exits_2(tmp_path: Path,
                                                                    guarded: Broker) -> None:
    path = _config(tmp_path, 'backend = "gpio"\n[fusion]\nmin_block_s = 5', guarded)
    code, out = _check(path)
    assert code == 2
    assert "✗ configuration: " in out and "fusion.min_block_s = 5.0: 5 s is outside" in out


def test_the_command_line_runs_it(tmp_path: Path, guarded: Broker) -> None:
    path = _config(tmp_path, 'backend = "gpio"\n[gpio.pins]\n"beam.fl" = 37', guarded)
    run = subprocess.run([sys.executable, "-m", "controller", "check", "--config", str(path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert 'gpio.pins."beam.fl" = 37: 37 is no GPIO (BCM numbers are 0–27): header pin 37 is ' \
           "GPIO 26" in run.stdout


@pytest.mark.skipif(importlib.util.find_spec("lgpio") is not None, reason="lgpio is installed")
def test_a_gpio_table_on_a_machine_without_gpio_says_so(tmp_path: Path, guarded: Broker) -> None:
    pins = "\n".join(f'"{ch}" = {pin}' for ch, pin in WIRED.items())
    code, out = _check(_config(tmp_path, f'backend = "gpio"\n[gpio.pins]\n{pins}', guarded))
    assert code == 1, out
    assert "✓ GPIO pins: beam.hl on 5, beam.hr on 6" in out
    assert "✗ GPIO: lgpio is not installed" in out
