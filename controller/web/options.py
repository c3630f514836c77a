"""Writes ``static/options.json``, every game's options for the console's new-match form.

``python -m controller.web.options`` regenerates it from the games' option definitions (the
same source as ``docs/options.md``); a test keeps the committed file current. A file rather
than a generated URL, so a venue can serve the pages from any web server.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rules import GAMES
from rules.game import options_doc

from .server import STATIC

PATH = STATIC / "options.json"


def options() -> dict[str, Any]:
    """Returns ``{game: {"players": [min, max], "options": [{key, default, doc, choices}]}}``."""
    out: dict[str, Any] = {}
    for name in sorted(GAMES):
        game = GAMES[name]
        out[name] = {
            "players": [game.min_players, game.max_players],
            "options": [{"key": key, "default": list(default) if isinstance(default, tuple) else default,
                         "doc": doc, "choices": list(choices)}
                        for key, default, doc, choices in options_doc(game.Options)],
        }
    return out


def text() -> str:
    """Returns the file's text."""
    return json.dumps(options(), indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    PATH.write_text(text(), encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
