"""The 12 ft Russian table on the physics (``controller.sim.physics.pyramid``): a 68 mm ball fits
its pocket only when aimed well. Needs pooltool (``./dev physics-install``): deselected, and
said so, where it is not installed; a few shots without the JIT, about a second."""

from __future__ import annotations

import math
import os
import sys

import pytest

if "numba" not in sys.modules:  # a handful of shots: the JIT's start-up would cost more
    os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

from controller.sim.physics.engine import POOL_9FT, Engine, TableSize
from controller.sim.physics.pyramid import PYRAMID_12FT
from controller.sim.physics.truth import CUE, Ball

XY = tuple[float, float]
#: pooltool's quadratic solver, on roots it then discards
pytestmark = [pytest.mark.pooltool, pytest.mark.filterwarnings(
    "ignore:invalid value encountered in scalar power:RuntimeWarning")]


def engine(size: TableSize) -> Engine:
    return Engine(size)


def fell(e: Engine, balls: dict[Ball, XY], phi: float, speed: float = 2.0) -> set[Ball]:
    happenings, _ = e.shot(balls, phi, speed)
    return {h.a for h in happenings if h.kind == "pocket"}


def corner_shot(size: TableSize, error: float) -> tuple[dict[Ball, XY], float]:
    """A straight shot into the head-left corner: the object ball 0.5 m out on the diagonal,
    the cue ball 0.6 m behind it; the cue ``error`` degrees off."""
    out = 0.5 / math.sqrt(2)
    behind = out + 0.6 / math.sqrt(2)
    return {1: (out, out), CUE: (behind, behind)}, 225.0 + error


def test_a_straight_shot_into_a_corner_falls_only_within_a_twentieth_of_a_degree() -> None:
    e = engine(PYRAMID_12FT)
    assert fell(e, *corner_shot(PYRAMID_12FT, 0.0)) >= {1}
    for error in (-0.1, 0.1):
        assert 1 not in fell(e, *corner_shot(PYRAMID_12FT, error))
    pool = engine(POOL_9FT)  # the pool table forgives the same errors three times over
    for error in (-0.3, 0.3):
        assert 1 in fell(pool, *corner_shot(POOL_9FT, error))


def test_a_ball_run_along_a_cushion_into_a_corner_rattles_out() -> None:
    e = engine(PYRAMID_12FT)
    ball = (0.1, 1.0)  # 10 cm off the long cushion, 1 m from the corner
    heading = math.atan2(-ball[1], -ball[0])
    cue = (ball[0] - 0.6 * math.cos(heading), ball[1] - 0.6 * math.sin(heading))
    happenings, _ = e.shot({1: ball, CUE: cue}, math.degrees(heading), 2.0)
    assert any(h.a == 1 and h.jaw for h in happenings)  # it reached the pocket's jaw
    assert not any(h.kind == "pocket" for h in happenings)


def test_a_side_pocket_takes_a_ball_head_on_but_not_at_a_steep_angle() -> None:
    e = engine(PYRAMID_12FT)
    middle = PYRAMID_12FT.length / 2
    assert 1 in fell(e, {1: (0.4, middle), CUE: (1.0, middle)}, 180.0)
    steep = math.radians(65)  # 65° off the pocket's axis
    ball = (0.4 * math.cos(steep), middle + 0.4 * math.sin(steep))
    cue = (ball[0] + 0.5 * math.cos(steep), ball[1] + 0.5 * math.sin(steep))
    assert 1 not in fell(e, {1: ball, CUE: cue}, math.degrees(steep) + 180)
