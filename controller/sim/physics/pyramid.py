"""Point pyramid (seed 004) on the physics: a 12 ft Russian table, the pyramid racked as the
seed racks it, a simulated player who calls ball and pocket, and a referee who declares only
what no sensor sees.

**The table.** The International Pyramid Committee's and the European Pyramid Committee's
«Основные требования к турнирным столам и оборудованию для соревнований по бильярдному
спорту (пирамида)», as quoted at billiard-tomak.at.ua/publ/oborudovanie_na_biljarde/
oborudovanie_biljardnyj_stol/2-1-0-28 (the federations' own sites were not reachable from
this machine): playing field 3550 × 1775 (±50) mm; corner mouth 72–73 mm, side mouth 82–83
mm; the rubber's rounding at the mouth 5 mm (corner) and 11 ± 1 mm (side); a corner pocket's
corridor 5–6 mm long, a side pocket's none; the cushion's nose 42 mm above the slate; balls
68–68.5 mm. The Russian Billiards Federation (ФБСР) is quoted with a 3.55 × 1.77 m field
(tofp.ru); the issue's 3.569 × 1.778 m (a snooker table's field) lies within the ±50 mm.
Ball mass 284 g (a 68 mm Aramith set; Russian Wikipedia, «Бильярдный шар», gives
256–284 g). In pooltool's terms (``PocketTableSpecs``): mouths 72.5 and 82.5 mm, jaws
parallel (pocket angle 0), jaw radii 5 and 11 mm; the ball is in the pocket once its
centre is 6 mm into the corner's corridor or 4 mm past the side pocket's mouth (a pocket
circle of 60 mm radius set that deep); the cushion 42 mm high. A 68 mm ball fits such a
mouth with 4.5 mm to spare: measured on this table, a straight corner shot with the object
ball 0.5 m out and the cue ball 0.8 m behind it falls only with the cue within ±0.05° of
the right line (±0.03° at a 40° cut), and a ball run along a cushion into a corner pocket
rarely falls.

**The rack** (PP-2): the 4 at the apex on the foot spot (the third spot), the 2 and the 3 at
the corners of the base, the 13, 14 and 15 in the middle, the others at random; the cue ball
in the house. **The player** plays the cue ball only (the seed's «своим» шаром); it calls
the ball and pocket with the best ghost-ball line with a clear path (any object ball), or
with none plays a safety (a soft thin touch on the nearest ball, no call); it aims allowing
for throw as an experienced player does (the object ball's departure measured on the
engine), strikes with some follow, draw or side at random (a straight pot rolled through
with follow, which now and then follows it in), and misses by a stroke error of
about 0.6 mm at the contact point (more on cuts; one stroke in ten goes wrong, twelve times
that) and ±15 % speed. The break is struck hard at the apex with no call; after the cue ball
fell it is placed in the house and no ball in the house is aimed at (PP-8 и). Two, three or
four play (``players_of``), to 71, 51, 41. A rack stops at ``PyramidRack.MAX_SHOTS`` shots if
nobody has reached the target by then.
"""

from __future__ import annotations

import math
import random
from typing import Any

from controller.sim.physics.engine import Engine, TableSize
from controller.sim.physics.player import in_hand, plan
from controller.sim.physics.rack import PLAYERS, RackPlay, RackRecord, declared_drops, triangle
from controller.sim.physics.sensors import Sensors
from controller.sim.physics.truth import CUE, Ball, Happening, ShotTruth, shot_truth
from controller.sim.physics.truth_pyramid import PyramidOracle, PyramidRuling
from vocabulary import Pocket

XY = tuple[float, float]

CORNER_MOUTH, SIDE_MOUTH = 0.0725, 0.0825
#: How far past the mouth a ball's centre is in the pocket (m): the corner's corridor, the side.
CORNER_DROP, SIDE_DROP = 0.006, 0.004
POCKET_RADIUS = 0.06

PYRAMID_12FT = TableSize(
    "Russian pyramid 12 ft", 3.550, 1.775, 0.034, 0.284, CORNER_MOUTH, SIDE_MOUTH, specs=(
        ("corner_pocket_angle", 0.0), ("corner_jaw_radius", 0.005),
        ("corner_pocket_radius", POCKET_RADIUS),
        ("corner_pocket_depth", POCKET_RADIUS - (CORNER_MOUTH / 2 - CORNER_DROP)),
        ("side_pocket_angle", 0.0), ("side_jaw_radius", 0.011),
        ("side_pocket_radius", POCKET_RADIUS), ("side_pocket_depth", POCKET_RADIUS + SIDE_DROP),
        ("cushion_height", 0.042)))

