"""``games.json`` and ``options.json``: every game's record and options, for the pages.

``WebServer`` answers ``/games.json`` from the games' records (``rules.games``: players,
scoring, balls and their style, the fouls a console offers first, what may be declared,
options; docs/interfaces.md §5) and ``/options.json`` from their option definitions (the same
source as ``docs/options.md``), so both are always current. A venue that serves the pages from
another web server writes the files beside them: ``python -m controller.web.options DIR``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rules.games import GameSpec, options_doc, specs


def _options(spec: GameSpec) -> list[dict[str, Any]]:
    return [{"key": o.name,
             "default": list(o.default) if isinstance(o.default, tuple) else o.default,
             "doc": o.doc, "choices": list(o.choices), "rule": o.rule}
            for o in options_doc(spec.options)]


def options() -> dict[str, Any]:
    """Returns ``{game: {"players": [min, max], "options": [{key, default, doc, choices, rule}]}}``."""
    return {spec.id: {"players": [spec.min_players, spec.max_players], "options": _options(spec)}
            for spec in sorted(specs(), key=lambda s: s.id)}


def game_json(spec: GameSpec) -> dict[str, Any]:
    """Returns one game's record as ``games.json`` lists it."""
    return {
        "id": spec.id,
        "players": [spec.min_players, spec.max_players],
        "scoring": str(spec.scoring),
        "score_field": spec.score_field,
        "balls": list(spec.balls),
        "ball_style": str(spec.ball_style),
        "target": str(spec.target),
        "first_fouls": [str(f) for f in spec.first_fouls],
        "declarable": sorted(str(d) for d in spec.declarable),
        "shot_kinds": [str(k) for k in spec.shot_kinds],
        "max_calls": spec.max_calls,
        "options": _options(spec),
    }


def games() -> dict[str, Any]:
    """Returns ``{"default": id, "games": [record, ...]}``, the games in the order a console
    lists them."""
    records = [game_json(spec) for spec in specs()]
    return {"default": records[0]["id"] if records else None, "games": records}


def text() -> str:
    """Returns ``options.json``'s text."""
    return json.dumps(options(), indent=1, ensure_ascii=False) + "\n"


def games_text() -> str:
    """Returns ``games.json``'s text."""
    return json.dumps(games(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m controller.web.options DIR", file=sys.stderr)
        return 2
    for name, body in (("options.json", text()), ("games.json", games_text())):
        path = Path(args[0]) / name
        path.write_text(body, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
