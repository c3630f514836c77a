"""Generates docs/options.md (the games' options) and docs/wiring.md (the wiring guide) from
the code: ``python -m controller.docs``."""

from __future__ import annotations

import sys
from pathlib import Path

from rules import GAMES
from rules.games import options_doc

PATH = Path(__file__).resolve().parents[1] / "docs" / "options.md"
WIRING = PATH.with_name("wiring.md")


def options_markdown() -> str:
    """Returns the options of every game as Markdown, as ``new_match`` takes them."""
    out = [
        "# Game options",
        "",
        "Options go in `new_match` as `\"options\": {...}`; anything left out takes its default.",
        "Each default is the reading of the original rules that keeps a club's game flowing;",
        "where a ruling hangs on a fact nobody reported, an option says whether to ask or presume.",
        "Generated from the code by `python -m controller.docs`; a test keeps it current.",
        "",
    ]
    for name in sorted(GAMES):
        game = GAMES[name]
        players = (f"{game.min_players}" if game.min_players == game.max_players
                   else f"{game.min_players}–{game.max_players}")
        out += [f"## `{name}` ({players} players)", "", "| option | default | rule | meaning |",
                "|---|---|---|---|"]
        documented = options_doc(game.Options)
        for o in documented:
            shown = repr(o.default) if not isinstance(o.default, bool) else str(o.default).lower()
            doc = o.doc
            if o.choices:
                doc += " (one of: " + ", ".join(f"`{c}`" for c in o.choices) + ")"
            out.append(f"| `{o.name}` | `{shown}` | {o.rule} | {doc} |")
        out.append("")
        contested = [o for o in documented if o.seed]
        if contested:
            out += ["Where the original can be read more than one way, its own words:", ""]
            out += [f"- `{o.name}` ({o.rule}): «{o.seed}»" for o in contested]
            out.append("")
    return "\n".join(out)


def main() -> int:
    from controller.commission.wiring import wiring_markdown

    PATH.parent.mkdir(exist_ok=True)
    for path, text in ((PATH, options_markdown()), (WIRING, wiring_markdown())):
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