#: The pyramid's rows from the apex (PP-2): ``None`` is a ball drawn at random.
PYRAMID_ROWS: tuple[tuple[int | None, ...], ...] = (
    (4,), (None, None), (None, 13, None), (None, 14, 15, None), (2, None, None, None, 3))
#: The stroke's error at the contact point (m, one standard deviation) on a straight shot.
CONTACT_SD = 0.0006
#: How often a stroke goes wrong, and how many times the error it then has.
SLOPPY, SLOPPY_SD = 0.1, 12.0


def mouths(size: TableSize) -> dict[Pocket, XY]:
    """Returns the middle of each pocket's mouth, where a player sends the object ball."""
    d = size.corner_mouth / 2 / math.sqrt(2)
    w, length = size.width, size.length
    return {Pocket.HEAD_LEFT: (d, d), Pocket.HEAD_RIGHT: (w - d, d),
            Pocket.SIDE_LEFT: (0.0, length / 2), Pocket.SIDE_RIGHT: (w, length / 2),
            Pocket.FOOT_LEFT: (d, length - d), Pocket.FOOT_RIGHT: (w - d, length - d)}


def pyramid_rack(size: TableSize, rng: random.Random) -> dict[Ball, XY]:
    """Returns the 15 balls racked as seed 004 racks them (PP-2), the apex on the foot spot
    and the base towards the foot cushion; the cue ball is not placed."""
    others = [b for b in range(1, 16) if b not in {4, 13, 14, 15, 2, 3}]
    rng.shuffle(others)
    order = [others.pop() if ball is None else ball for row in PYRAMID_ROWS for ball in row]
    return dict(zip(order, triangle(size, len(PYRAMID_ROWS)), strict=True))


def spot_places(size: TableSize) -> list[XY]:
    """Returns where spotted balls go, in order (PP-9): the foot spot, then along the foot
    cushion from its middle outwards."""
    r = size.ball_radius
    y = size.length - r * 1.01
    places = [(size.width / 2, size.length * 3 / 4), (size.width / 2, y)]
    for k in range(1, 12):
        places += [(size.width / 2 - k * 2.05 * r, y), (size.width / 2 + k * 2.05 * r, y)]
    return places


def in_house(size: TableSize, xy: XY, foot: bool = False) -> bool:
    """Returns whether ``xy`` lies in the house: behind the head string (``foot``: the deep
    end by the third spot, the house when every ball is in the usual one, PP-11)."""
    return xy[1] > size.length * 3 / 4 if foot else xy[1] < size.length / 4


