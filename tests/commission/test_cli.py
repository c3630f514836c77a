"""``python -m controller commission`` as an installer runs it: the report, the suggested
change shown as a diff, nothing written without --apply, a backup when it is written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.commission.wiring import REFERENCE_PINS
from controller.service.config import load_controller_config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "deploy" / "controller.example.toml"


def _config(tmp_path: Path, *, leave_out: str = "") -> Path:
    """The example configuration with [gpio.pins] filled in as the reference wiring (the
    simulated table has a sensor on each channel it names), but ``leave_out``."""
    text = EXAMPLE.read_text(encoding="utf-8")
    for ch, pin in REFERENCE_PINS.items():
        if ch != leave_out:
            text = text.replace(f'# "{ch}" = {pin}', f'"{ch}" = {pin}')
    path = tmp_path / "controller.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _commission(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "commission", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_commission_shows_the_fix_as_a_diff_and_writes_nothing_unasked(tmp_path: Path) -> None:
    config = _config(tmp_path)
    before = config.read_text()
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"), "--simulate",
                      "--swap", "beam.hl,beam.hr", "--chatter", "cushion.h")
    assert run.returncode == 0, run.stderr
    assert "beam.hl: SWAPPED" in run.stdout and "cushion.h: CHATTERING" in run.stdout
    lines = run.stdout.splitlines()
    assert '-"beam.hl" = 5' in lines and '+"beam.hl" = 6' in lines
    assert "Nothing was written" in run.stdout
    assert config.read_text() == before
    for name in ("trace.jsonl", "session.json", "report.txt", "report.json", "suggested.diff",
                 "controller.toml.suggested"):
        assert (tmp_path / "s" / name).is_file(), name
    again = _commission("--config", str(config), "--from", str(tmp_path / "s"), "--out",
                        str(tmp_path / "again"))
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "again" / "report.json").read_text()) == json.loads(
        (tmp_path / "s" / "report.json").read_text())


def test_commission_apply_writes_the_suggested_file_and_keeps_a_backup(tmp_path: Path) -> None:
    config = _config(tmp_path)
    before = config.read_text()
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"), "--simulate",
                      "--swap", "beam.hl,beam.hr", "--apply", "--yes")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "controller.toml.bak").read_text() == before
    pins = load_controller_config(config).gpio.pins
    assert (pins["beam.hl"], pins["beam.hr"]) == (6, 5)


def test_commission_refuses_the_sim_backend_and_names_what_to_do(tmp_path: Path) -> None:
    config = _config(tmp_path)
    config.write_text('backend = "sim"\n' + config.read_text())  # (the example names none)
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"))
    assert run.returncode == 2
    assert "--simulate" in run.stderr
    bad = _commission("--config", str(config), "--simulate", "--swap", "beam.hl")
    assert bad.returncode == 2 and "two channels" in bad.stderr


# ------------------------------------------------------------------ issue 28
def test_simulate_wires_only_what_the_configuration_has_a_pin_for(tmp_path: Path) -> None:
    config = _config(tmp_path, leave_out="beam.fr")
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"), "--simulate")
    assert run.returncode == 0, run.stderr
    assert "beam.fr: DEAD: it has no pin in [gpio.pins]" in run.stdout
    assert 'add "beam.fr" = <its GPIO> to [gpio.pins]' in run.stdout
    assert "Nothing wrong found" not in run.stdout


def test_a_saved_session_on_its_fixed_configuration_suggests_nothing_to_undo(
        tmp_path: Path) -> None:
    config = _config(tmp_path)
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"), "--simulate",
                      "--swap", "beam.hl,beam.hr", "--invert", "beam.sl", "--apply", "--yes")
    assert run.returncode == 0, run.stderr
    fixed = config.read_text()
    again = _commission("--config", str(config), "--from", str(tmp_path / "s"), "--out",
                        str(tmp_path / "again"), "--apply", "--yes")
    assert again.returncode == 0, again.stderr
    assert "beam.hl: SWAPPED" in again.stdout  # the session is read as it was recorded
    assert "Suggested change" not in again.stdout
    assert "already has every setting" in again.stdout
    assert config.read_text() == fixed
    assert not (tmp_path / "again" / "suggested.diff").exists()


def test_apply_with_a_saved_session_writes_what_it_suggests(tmp_path: Path) -> None:
    config = _config(tmp_path)
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"), "--simulate",
                      "--swap", "beam.hl,beam.hr")
    assert run.returncode == 0 and "Nothing was written" in run.stdout, run.stderr
    again = _commission("--config", str(config), "--from", str(tmp_path / "s"), "--out",
                        str(tmp_path / "again"), "--apply", "--yes")
    assert again.returncode == 0, again.stderr
    assert "Written" in again.stdout
    pins = load_controller_config(config).gpio.pins
    assert (pins["beam.hl"], pins["beam.hr"]) == (6, 5)


def test_the_configuration_is_replaced_at_once_and_its_backup_keeps_its_permissions(
        tmp_path: Path) -> None:
    import stat

    config = _config(tmp_path)
    config.chmod(0o640)
    inode = config.stat().st_ino
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"), "--simulate",
                      "--swap", "beam.hl,beam.hr", "--apply", "--yes")
    assert run.returncode == 0, run.stderr
    backup = tmp_path / "controller.toml.bak"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert config.stat().st_ino != inode  # a new file renamed over, never rewritten in place
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize(("backend", "said"), [
    ("serial", "absent: no device"),
    ("serial-ru", "плата на {port}: нет устройства {port} (подключена ли плата?"),
    ("serial-busy", "busy: another program holds"),
    ("gpio", "error: "),
], ids=["board absent", "board absent, in Russian", "board busy", "no GPIO here"])
def test_sensors_out_of_reach_are_a_clear_error(tmp_path: Path, backend: str, said: str) -> None:
    from tests.service.test_boards_not_connected import held_pty

    def run_with(port: str) -> subprocess.CompletedProcess[str]:
        config = tmp_path / "c.toml"
        config.write_text(
            'backend = "gpio"\n[gpio.pins]\n"beam.hl" = 5\n' if backend == "gpio" else
            f'backend = "serial"\n[serial]\nports = ["{port}"]\n', encoding="utf-8")
        return _commission("--config", str(config), "--out", str(tmp_path / "s"),
                           "--board-wait", "1.5", *(["--lang", "ru"] if "ru" in backend else []))

    if backend == "serial-busy":
        with held_pty() as port:
            run = run_with(port)
    else:
        port = str(tmp_path / "usb-board-not-plugged")
        run = run_with(port)
        said = said.format(port=port)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 1, run.stderr
    assert said in run.stderr


def test_report_json_is_json_without_nan(tmp_path: Path) -> None:
    from controller.commission import write_outputs
    from controller.commission.analysis import Report

    report = Report(clocks={"board": {"drift_ppm": float("nan"), "offset": float("inf")}},
                    ball_return={"drops": 1, "cue_delay_s": [float("nan")]})
    write_outputs(tmp_path, report, None, None)

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in report.json")

    data = json.loads((tmp_path / "report.json").read_text(), parse_constant=refuse)
    assert data["clocks"]["board"] == {"drift_ppm": None, "offset": None}
    assert data["ball_return"]["cue_delay_s"] == [None]


#: Latin words a Russian report may hold: channel ids and configuration keys (a dot or an
#: underscore), the table-wide channels, GPIO and the values' Python spelling of a list.
_IDS = {"cue", "click", "strike", "GPIO"}


def test_the_terminal_speaks_the_configured_language_or_lang(tmp_path: Path) -> None:
    config = _config(tmp_path)
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"), "--simulate",
                      "--swap", "beam.hl,beam.hr", "--dead", "beam.fr", "--invert", "beam.sl",
                      "--chatter", "cushion.h", "--lang", "ru")
    assert run.returncode == 0, run.stderr
    said, _, diff = run.stdout.partition("Предлагаемое изменение")
    assert diff, run.stdout
    assert "Карта каналов:" in said and "beam.hl: ПЕРЕПУТАН: на его шаг ответил beam.hr." in said
    assert "beam.fr: МОЛЧИТ" in said and "cushion.h: СРАБАТЫВАЕТ САМ" in said
    assert "Ничего не записано; запустите снова с --apply" in diff
    shown = said.replace(str(tmp_path / "s"), "")  # (where the session is saved)
    english = sorted({w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*(?:[._-][A-Za-z0-9]+)*", shown)
                      if w not in _IDS and not {".", "_", "-"} & set(w)})
    assert english == [], english
    assert (tmp_path / "s" / "report.txt").read_text(encoding="utf-8").startswith("Карта каналов:")
    # the configuration's language, when --lang is not given
    config.write_text(config.read_text().replace('language = "en"', 'language = "ru"', 1))
    run = _commission("--config", str(config), "--out", str(tmp_path / "t"), "--simulate")
    assert run.returncode == 0, run.stderr
    assert "Неисправностей не найдено." in run.stdout
    run = _commission("--config", str(config), "--out", str(tmp_path / "u"), "--simulate",
                      "--lang", "en")
    assert "Nothing wrong found." in run.stdout
