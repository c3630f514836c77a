"""The request handlers reach the match in play through its public seams (issue 37, item 2):
no private member of another object, and no import of the table they serve (the circle
``table`` ⇄ ``handlers`` is gone). What an undo does is read in ``Play``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANDLERS = ROOT / "controller" / "pipeline" / "handlers.py"


def private_reaches(path: Path) -> list[str]:
    """Returns each ``x._name`` in ``path`` where ``x`` is not ``self`` or ``cls``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def imported(path: Path) -> set[str]:
    """Returns the modules ``path`` imports (under ``TYPE_CHECKING`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return ({n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
            | {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names})


def test_the_request_handlers_reach_no_private_member() -> None:
    assert private_reaches(HANDLERS) == []


def test_the_request_handlers_do_not_import_the_table() -> None:
    assert "controller.pipeline.table" not in imported(HANDLERS)


def test_the_measure_sees_a_private_reach(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f(table):\n    table._apply([])\n    return self._own\n")
    assert private_reaches(sample) == ["sample.py:2: table._apply"]
