"""``python -m controller.words DIR``: writes the pages' words, ``DIR/lang/<code>.json`` for
every catalogue and ``DIR/lang/index.json``, for a venue that serves ``controller/web/static/``
from a web server of its own (the service's server serves them from the catalogue itself)."""

from __future__ import annotations

import sys
from pathlib import Path

from controller.words import catalogue


def write_pages(root: Path) -> list[Path]:
    """Writes the pages' words under ``root/lang``; returns the files written."""
    folder = root / "lang"
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for code in catalogue.languages():
        path = folder / f"{code}.json"
        path.write_bytes(catalogue.page_words(code))
        written.append(path)
    index = folder / "index.json"
    index.write_bytes(catalogue.page_languages())
    return [*written, index]


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: python -m controller.words DIR  (writes DIR/lang/<code>.json and "
              "DIR/lang/index.json)", file=sys.stderr)
        return 2
    for path in write_pages(Path(argv[0])):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
