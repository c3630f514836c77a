"""Ten-ball as the rest of the house reads it (``rules.spec.GameSpec``)."""

from __future__ import annotations

from rules.facts import Foul, ShotKind
from rules.games.ten_ball.options import TenBallOptions
from rules.spec import BallStyle, Declarable, GameSpec, Scoring, Target

SPEC = GameSpec(
    id="ten-ball", min_players=2, max_players=2, scoring=Scoring.GAMES,
    balls=tuple(range(1, 11)), ball_style=BallStyle.POOL, target=Target.LOWEST,
    first_fouls=(Foul.MISS, Foul.WRONG_BALL_FIRST, Foul.NO_RAIL, Foul.TOUCHED_BALL,
                 Foul.DOUBLE_HIT, Foul.PUSH, Foul.MOVING_BALLS, Foul.BAD_BREAK,
                 Foul.FEET_OFF_FLOOR),
    declarable=frozenset({Declarable.BALLS_TO_CUSHION, Declarable.UNSPORTSMANLIKE}),
    shot_kinds=(ShotKind.SAFETY, ShotKind.PUSH_OUT), max_calls=1, options=TenBallOptions,
)
