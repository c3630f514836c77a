"""The house's shape (issues 26, 37): no class a reader must hold whole and no function a
reader must scroll through, in any shipped package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Every shipped package, the board firmware (MicroPython) included.
PACKAGES = ("controller", "rules", "tournament", "hardware", "firmware_bridge", "vocabulary")
#: About 250 lines or 20 attributes a class (the house style), 150 lines a function.
MAX_LINES = 250
MAX_ATTRIBUTES = 20
MAX_FUNCTION_LINES = 150


def class_sizes(path: Path) -> list[tuple[str, int, int]]:
    """Returns (name, lines, attributes set on self) for every class in ``path``."""
    sizes = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef):
            attributes = {
                target.attr
                for assign in ast.walk(node) if isinstance(assign, ast.Assign | ast.AnnAssign)
                for target in (assign.targets if isinstance(assign, ast.Assign) else [assign.target])
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "self"}
            assert node.end_lineno is not None
            sizes.append((node.name, node.end_lineno - node.lineno + 1, len(attributes)))
    return sizes


def function_sizes(path: Path) -> list[tuple[str, int]]:
    """Returns (name, lines) for every function and method in ``path``."""
    return [(node.name, (node.end_lineno or node.lineno) - node.lineno + 1)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", PACKAGES)
def test_no_class_a_reader_must_hold_whole(package: str) -> None:
    big = [f"{path.relative_to(ROOT)}: {name}, {lines} lines, {attrs} attributes"
           for path in sources(package)
           for name, lines, attrs in class_sizes(path)
           if lines > MAX_LINES or attrs > MAX_ATTRIBUTES]
    assert not big, "split these into small named parts:\n" + "\n".join(big)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_function_a_reader_must_scroll_through(package: str) -> None:
    long = [f"{path.relative_to(ROOT)}: {name}, {lines} lines"
            for path in sources(package)
            for name, lines in function_sizes(path) if lines > MAX_FUNCTION_LINES]
    assert not long, "split these into small named parts:\n" + "\n".join(long)


#: Names that once meant two things (issue 37, item 4) and now mean one, where it is defined:
#: the venue's recorder is not the table's input log, and a message's life has one name for
#: the whole (a delivery) and one for each stage.
ONE_NAME = {
    "Recorder": "controller/record/recorder.py",
    "InputLog": "controller/service/inputlog.py",
    "Delivery": "controller/service/delivery.py",
    "Deliveries": "controller/service/delivery.py",
    "Outbox": "controller/service/outbox.py",
    "PublishedLog": "controller/service/published.py",
}
#: Names retired for it: no class in a shipped package takes them again.
RETIRED = ("Outgoing",)


def test_one_name_per_thing() -> None:
    defined: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sources(package):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and (node.name in ONE_NAME or node.name in RETIRED):
                    defined.setdefault(node.name, []).append(str(path.relative_to(ROOT)))
    assert defined == {name: [where] for name, where in ONE_NAME.items()}


def test_the_measure_sees_a_big_class(tmp_path: Path) -> None:
    sample = tmp_path / "big.py"
    body = "".join(f"        self.a{i} = {i}\n" for i in range(25))
    sample.write_text(f"class Big:\n    def __init__(self) -> None:\n{body}")
    assert class_sizes(sample) == [("Big", 27, 25)]
    assert function_sizes(sample) == [("__init__", 26)]


#: Test folders that follow a seam between packages rather than one package: the contracts
#: every maker's device is held to, the deploy files as shipped, whole runs end to end, the
#: faults a venue meets, and the evening soak.
ACROSS_PACKAGES = {"contract", "deploy", "e2e", "evening", "faults"}


def package_names() -> set[str]:
    """The shipped packages a test folder may be named after: the top-level packages and
    ``controller``'s own packages (its tests are not one grab-bag ``tests/controller``)."""
    top = {name for name in PACKAGES if name != "controller"}
    inner = {path.parent.name for path in (ROOT / "controller").glob("*/__init__.py")}
    return top | inner


def test_the_tests_are_shaped_as_the_packages() -> None:
    folders = {path.parent.name for path in (ROOT / "tests").glob("*/__init__.py")}
    strays = folders - package_names() - ACROSS_PACKAGES
    assert not strays, f"test folders named after no package: {sorted(strays)}"
    untested = {name for name in package_names()
                if name not in folders and not (ROOT / "tests" / f"test_{name}.py").exists()}
    assert not untested, f"packages with no tests of their own: {sorted(untested)}"
