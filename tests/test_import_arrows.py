"""The house's import arrows are import-linter contracts (``[tool.importlinter]`` in
pyproject.toml): the packages' layers, the rooms of ``controller``, and a referee core that
imports nothing that does I/O, reads a clock or logs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "rules", "tournament", "hardware", "firmware_bridge", "vocabulary")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """Runs import-linter on ``tree`` (its packages, its pyproject.toml)."""
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tree, capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree)})


def test_every_contract_is_kept() -> None:
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    ("rules/errors.py", "import time", "the referee core does no I/O"),
    ("rules/errors.py", "import hardware.events", "the referee knows nothing of the sensors"),
    ("tournament/errors.py", "import datetime", "the referee core does no I/O"),
    ("tournament/errors.py", "import controller.record", "tournaments: controller → tournament"),
    ("hardware/events.py", "import rules.facts", "the sensors know nothing of the referee"),
    ("hardware/events.py", "import firmware_bridge.protocol", "sensors: controller"),
    ("controller/pipeline/fusion/shots.py", "import controller.service.core", "controller's rooms"),
    ("controller/web/options.py", "import controller.service.config", "controller's rooms"),
    ("controller/sim/physics/truth.py", "import controller.sim.simulator", "no circle"),
    ("controller/sim/physics/truth.py", "import rules.facts", "the physics oracle rules apart"),
])
def test_a_wrong_arrow_breaks_its_contract(tmp_path: Path, module: str, line: str,
                                           contract: str) -> None:
    # The contracts must catch an arrow, or the test above proves nothing.
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.html", "static"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    target = tmp_path / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    run = lint_imports(tmp_path)
    assert run.returncode != 0
    broken = run.stdout[run.stdout.index("Broken contracts"):]
    assert contract in broken, run.stdout