def players_of(seed: int) -> int:
    """Returns how many play the game of ``seed``: two, three, four, by pairs of seeds (a
    corpus alternates the optional sensors rack by rack, so each count gets both)."""
    return (2, 3, 4)[(seed - 1) // 2 % 3]


class PyramidRack(RackPlay):
    """Plays one game of Point pyramid (seed 004; two, three or four players as
    ``players_of`` the seed says) to its target, a draw, or ``MAX_SHOTS``."""

    game = "pyramid"
    MAX_SHOTS = 100

    def __init__(self, engine: Engine, seed: int, sensors: Sensors) -> None:
        super().__init__(engine, seed, sensors)
        self.players = players_of(seed)
        self.oracle = PyramidOracle(players=self.players)
        self.pockets = mouths(engine.size)
        self._in_hand = False  # the coming shot is played from hand in the house
        self._direct = False  # the shot being ruled hit a ball in the house directly from hand

    def play(self) -> RackRecord:
        """Plays the game to its end (or ``MAX_SHOTS``); returns its record."""
        rng, size = self.rng, self.engine.size
        names = [*PLAYERS, "Cat", "Dan"][: self.players]
        self._request("new_match", {"game": "pyramid", "players": names, "race_to": 1, "breaker": 0},
                      dt=1.0)
        balls = pyramid_rack(size, rng)
        balls[CUE] = (size.width / 2 + rng.uniform(-0.4, 0.4), size.length / 4 - rng.uniform(0.05, 0.2))
        shooter, is_break, house_foot = 0, True, False
        for _ in range(self.MAX_SHOTS):
            call: tuple[int, Pocket] | None
            if is_break:
                ax, ay = balls[4]
                cx, cy = balls[CUE]
                phi = math.degrees(math.atan2(ay - cy, ax - cx)) + rng.gauss(0.0, 0.3)
                call, speed, spin = None, rng.uniform(5.0, 7.0), (0.0, 0.0)
            else:
                call, phi, speed, spin = self._choose(balls, house_foot)
            before = dict(balls)
            try:
                happenings, rest = self.engine.shot(balls, phi, speed, spin)
            except ArithmeticError:
                break  # left out of the rack, as the notes advise
            if call is None and not is_break:
                self._request("call", {"calls": [], "kind": "safety"}, dt=1.0)
            self._call(call)
            truth = shot_truth(shooter, is_break, call, happenings)
            direct = self._in_hand and direct_hit_in_house(size, before, happenings, house_foot)
            ruling = self.oracle.rule(truth, direct_hit_in_house=direct)
            self._direct = direct
            self._play(truth, happenings)
            self.record.shots.append({"truth": truth.to_json() | {"from_hand": self._in_hand,
                                                                  "direct_hit_in_house": direct},
                                      "expected": ruling.to_json()})
            if ruling.winner is not None or ruling.drawn or self.stopped:
                break
            balls, house_foot = self._next_position(rest, ruling)
            shooter, is_break = ruling.next_shooter, False
        return self.record

    # ---------------------------------------------------------------- the player
    def _choose(self, balls: dict[Ball, XY],
                house_foot: bool) -> tuple[tuple[int, Pocket] | None, float, float, XY]:
        """Returns the call (None: a safety), the cue's angle, speed and spin of the player's
        next shot: the best pot with a clear path, or else a safety, a soft thin touch on the
        nearest ball."""
        size, rng = self.engine.size, self.rng
        targets = [b for b in balls if b != CUE
                   and not (self._in_hand and in_house(size, balls[b], house_foot))]
        if not targets:  # every ball in the house: any will do (the player risks the foul)
            targets = [b for b in balls if b != CUE]
        best: tuple[float, int, tuple[Pocket, float, float, float]] | None = None
        for ball in targets:
            chosen = plan(balls, int(ball), self.pockets, size.ball_radius)
            if chosen is not None and (best is None or chosen[2] + 25 * chosen[3] < best[0]):
                best = (chosen[2] + 25 * chosen[3], int(ball), chosen)
        if best is None:
            return None, *self._safety(balls, targets), (0.0, 0.0)
        _, ball, (pocket, phi, cut, travel) = best
        speed = min(5.0, 1.0 + 1.0 * travel)
        # side; follow (more often) or draw; a straight pot rolled through with follow
        spin = (rng.uniform(-0.2, 0.2), rng.uniform(0.2, 0.8) if cut < 10 else rng.uniform(-0.4, 0.7))
        phi = self._allow_for_throw(balls[CUE], balls[ball], self.pockets[pocket], phi, speed, spin)
        reach = max(0.05, math.dist(balls[CUE], balls[ball]) - 2 * size.ball_radius)
        sloppy = SLOPPY_SD if rng.random() < SLOPPY else 1.0  # a stroke gone wrong
        sd = sloppy * math.degrees(math.atan2(CONTACT_SD * (1 + cut / 45), reach))
        return (ball, pocket), phi + rng.gauss(0.0, sd), speed * rng.uniform(0.85, 1.15), spin

    def _safety(self, balls: dict[Ball, XY], targets: list[Ball]) -> tuple[float, float]:
        """Returns the cue's angle and speed of a safety: a thin touch on the nearest ball,
        soft, with a stroke error of a degree (it misses the ball now and then)."""
        rng, cue = self.rng, balls[CUE]
        ball = balls[min(targets, key=lambda b: math.dist(cue, balls[b]))]
        distance = math.dist(cue, ball)
        half = math.degrees(math.asin(min(1.0, 2 * self.engine.size.ball_radius / distance)))
        phi = math.degrees(math.atan2(ball[1] - cue[1], ball[0] - cue[0]))
        return phi + rng.choice((-1, 1)) * 0.8 * half + rng.gauss(0.0, 1.0), rng.uniform(0.8, 1.8)

    def _allow_for_throw(self, cue: XY, ball: XY, mouth: XY, phi: float, speed: float,
                         spin: XY) -> float:
        """Returns the cue's angle that sends the ball at ``ball`` towards ``mouth`` (a few
        secant steps on the engine's departure angle, starting from the ghost-ball line
        ``phi``); ``phi`` itself when the engine finds no contact."""
        want = math.degrees(math.atan2(mouth[1] - ball[1], mouth[0] - ball[0]))
        got = self.engine.departure(cue, ball, phi, speed, spin)
        if got is None:
            return phi
        p0, f0 = phi, _turn(got - want)
        p1 = phi - math.copysign(0.05, f0)
        for _ in range(4):
            got = self.engine.departure(cue, ball, p1, speed, spin)
            if got is None:
                return p0
            f1 = _turn(got - want)
            if abs(f1) < 0.01 or f1 == f0:
                return p1
            p0, f0, p1 = p1, f1, p1 - f1 * (p1 - p0) / (f1 - f0)
        return p1

    # ---------------------------------------------------------------- between shots
    def _next_position(self, rest: dict[Ball, XY],
                       ruling: PyramidRuling) -> tuple[dict[Ball, XY], bool]:
        """Returns the balls for the next shot (spotted balls placed, the cue ball in the
        house after it fell) and whether the house is the foot end (PP-11)."""
        size = self.engine.size
        balls = dict(rest)
        places = spot_places(size)
        for ball in ruling.spotted:
            balls[ball] = next(p for p in places
                               if all(math.dist(p, xy) > 2.05 * size.ball_radius for xy in balls.values()))
        self._in_hand = CUE not in balls
        house_foot = False
        if self._in_hand:
            others = {b: xy for b, xy in balls.items() if b != CUE}
            house_foot = all(in_house(size, xy) for xy in others.values())
            outside = [b for b, xy in others.items() if not in_house(size, xy, house_foot)] or list(others)
            target = min(outside, key=lambda b: others[b][1] if not house_foot else -others[b][1])
            if house_foot:
                balls[CUE] = next(p for p in ((size.width / 2 + k * 0.1, size.length * 7 / 8)
                                              for k in range(-6, 7))
                                  if all(math.dist(p, xy) > 2.2 * size.ball_radius for xy in others.values()))
            else:
                balls[CUE] = in_hand(others, int(target), self.pockets, size.ball_radius, size.width,
                                     size.length, True, self.rng)
        return balls, house_foot

    # ---------------------------------------------------------------- the referee
    def _declare(self, truth: ShotTruth, happenings: list[Happening]) -> dict[str, Any]:
        """Returns what the referee declares: only what no sensor sees, where it decides a
        ruling. A miss (no ball touched, no cue ball down: the pipeline presumes a contact);
        a direct hit in the house from hand (no other 5-point foul); and, with no identity
        reader, what fell in the called pocket when it was not the called ball (the pipeline
        presumes the called one), or everything that fell when the cue ball fell with others
        (the cue-ball detector does not say which drop it was)."""
        declare = declared_drops(truth, self.sensors)
        scratch = any(b == CUE for b, _ in truth.drops)
        if truth.first_contact is None and not scratch:
            declare["first_contact"] = None
        elif self._direct and not scratch:
            declare["fouls"] = ["direct_hit_in_kitchen"]
        return declare


def direct_hit_in_house(size: TableSize, balls: dict[Ball, XY], happenings: list[Happening],
                        foot: bool) -> bool:
    """Returns whether the cue ball's first contact was a ball lying in the house (``foot``:
    the deep end, PP-11) with no cushion touched by the cue ball before it (PP-8 и)."""
    first = next((h for h in happenings if h.kind == "contact" and CUE in (h.a, h.b)), None)
    if first is None:
        return False
    other = first.b if first.a == CUE else first.a
    cushion_first = any(h.kind == "cushion" and h.a == CUE and h.t < first.t for h in happenings)
    return other in balls and in_house(size, balls[other], foot) and not cushion_first


def _turn(angle: float) -> float:
    """Returns ``angle`` (degrees) brought into (-180, 180]."""
    return (angle + 180) % 360 - 180
