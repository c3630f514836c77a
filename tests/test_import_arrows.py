"""The house's import arrows (README, "How it is built"): a test walks every import and fails on
any other.

``vocabulary`` (the table's ids) is the one leaf every package may import; it imports nothing
of ours.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OURS = {"controller", "rules", "hardware", "firmware_bridge", "vocabulary"}
ALLOWED = {
    "controller": {"controller", "rules", "hardware", "firmware_bridge", "vocabulary"},
    "firmware_bridge": {"firmware_bridge", "hardware", "vocabulary"},
    "hardware": {"hardware", "vocabulary"},
    "rules": {"rules", "vocabulary"},
    "vocabulary": {"vocabulary"},
}
# The referee core (and the vocabulary it imports) does no I/O, reads no clock and logs nothing;
# these would let it.
RULES_FORBIDDEN = {
    "asyncio", "logging", "time", "socket", "os", "io", "threading", "random", "datetime",
    "subprocess", "pathlib", "sqlite3", "serial", "paho", "aiomqtt", "gpiozero", "pydantic",
}


def imported_modules(path: Path, package: str) -> list[tuple[int, str]]:
    """Returns (line, top-level module) for every import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: stays inside this package
                found.append((node.lineno, package))
            elif node.module:
                found.append((node.lineno, node.module.split(".")[0]))
    return found


def package_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_the_house_allows(package: str) -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in package_files(package)
        for line, module in imported_modules(path, package)
        if module in OURS and module not in ALLOWED[package]
    ]
    assert not bad, "forbidden arrows:\n" + "\n".join(bad)


@pytest.mark.parametrize("package", ["rules", "vocabulary"])
def test_rules_imports_no_io_clock_or_logging(package: str) -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in package_files(package)
        for line, module in imported_modules(path, package)
        if module in RULES_FORBIDDEN
    ]
    assert not bad, "the referee core must stay pure:\n" + "\n".join(bad)


def test_the_walker_sees_a_forbidden_arrow(tmp_path: Path) -> None:
    # The checker itself must catch an arrow, or the tests above prove nothing.
    sample = tmp_path / "m.py"
    sample.write_text("import controller.service\nfrom hardware import x\nfrom . import y\n")
    modules = {m for _, m in imported_modules(sample, "rules")}
    assert modules == {"controller", "hardware", "rules"}


def test_every_package_has_code() -> None:
    for package in ALLOWED:
        assert package_files(package), f"{package}/ is empty"
