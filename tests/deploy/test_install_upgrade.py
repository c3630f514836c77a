"""install.sh upgrading the software (issue 28): a source tree's stale build/ (setuptools builds
there, and a module deleted since would go into the new install) is removed first, and the
script says what it installed: the version it put in, the one it replaced, or that a
wheelhouse held nothing newer. The function runs for real, with a stand-in for the venv's
pip (which records whether build/ was still there when it ran)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.deploy.test_install import SCRIPT

PIP = """#!/bin/bash
# the venv's pip: install records what it saw, show prints the installed version
if [[ "$1" == install ]]; then
    ls -d {source}/build {source}/*.egg-info 2>/dev/null > {app}/pip-saw || true
    echo "$NEW" > {app}/version
fi
"""
PYTHON = """#!/bin/bash
# the venv's python: only `-m pip show`, which exits 1 when nothing is installed, as pip's does
# (this stand-in once always succeeded, and hid that install.sh ended there on a fresh machine:
# test_install_real.py runs the real pip)
[[ -s {app}/version ]] || exit 1
echo "Version: $(cat {app}/version)"
"""


def _install(tmp_path: Path, *, installed: str | None, new: str, wheels: bool = False
             ) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    app, source = tmp_path / "opt", tmp_path / "src"
    (app / "venv" / "bin").mkdir(parents=True)
    stale = source / "build" / "lib" / "controller"
    stale.mkdir(parents=True)
    (stale / "deleted_since.py").write_text("")
    (source / "billiards_table_controller.egg-info").mkdir()
    for name, body in (("pip", PIP), ("python", PYTHON)):
        path = app / "venv" / "bin" / name
        path.write_text(body.format(app=app, source=source))
        path.chmod(0o755)
    if installed:
        (app / "version").write_text(installed + "\n")
    wheelhouse = tmp_path / "wheels"
    wheelhouse.mkdir()
    run = subprocess.run(
        ["bash", "-c", f'source {SCRIPT}; DRY_RUN=0; APP_DIR={app}; SOURCE={source}; '
                       f'WHEELS={wheelhouse if wheels else ""}; NEW={new}; export NEW; '
                       "install_software"],
        capture_output=True, text=True, timeout=30, check=False)
    return run, app, source


@pytest.mark.parametrize(("installed", "new", "said"), [
    (None, "0.2.0", "installed: billiards-table-controller 0.2.0"),
    ("0.1.0", "0.2.0", "upgraded: billiards-table-controller 0.1.0 -> 0.2.0"),
    ("0.2.0", "0.2.0", "reinstalled: billiards-table-controller 0.2.0"),
], ids=["fresh", "upgrade", "same version from source"])
def test_a_source_install_builds_afresh_and_says_what_it_installed(
        tmp_path: Path, installed: str | None, new: str, said: str) -> None:
    run, app, source = _install(tmp_path, installed=installed, new=new)
    assert run.returncode == 0, run.stderr
    assert (app / "pip-saw").read_text() == ""  # no build/ nor egg-info when pip built
    assert not (source / "build").exists()
    assert f"removed the stale build output {source}/build" in run.stdout
    assert said in run.stdout


def test_a_wheelhouse_with_nothing_newer_says_nothing_was_upgraded(tmp_path: Path) -> None:
    run, app, source = _install(tmp_path, installed="0.1.0", new="0.1.0", wheels=True)
    assert run.returncode == 0, run.stderr
    assert "nothing upgraded" in run.stderr and "0.1.0" in run.stderr
    assert (source / "build").exists()  # a wheelhouse install builds nothing here
