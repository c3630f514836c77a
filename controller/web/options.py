"""``options.json``: every game's options, for the console's new-match form.

``WebServer`` answers ``/options.json`` from the games' option definitions (the same source as
``docs/options.md``), so it is always current. A venue that serves the pages from another web
server writes the file beside them: ``python -m controller.web.options DIR``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rules import GAMES
from rules.options import options_doc


def options() -> dict[str, Any]:
    """Returns ``{game: {"players": [min, max], "options": [{key, default, doc, choices, rule}]}}``."""
    out: dict[str, Any] = {}
    for name in sorted(GAMES):
        game = GAMES[name]
        out[name] = {
            "players": [game.min_players, game.max_players],
            "options": [{"key": o.name,
                         "default": list(o.default) if isinstance(o.default, tuple) else o.default,
                         "doc": o.doc, "choices": list(o.choices), "rule": o.rule}
                        for o in options_doc(game.Options)],
        }
    return out


def text() -> str:
    """Returns the file's text."""
    return json.dumps(options(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m controller.web.options DIR", file=sys.stderr)
        return 2
    path = Path(args[0]) / "options.json"
    path.write_text(text(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
