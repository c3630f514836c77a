"""The pyramid as the rest of the house reads it (``rules.spec.GameSpec``)."""

from __future__ import annotations

from rules.facts import Foul, ShotKind
from rules.games.pyramid.options import PyramidOptions
from rules.spec import BallStyle, GameSpec, Scoring, Target

SPEC = GameSpec(
    id="pyramid", min_players=2, max_players=4, scoring=Scoring.POINTS,
    balls=tuple(range(1, 16)), ball_style=BallStyle.IVORY, target=Target.ANY,
    first_fouls=(Foul.MISS, Foul.TOUCHED_BALL, Foul.BUTT_OR_SIDE, Foul.DOUBLE_HIT,
                 Foul.PUSH, Foul.MOVING_BALLS, Foul.DIRECT_HIT_IN_KITCHEN,
                 Foul.BAD_PLACEMENT, Foul.FEET_OFF_FLOOR),
    declarable=frozenset(), shot_kinds=(ShotKind.SAFETY,), max_calls=1,
    options=PyramidOptions,
)
