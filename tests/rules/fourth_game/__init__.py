"""A fourth game, added as a venue or a contributor would add one: one package (this one: a
game class, its options and its record) plus its words in the catalogues, registered through
the registry (``rules.games``), with no change anywhere else.

The game is «Пирамида по чистому назначению», a small variant of the Point pyramid the seed
describes (seeds/004): «Перед началом партии следует договориться об условиях игры. Одно из
таких условий — как заказывать шары: строгим заказом «по чистому назначению» или
«шар-луза». При игре «по чистому назначению» перед ударом игрок точно называет номер шара,
лузу, куда он желает положить шар, а также объясняет, каким образом должен упасть шар…».
Here the strict call is the game itself: every pot of a called ball is confirmed as played as
called (PP-5), two or three players, the fouls a console offers first in its own order.

``registered(words_dir)`` registers it and writes the shipped catalogues with its entries to
``words_dir`` (point ``BILLIARDS_WORDS`` there); ``fourth_game`` is the pytest fixture doing
both for a test, undone after it. A browser test may use the fixture as it is: the web server
serves ``games.json`` and the words from the registry and the catalogues it points at.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from controller.words import catalogue
from rules import Foul, ShotKind
from rules.games import BallStyle, GameSpec, Scoring, Target, register, unregister
from rules.games.pyramid import PointPyramid, PyramidOptions
from rules.options import option

GAME_ID = "clean-pyramid"
#: Its words, one entry per language: the game's name as the pages and displays say it.
WORDS = {"en": {"game.clean-pyramid": "Pyramid, clean designation"},
         "ru": {"game.clean-pyramid": "Пирамида по чистому назначению"}}


@dataclass(frozen=True, slots=True)
class CleanPyramidOptions(PyramidOptions):
    call_mode: str = option(
        "clean",
        "'clean' (this game's own: clean designation): the call also states the manner, and "
        "the referee confirms a called ball that fell was played as called (PP-5); "
        "'ball_pocket': ball and pocket only",
        ("clean", "ball_pocket"), rule="PP-5",
    )


SPEC = GameSpec(
    id=GAME_ID, min_players=2, max_players=3, scoring=Scoring.POINTS,
    balls=tuple(range(1, 16)), ball_style=BallStyle.IVORY, target=Target.ANY,
    first_fouls=(Foul.DIRECT_HIT_IN_KITCHEN, Foul.MISS, Foul.TOUCHED_BALL, Foul.BUTT_OR_SIDE,
                 Foul.PUSH, Foul.BAD_PLACEMENT),
    declarable=frozenset(), shot_kinds=(ShotKind.SAFETY,), max_calls=1,
    options=CleanPyramidOptions,
)


class CleanPyramid(PointPyramid):
    """The Point pyramid's rules, called by clean designation."""

    spec = SPEC


def write_words(directory: Path) -> None:
    """Writes every shipped catalogue to ``directory`` with this game's entries added."""
    for path in sorted(catalogue.CATALOGUE.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["pages"].update(WORDS.get(path.stem, WORDS["en"]))
        (directory / path.name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


@contextmanager
def registered(words_dir: Path) -> Iterator[GameSpec]:
    """Registers the game and writes the catalogues with its words to ``words_dir``; yields
    its record. The caller points ``BILLIARDS_WORDS`` at ``words_dir``."""
    write_words(words_dir)
    register(CleanPyramid)
    try:
        yield SPEC
    finally:
        unregister(GAME_ID)
