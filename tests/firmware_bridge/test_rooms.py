"""The board side's rooms (issue 37): no part of ``firmware_bridge`` (the firmware included)
reaches into another object's private members; a part it needs is a public seam."""

from __future__ import annotations

import ast
from pathlib import Path

BRIDGE = Path(__file__).resolve().parents[2] / "firmware_bridge"


def private_reaches(path: Path) -> list[str]:
    """Returns ``line: expression`` for each ``x._name`` in ``path`` whose ``x`` is not
    ``self`` or ``cls`` (dunders are not private)."""
    return [f"{node.lineno}: {ast.unparse(node)}"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute) and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))]


def test_no_part_of_the_board_side_reaches_into_another_objects_private_members() -> None:
    found = [f"{path.relative_to(BRIDGE.parent)}:{reach}"
             for path in sorted(BRIDGE.rglob("*.py")) for reach in private_reaches(path)]
    assert found == []


def test_the_measure_sees_a_reach(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("class A:\n    def f(self, other):\n"
                      "        return self._a, cls._b, other._c, other.__class__, other.d\n")
    assert private_reaches(sample) == ["3: other._c"]
