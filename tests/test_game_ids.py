"""Nothing outside the games' own packages names a game id (issue 37): the rest of the house
reads each game's record (``rules.games``: ``GameSpec``) instead of comparing ids."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from rules.games import specs

ROOT = Path(__file__).resolve().parents[1]

#: Where a game id may be written: the games' packages, the word catalogues (a game's name is
#: ``game.<id>``), the physics oracle (``controller/sim/physics``, which may not import
#: ``rules``: its truth is its own), the tests, and the documentation (``docs/``, every
#: ``*.md``, and the configuration example, whose ``game = "…"`` shows what to write).
ALLOWED = ("rules/games/", "controller/words/catalogue/", "controller/sim/physics/", "tests/",
           "docs/")
DOCUMENTATION = (".md",)
CONFIG_EXAMPLES = ("deploy/controller.example.toml",)

#: Files that still name game ids until another helper's branch is merged. The lead removes
#: each entry at the merge.
TEMPORARY = {
    # docstring examples of a match record ("game": "pyramid"); console41 and recorder39 edit them:
    "controller/record/queries.py": "recorder39",
}


def id_pattern(game_id: str) -> re.Pattern[str]:
    """Returns what names ``game_id`` in a file: a hyphenated id as a whole word (no prose
    word has its hyphen), a plain one (``pyramid``) in quotes, backticks or as a key's tail
    (``"game.pyramid"``)."""
    if "-" in game_id:
        return re.compile(rf"(?<![\w-]){re.escape(game_id)}(?![\w-])")
    return re.compile(rf"[\"'`.]{re.escape(game_id)}[\"'`]")


def tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def namers(files: list[str], ids: list[str]) -> dict[str, list[str]]:
    """Returns, for each file of ``files`` outside the allowed places, the game ids it names."""
    patterns = {i: id_pattern(i) for i in ids}
    found: dict[str, list[str]] = {}
    for name in files:
        if (name.startswith(ALLOWED) or name.endswith(DOCUMENTATION) or name in CONFIG_EXAMPLES
                or not (ROOT / name).is_file()):
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not text
        named = [i for i, p in patterns.items() if p.search(text)]
        if named:
            found[name] = named
    return found


def test_no_file_outside_the_games_names_a_game_id() -> None:
    ids = [spec.id for spec in specs()]
    found = namers(tracked(), ids)
    unexpected = {name: named for name, named in found.items() if name not in TEMPORARY}
    assert not unexpected, "read the game's record (rules.games) instead: " + repr(unexpected)


def test_the_temporary_exceptions_still_name_an_id() -> None:
    found = namers(list(TEMPORARY), [spec.id for spec in specs()])
    assert set(found) == set(TEMPORARY), "no longer names a game id: drop it from TEMPORARY"


def test_the_search_finds_an_id_in_code_and_not_in_prose(tmp_path: Path) -> None:
    assert id_pattern("ten-ball").search('if game == "ten-ball":')
    assert id_pattern("siberian-ten").search("x = siberian-ten")
    assert id_pattern("pyramid").search("game === 'pyramid'")
    assert id_pattern("pyramid").search('t("game.pyramid")')
    assert not id_pattern("pyramid").search("the pyramid's balls are ivory")
    assert not id_pattern("ten-ball").search("a tenball-only label")
