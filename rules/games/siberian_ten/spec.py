"""Siberian Ten as the rest of the house reads it (``rules.spec.GameSpec``)."""

from __future__ import annotations

from rules.facts import Foul, ShotKind
from rules.games.siberian_ten.options import SiberianOptions
from rules.spec import BallStyle, Declarable, GameSpec, Scoring, Target

SPEC = GameSpec(
    id="siberian-ten", min_players=2, max_players=2, scoring=Scoring.BALLS,
    balls=tuple(range(1, 11)), ball_style=BallStyle.POOL, target=Target.ANY,
    first_fouls=(Foul.MISS, Foul.TWO_CUSHION, Foul.WRONG_BALL_FIRST, Foul.TOUCHED_BALL,
                 Foul.DOUBLE_HIT, Foul.PUSH, Foul.DIRECT_HIT_IN_KITCHEN, Foul.BAD_BREAK,
                 Foul.FEET_OFF_FLOOR),
    declarable=frozenset({Declarable.CENTRE_LINE, Declarable.CUE_BALL_CALL}),
    shot_kinds=(ShotKind.IGRA,), max_calls=2, options=SiberianOptions,
)
