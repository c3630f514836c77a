"""The table's vocabulary is defined once: the ids, the channel names, the version, and the
copies that cannot import it (the board firmware, the browser pages) held equal to it."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from controller.words import catalogue
from firmware_bridge.firmware import main as firmware
from vocabulary import (
    BINARY_CHANNELS,
    POCKETS,
    RAILS,
    SAME_RAIL,
    TABLE_CHANNELS,
    VERSION,
    ChannelError,
    Kind,
    Pocket,
    Rail,
    parse_channel,
)

ROOT = Path(__file__).resolve().parents[1]
#: Code that must take its ids from ``vocabulary`` (tests and the vocabulary itself aside).
CODE = ("controller", "rules", "hardware", "firmware_bridge", "benchmarks")
#: Copies that cannot import the vocabulary, each held equal to it by a test here.
CHECKED_COPIES = {Path("firmware_bridge/firmware/main.py")}

# Written out here, not derived: a change to the vocabulary must be seen to change these.
PARSED = [
    ("beam.hl", Kind.BEAM, Pocket.HEAD_LEFT), ("beam.fr", Kind.BEAM, Pocket.FOOT_RIGHT),
    ("beam.sl", Kind.BEAM, Pocket.SIDE_LEFT), ("cushion.h", Kind.CUSHION, Rail.HEAD),
    ("cushion.lf", Kind.CUSHION, Rail.LEFT_FOOT), ("cushion.rh", Kind.CUSHION, Rail.RIGHT_HEAD),
    ("cue", Kind.CUE, None), ("ball_id", Kind.BALL_ID, None), ("strike", Kind.STRIKE, None),
    ("click", Kind.CLICK, None),
]
NOT_CHANNELS = ["", "beam", "beam.", "beam.x", "beam.h", "cushion.hl", "cushion", "cue.fl",
                "beam.fl.x", "BEAM.FL", "beam.fl ", "ball_id.fl", "light"]


@pytest.mark.parametrize(("name", "kind", "where"), PARSED)
def test_a_channel_name_parses_to_its_kind_and_place(name: str, kind: Kind,
                                                     where: Pocket | Rail | None) -> None:
    assert parse_channel(name) == (kind, where)


@pytest.mark.parametrize("name", NOT_CHANNELS)
def test_a_name_interfaces_do_not_define_is_refused(name: str) -> None:
    with pytest.raises(ChannelError, match="unknown sensor channel"):
        parse_channel(name)


def test_the_ids_are_those_of_interfaces_section_1() -> None:
    assert [p.value for p in POCKETS] == ["hl", "hr", "sl", "sr", "fl", "fr"]
    assert [r.value for r in RAILS] == ["h", "f", "lh", "lf", "rh", "rf"]


def test_same_rail_pairs_the_two_halves_of_each_long_rail_both_ways() -> None:
    assert dict(SAME_RAIL) == {"lh": "lf", "lf": "lh", "rh": "rf", "rf": "rh"}


def test_the_reference_table_has_every_beam_cushion_and_the_cue_detector() -> None:
    assert len(TABLE_CHANNELS) == len(set(TABLE_CHANNELS)) == 13
    assert {parse_channel(ch)[0] for ch in TABLE_CHANNELS} == {Kind.BEAM, Kind.CUSHION, Kind.CUE}
    assert {*TABLE_CHANNELS, "strike", "click"} == BINARY_CHANNELS


def test_the_firmware_default_channels_are_the_vocabulary_s() -> None:
    # The firmware runs on MicroPython and keeps its own copy of the names.
    names = [channel[1] for channel in firmware.DEFAULT_CHANNELS]
    assert len(names) == len(set(names))
    assert set(names) == {*TABLE_CHANNELS, Kind.CLICK}
    assert all(len(name) <= firmware.MAX_NAME for name in names)


def _docstrings(tree: ast.AST) -> set[int]:
    """Returns the ids of the docstring nodes of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


#: The ids to look for; the short rails' one-letter ids ("h", "f") are too common a string to.
IDS = {*(p.value for p in Pocket), *(r.value for r in Rail if len(r.value) > 1)}
CHANNEL_PREFIX = re.compile(r"^(beam|cushion)\.")


def stray_copies(path: Path) -> list[str]:
    """Returns ``file:line text`` for each string in the code that spells out a table id."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    strays = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        and (node.value in IDS or CHANNEL_PREFIX.match(node.value))
    ]
    return [f"{where}:{node.lineno} {node.value!r}"
            for node in sorted(strays, key=lambda n: (n.lineno, n.col_offset))]


def test_no_code_spells_out_a_pocket_rail_or_channel_id() -> None:
    found = [
        stray
        for package in CODE
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.relative_to(ROOT) not in CHECKED_COPIES
        for stray in stray_copies(path)
    ]
    assert not found, "take these from vocabulary:\n" + "\n".join(found)


def test_the_stray_copy_finder_sees_each_way_of_spelling_an_id(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text('"""Docs may say beam.fl and "hl"."""\n'
                      'A = ("hl", "x")\nB = f"beam.{A}"\nC = {"cushion.lf": 1}\nD = "lh"\nE = "h"\n')
    assert [s.split(" ", 1)[1] for s in stray_copies(sample)] == ["'hl'", "'beam.'", "'cushion.lf'",
                                                                    "'lh'"]


PROJECT_VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_the_version_is_the_installed_projects() -> None:
    assert VERSION == PROJECT_VERSION


def test_the_firmware_reports_the_projects_version() -> None:
    assert firmware.VERSION == PROJECT_VERSION


def test_every_release_has_a_number_of_its_own_and_the_newest_is_the_projects() -> None:
    # CHANGELOG.md says why a bumped number, not a version from git (issue 28)
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## (\d+)\.(\d+)\.(\d+)\b", text, re.M)
    assert releases, "CHANGELOG.md lists no release"
    numbers = [tuple(map(int, r)) for r in releases]
    assert ".".join(map(str, numbers[0])) == PROJECT_VERSION, (
        "the newest release in CHANGELOG.md is not pyproject.toml's version: bump it")
    assert all(a > b for a, b in zip(numbers, numbers[1:], strict=False)), (
        "each release's number must be higher than the one below it")


def test_no_code_spells_out_the_version() -> None:
    found = [f"{path.relative_to(ROOT)}:{node.lineno}"
             for package in CODE for path in sorted((ROOT / package).rglob("*.py"))
             if path.relative_to(ROOT) not in CHECKED_COPIES
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and node.value == PROJECT_VERSION]
    assert not found, "take the version from vocabulary.VERSION:\n" + "\n".join(found)


STATIC = ROOT / "controller" / "web" / "static"
POCKET_TOKEN = re.compile(r"\b(" + "|".join(p.value for p in Pocket) + r")\b")


def test_the_pages_name_every_pocket_of_the_vocabulary_wherever_they_list_pockets() -> None:
    # The browser pages cannot import the vocabulary; a line that lists pockets lists them all.
    scripts = sorted(STATIC.glob("*.js"))
    partial = [f"{path.relative_to(ROOT)}:{n}: {sorted(found)}"
               for path in scripts
               for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if (found := set(POCKET_TOKEN.findall(line))) and found != set(Pocket)]
    assert scripts and not partial, "\n".join(partial)


@pytest.mark.parametrize("lang", catalogue.languages())
def test_every_language_names_exactly_the_vocabularys_pockets(lang: str) -> None:
    keys = catalogue.words(lang).pages
    named = {k.removeprefix("pocket.") for k in keys if k.startswith("pocket.")}
    assert named == {*Pocket, "return"}  # "return": a drop only the ball return saw
