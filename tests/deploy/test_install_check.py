"""install.sh checks the table with ``python -m controller check`` before it starts the
service, and a dry run shows that command (issue 28)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.deploy.test_install import SCRIPT, commands, fake_bin, install


def test_the_install_checks_the_table_before_starting_the_service(tmp_path: Path) -> None:
    run = install(tmp_path)
    assert run.returncode == 0, run.stderr
    done = commands(run)
    check = ("/opt/billiards-controller/venv/bin/python -m controller check --config "
             "/etc/billiards-controller/controller.toml")
    assert check in done
    assert done.index(check) < done.index("systemctl start billiards-controller.service")


def test_the_unit_does_not_restart_a_refused_configuration() -> None:
    # run exits 2 when it refuses the configuration (naming the key): ten restarts fix nothing
    unit = (Path(__file__).resolve().parents[2] / "deploy" / "billiards-controller.service")
    assert "RestartPreventExitStatus=2" in unit.read_text().splitlines()


@pytest.mark.parametrize(("ready", "started"), [(0, False), (1, True)])
def test_the_service_is_started_only_once_the_table_passed_check(
        tmp_path: Path, ready: int, started: bool) -> None:
    # enable_service as install.sh calls it after check_install, systemd's answers faked
    # (is-active: not running): READY is what check_install set from check's exit status
    env = fake_bin(tmp_path / "bin", systemctl="exit 3")
    run = subprocess.run(["bash", "-c", f"source {SCRIPT}; DRY_RUN=1; READY={ready}; "
                                        "enable_service"],
                         capture_output=True, text=True, timeout=30, check=False, env=env)
    assert run.returncode == 0, run.stderr
    assert ("would run: systemctl start billiards-controller.service" in run.stdout) == started
    assert ("not starting the service: the table is not ready" in run.stdout) == (not started)
    assert "would run: systemctl enable billiards-controller.service" in run.stdout
