"""A simulated player: picks a makeable shot, and misses as a club player does.

The shot is the ghost-ball aim at a pocket (the object ball struck along the line to the
pocket's centre), the pocket with the smallest cut and the shortest travel that no other
ball blocks. The cue is then off by a normal error of ``aim_sd`` degrees and its speed by
±15 %: long thin cuts miss, straight short ones mostly go; a cue ball that follows the
object ball in scratches now and then, and a blocked path fouls on the wrong ball first.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from controller.sim.physics.truth import CUE, Ball
from vocabulary import POCKETS, Pocket

XY = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Aim:
    """A chosen shot: the pocket called, the cue's angle (degrees from +x), its speed (m/s)."""

    pocket: Pocket
    phi: float
    speed: float
    cut: float


def _clear(a: XY, b: XY, balls: dict[Ball, XY], skip: set[Ball], radius: float) -> bool:
    """Returns whether no ball but ``skip`` lies within two radii of the segment a→b."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy or 1e-9
    for ball, (x, y) in balls.items():
        if ball in skip:
            continue
        s = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length2))
        if math.hypot(x - (ax + s * dx), y - (ay + s * dy)) < 2 * radius:
            return False
    return True


def plan(balls: dict[Ball, XY], target: int, pockets: dict[Pocket, XY], radius: float,
         blocked_ok: bool = False) -> tuple[Pocket, float, float, float] | None:
    """Returns the best (pocket, aim angle, cut in degrees, travel in m) on ``target``, or
    None when every pocket is blocked (or cut thinner than 75°)."""
    cue, ball = balls[CUE], balls[target]
    best: tuple[float, tuple[Pocket, float, float, float]] | None = None
    for pocket in POCKETS:
        px, py = pockets[pocket]
        dx, dy = px - ball[0], py - ball[1]
        dist = math.hypot(dx, dy)
        ux, uy = dx / dist, dy / dist
        ghost = (ball[0] - 2 * radius * ux, ball[1] - 2 * radius * uy)
        ax, ay = ghost[0] - cue[0], ghost[1] - cue[1]
        reach = math.hypot(ax, ay)
        if reach < 1e-6:
            continue
        cut = math.degrees(math.acos(max(-1.0, min(1.0, (ax * ux + ay * uy) / reach))))
        if cut > 75:
            continue
        if not blocked_ok and not (_clear(cue, ghost, balls, {CUE, target}, radius)
                                   and _clear(ball, (px, py), balls, {CUE, target}, radius)):
            continue
        score = cut + 25 * (dist + reach)
        if best is None or score < best[0]:
            best = (score, (pocket, math.degrees(math.atan2(ay, ax)), cut, dist + reach))
    return None if best is None else best[1]


def aim(balls: dict[Ball, XY], target: int, pockets: dict[Pocket, XY], radius: float,
        rng: random.Random, aim_sd: float = 0.6) -> Aim:
    """Returns the shot a player takes on ``target``: the best plan, with the player's error;
    straight at the ball's centre when every pocket is blocked."""
    chosen = plan(balls, target, pockets, radius) or plan(balls, target, pockets, radius, True)
    if chosen is None:
        cue, ball = balls[CUE], balls[target]
        pocket = rng.choice(POCKETS)
        phi, cut, travel = math.degrees(math.atan2(ball[1] - cue[1], ball[0] - cue[0])), 0.0, 1.0
    else:
        pocket, phi, cut, travel = chosen
    speed = min(5.0, 0.9 + 1.1 * travel) * rng.uniform(0.85, 1.15)
    return Aim(pocket, phi + rng.gauss(0.0, aim_sd * (1 + cut / 45)), speed, cut)


def free_spot(balls: dict[Ball, XY], x: float, y: float, radius: float, step: XY) -> XY:
    """Returns (x, y), or the first point along ``step`` from it that no ball covers."""
    for _ in range(200):
        if all(math.hypot(x - bx, y - by) > 2.05 * radius for bx, by in balls.values()):
            return x, y
        x, y = x + step[0], y + step[1]
    return x, y


def in_hand(balls: dict[Ball, XY], target: int, pockets: dict[Pocket, XY], radius: float,
            width: float, length: float, kitchen: bool, rng: random.Random) -> XY:
    """Returns where a player with ball in hand puts the cue ball: straight behind
    ``target`` on the line from the best pocket, or (behind the head string, ``kitchen``,
    or when that does not fit) the best of a few spots tried."""
    others = {b: xy for b, xy in balls.items() if b != CUE}
    margin = 2 * radius
    y_max = length / 4 - radius if kitchen else length - margin
    tries: list[XY] = []
    ball = others[target]
    for pocket in POCKETS:
        px, py = pockets[pocket]
        d = math.hypot(px - ball[0], py - ball[1])
        back = rng.uniform(0.2, 0.45)
        tries.append((ball[0] - (px - ball[0]) / d * back, ball[1] - (py - ball[1]) / d * back))
    tries += [(rng.uniform(margin, width - margin), rng.uniform(margin, y_max)) for _ in range(12)]
    best: tuple[float, XY] | None = None
    for x, y in tries:
        if not (margin <= x <= width - margin and margin <= y <= y_max):
            continue
        if any(math.hypot(x - bx, y - by) < 2.2 * radius for bx, by in others.values()):
            continue
        chosen = plan({**others, CUE: (x, y)}, target, pockets, radius)
        score = 1e3 if chosen is None else chosen[2] + 25 * chosen[3]
        if best is None or score < best[0]:
            best = (score, (x, y))
    if best is None:
        return free_spot(others, width / 2, length / 8, radius, (radius, 0.0))
    return best[1]
