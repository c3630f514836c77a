"""The house's shape (issue 26): no class in the service or the pipeline that a reader must
hold whole."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The rooms held to the limit, and the limit: about 250 lines or 20 attributes a class.
ROOMS = ("controller/pipeline", "controller/service", "firmware_bridge")
MAX_LINES = 260
MAX_ATTRIBUTES = 20


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


@pytest.mark.parametrize("room", ROOMS)
def test_no_class_a_reader_must_hold_whole(room: str) -> None:
    big = [f"{path.relative_to(ROOT)}: {name}, {lines} lines, {attrs} attributes"
           for path in sorted((ROOT / room).rglob("*.py")) if "firmware" not in path.parts
           for name, lines, attrs in class_sizes(path)
           if lines > MAX_LINES or attrs > MAX_ATTRIBUTES]
    assert not big, "split these into small named parts:\n" + "\n".join(big)


def test_the_measure_sees_a_big_class(tmp_path: Path) -> None:
    sample = tmp_path / "big.py"
    body = "".join(f"        self.a{i} = {i}\n" for i in range(25))
    sample.write_text(f"class Big:\n    def __init__(self) -> None:\n{body}")
    assert class_sizes(sample) == [("Big", 27, 25)]
