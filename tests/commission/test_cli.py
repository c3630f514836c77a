"""``python -m controller commission`` as an installer runs it: the report, the suggested
change shown as a diff, nothing written without --apply, a backup when it is written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from controller.service.config import load

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "deploy" / "controller.example.toml"


def _config(tmp_path: Path) -> Path:
    text = EXAMPLE.read_text(encoding="utf-8")
    for ch, pin in (("beam.hl", 5), ("beam.hr", 6)):
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
    pins = load(config).gpio.pins
    assert (pins["beam.hl"], pins["beam.hr"]) == (6, 5)


def test_commission_refuses_the_sim_backend_and_names_what_to_do(tmp_path: Path) -> None:
    config = _config(tmp_path)
    config.write_text('backend = "sim"\n' + config.read_text())  # (the example names none)
    run = _commission("--config", str(config), "--out", str(tmp_path / "s"))
    assert run.returncode == 2
    assert "--simulate" in run.stderr
    bad = _commission("--config", str(config), "--simulate", "--swap", "beam.hl")
    assert bad.returncode == 2 and "two channels" in bad.stderr
