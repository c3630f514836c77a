"""The documentation is the code's own: a stale options page, a reference to a spec outside
the repository or a broken link fails here."""

import re
import subprocess
from pathlib import Path

from controller.docs import PATH, options_markdown


def test_options_page_matches_the_code() -> None:
    assert PATH.read_text(encoding="utf-8") == options_markdown(), (
        "docs/options.md is stale: run `python -m controller.docs`")


def test_every_option_is_documented() -> None:
    import dataclasses

    from rules import GAMES

    for game in GAMES.values():
        for f in dataclasses.fields(game.Options):
            assert f.metadata.get("doc"), f"{game.name} option {f.name} has no documentation"


ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def tracked_text_files() -> list[Path]:
    """Returns the repository's files git tracks, but for the vendored browser libraries."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    names = [n for n in listed.stdout.decode().split("\0") if n and "/vendor/" not in n]
    return [ROOT / n for n in names if n.endswith((".py", ".md", ".js", ".html", ".toml", ".sh"))]


def test_nothing_points_outside_the_repository_for_its_contracts() -> None:
    # The interface and rule specs live in docs/; a clone has no shared/ folder beside it.
    here = Path(__file__).resolve()
    found = [f"{path.relative_to(ROOT)}:{n}" for path in tracked_text_files() if path != here
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "shared/spec" in line or "shared/style" in line or "interfaces-extensions" in line]
    assert not found, "point these at docs/:\n" + "\n".join(found)


def test_every_relative_link_in_the_markdown_leads_to_a_file() -> None:
    broken = [f"{path.relative_to(ROOT)} → {target}"
              for path in tracked_text_files() if path.suffix == ".md"
              for target in LINK.findall(path.read_text(encoding="utf-8"))
              if "://" not in target and not (path.parent / target).exists()]
    assert not broken, "broken links:\n" + "\n".join(broken)
