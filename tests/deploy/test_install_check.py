"""install.sh checks the table with ``python -m controller check`` before it starts the
service, and a dry run shows that command (issue 28)."""

from __future__ import annotations

from pathlib import Path

from tests.deploy.test_install import commands, install


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
