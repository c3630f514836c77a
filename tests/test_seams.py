"""No class reaches into another's private members (issue 37, item 2), in any shipped package:
code moved out of a class that still reaches into its private members has not left it. The
request handlers reach the match in play through its public seams and do not import the table
(the circle ``table`` ⇄ ``handlers`` is gone); fusion's health verdicts go through
``OutOfOrder``; fusion dispatches a sensor edge on its channel's ``vocabulary.Kind``.

What counts as a reach, anywhere in a shipped package: ``x._name`` with ``x`` not ``self`` or
``cls`` (another instance of the same class included: a copy is made by its constructor);
``getattr(x, "_name")`` and the like; and, in a class built on a library's class,
``super()._name``, and ``self._name`` that the class does not define itself (the library's
private member)."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from vocabulary import Kind

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "rules", "hardware", "firmware_bridge", "vocabulary")
HANDLERS = ROOT / "controller" / "pipeline" / "handlers.py"
FUSION = ROOT / "controller" / "pipeline" / "fusion"

#: The one pinned place allowed to reach into a library's private members: aiomqtt 2.5's client
#: and queue (manual acknowledgement, the queue left behind, PUBACK codes, leaving without a
#: DISCONNECT), each workaround with its upstream issue in the module's docstring and a test that
#: fails when aiomqtt moves off ``AIOMQTT_CHECKED``.
ALLOWED = {"controller/wire/connection.py"}
#: Names that begin with an underscore and are public by their owner's documentation: a
#: namedtuple's methods (the underscore only keeps them from its fields), and ``os._exit``.
DOCUMENTED = {"_asdict", "_replace", "_fields", "_make", "_field_defaults"}
DOCUMENTED_CALLS = {"os._exit"}
_NAMED = ("getattr", "setattr", "hasattr", "delattr")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _own_names(cls: ast.ClassDef) -> set[str]:
    """Returns what ``cls`` defines itself: its methods, class attributes and ``self.x`` it sets."""
    names = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for node in ast.walk(cls):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            if isinstance(target, ast.Name):
                names.add(target.id)
            elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                  and target.value.id == "self"):
                names.add(target.attr)
    return names


def _library_based(cls: ast.ClassDef, tree: ast.Module) -> bool:
    """Returns whether ``cls`` is built on a class from outside the shipped packages."""
    local = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    ours = {alias.asname or alias.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            and (n.level > 0 or (n.module or "").split(".")[0] in PACKAGES) for alias in n.names}
    for base in cls.bases:
        if isinstance(base, ast.Attribute):
            root = base
            while isinstance(root, ast.Attribute):
                root = root.value  # type: ignore[assignment]
            if not (isinstance(root, ast.Name) and root.id in PACKAGES):
                return True
        elif isinstance(base, ast.Name) and base.id not in local | ours | {"object"} \
                and not hasattr(builtins, base.id):
            return True
    return False


def _is_super(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super")


def private_reaches(path: Path) -> list[str]:
    """Returns each reach into another object's private member in ``path`` (see the module
    docstring), as ``file:line: expression``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def note(node: ast.AST) -> None:
        found.append(f"{path.name}:{getattr(node, 'lineno', 0)}: {ast.unparse(node)}")

    library_classes = {cls: _own_names(cls) for cls in ast.walk(tree)
                       if isinstance(cls, ast.ClassDef) and _library_based(cls, tree)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            text = ast.unparse(node)
            if node.attr in DOCUMENTED or text in DOCUMENTED_CALLS:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if _is_super(node.value):
                continue  # its own member, unless the base is a library's (below)
            note(node)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in _NAMED and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
              and _private(node.args[1].value)
              and not (isinstance(node.args[0], ast.Name) and node.args[0].id == "self")):
            note(node)
    for cls, own in library_classes.items():
        for node in ast.walk(cls):
            if isinstance(node, ast.Attribute) and _private(node.attr) and (
                    _is_super(node.value) or node.attr not in own
                    and isinstance(node.value, ast.Name) and node.value.id == "self"):
                note(node)
    return sorted(set(found), key=lambda s: (int(s.split(":")[1]), s))


def shipped() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_no_class_reaches_into_another_objects_private_members() -> None:
    reaches = [f"{path.relative_to(ROOT)}: {reach}" for path in shipped()
               if str(path.relative_to(ROOT)) not in ALLOWED for reach in private_reaches(path)]
    assert reaches == [], "give the class a public seam, or make it its own method:\n" + \
        "\n".join(reaches)


def test_the_pinned_place_is_still_the_one_that_reaches_into_aiomqtt() -> None:
    """The allow-list names a place that reaches (else it is stale and must go)."""
    for allowed in ALLOWED:
        assert private_reaches(ROOT / allowed), f"{allowed} no longer reaches: drop it from ALLOWED"


def test_the_request_handlers_do_not_import_the_table() -> None:
    assert "controller.pipeline.table" not in imported(HANDLERS)


def imported(path: Path) -> set[str]:
    """Returns the modules ``path`` imports (under ``TYPE_CHECKING`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return ({n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
            | {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names})


def channel_literals(path: Path) -> list[str]:
    """Returns each comparison in ``path`` with a channel kind spelled as a string (``"cue"``)."""
    kinds = {k.value for k in Kind}
    return [f"{path.name}:{node.lineno}: {ast.unparse(node)}"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Compare)
            and any(isinstance(c, ast.Constant) and c.value in kinds
                    for c in [node.left, *node.comparators])]


def test_fusion_dispatches_on_the_channel_kind_not_on_strings() -> None:
    assert [hit for path in sorted(FUSION.glob("*.py")) for hit in channel_literals(path)] == []


def test_the_measure_sees_a_private_reach(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os, aiomqtt\n"
        "def f(table, row):\n"
        "    table._apply([])\n"
        "    getattr(table, '_undone')\n"
        "    os._exit(1); row._asdict()\n"
        "    return self._own\n"
        "class Base:\n    pass\n"
        "class Mine(Base):\n"
        "    def g(self): return super()._h()\n"
        "class Client(aiomqtt.Client):\n"
        "    def __init__(self): self._n = 0\n"
        "    def g(self): return self._queue, self._n, super()._g\n")
    assert private_reaches(sample) == [
        "sample.py:3: table._apply", "sample.py:4: getattr(table, '_undone')",
        "sample.py:13: self._queue", "sample.py:13: super()._g"]
    assert channel_literals(sample) == []
    sample.write_text("def f(ch):\n    return ch == 'cue'\n")
    assert channel_literals(sample) == ["sample.py:2: ch == 'cue'"]
