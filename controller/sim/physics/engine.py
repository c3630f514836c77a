"""pooltool (``pooltool-billiards`` 0.6.0, ``./dev physics-install``) as the physics: tables
as the seeds play them, racks, one shot simulated into ``Happening`` records.

The one module that imports pooltool, and only when ``load`` is called: nothing else of
the project needs it. pooltool writes ``$HOME/.config/pooltool`` on import, so ``load``
gives it a temporary ``HOME`` when the real one is not writable.

Coordinates are pooltool's: x across the table (0 on the left seen from the head end), y
along it (0 at the head end, the kitchen's). Its pocket ids ``lb``/``rb`` are our head
pockets, ``lc``/``rc`` the sides, ``lt``/``rt`` the foot; its cushion segments 1, 17, 18
lie on the head rail, 8–10 on the foot rail, 2–4 and 5–7 on the left rail's head and foot
halves, 14–16 and 11–13 on the right rail's (measured with 0.6.0,
``/work/shared/notes/pooltool.md``).
"""

from __future__ import annotations

import math
import os
import tempfile
from dataclasses import dataclass
from typing import Any

from controller.sim.physics.truth import CUE, Ball, Happening
from vocabulary import Pocket, Rail

XY = tuple[float, float]


class PhysicsUnavailable(RuntimeError):
    """pooltool is not installed (``./dev physics-install`` adds it)."""


def load_pooltool() -> Any:
    """Returns the pooltool module. Raises PhysicsUnavailable when it is not installed."""
    home = os.environ.get("HOME", "")
    if not home or not os.access(home, os.W_OK):
        os.environ["HOME"] = tempfile.mkdtemp(prefix="pooltool-home-")
    try:
        import pooltool
    except ImportError as exc:
        raise PhysicsUnavailable(
            "the physics simulation needs pooltool: run ./dev physics-install") from exc
    return pooltool


POCKET_OF = {"lb": Pocket.HEAD_LEFT, "rb": Pocket.HEAD_RIGHT, "lc": Pocket.SIDE_LEFT,
             "rc": Pocket.SIDE_RIGHT, "lt": Pocket.FOOT_LEFT, "rt": Pocket.FOOT_RIGHT}


def rail_of(segment_id: str) -> Rail:
    """Returns the rail segment a linear cushion segment's id lies on."""
    n = int(segment_id.rstrip("t"))
    if n in (1, 17, 18):
        return Rail.HEAD
    if n in (8, 9, 10):
        return Rail.FOOT
    if 2 <= n <= 4:
        return Rail.LEFT_HEAD
    if 5 <= n <= 7:
        return Rail.LEFT_FOOT
    if 14 <= n <= 16:
        return Rail.RIGHT_HEAD
    return Rail.RIGHT_FOOT


@dataclass(frozen=True, slots=True)
class TableSize:
    """A table's playing field (m), its balls and its pockets' mouths (m)."""

    name: str
    length: float
    width: float
    ball_radius: float
    ball_mass: float
    corner_mouth: float
    side_mouth: float
    #: further fields of pooltool's ``PocketTableSpecs`` by name (pocket radii and depths,
    #: jaw radii and angles, the cushion's height): pooltool's defaults where not given
    specs: tuple[tuple[str, float], ...] = ()


#: Ten-ball (seed 001) and Siberian Ten (seed 000: an American pool table): a 9 ft pool
#: table, the WPA's equipment specifications (100 × 50 in playing field, 2¼ in balls,
#: corner mouths 4½–4⅝ in, sides 5–5⅛ in); figures as commonly published, no federation
#: document was reachable from this machine.
POOL_9FT = TableSize("pool 9 ft", 2.540, 1.270, 0.028575, 0.170, 0.116, 0.129)


def rail_at(size: TableSize, x: float, y: float) -> Rail:
    """Returns the rail segment nearest the point (x, y): where a jaw touch shakes."""
    d = {Rail.HEAD: y, Rail.FOOT: size.length - y,
         Rail.LEFT_HEAD if y < size.length / 2 else Rail.LEFT_FOOT: x,
         Rail.RIGHT_HEAD if y < size.length / 2 else Rail.RIGHT_FOOT: size.width - x}
    return min(d, key=lambda r: d[r])


def crossings(track: list[tuple[float, float]], middle: float) -> list[float]:
    """Returns the times a ball whose (time, y) at each event of a shot is ``track`` crossed
    the line y = ``middle``: between two events a ball runs straight or on a gentle curve,
    so the time is interpolated between them. A ball that stops on the line crosses it
    only when it goes on to the other side."""
    times: list[float] = []
    side, last_t = 0.0, 0.0
    on_line: float | None = None  # when the ball reached the line, if it is on it
    for t, y in track:
        here = y - middle
        if not here:
            on_line = t if on_line is None else on_line
            continue
        if side and (here > 0) != (side > 0):
            times.append(on_line if on_line is not None else last_t + (t - last_t) * side / (side - here))
        side, last_t, on_line = here, t, None
    return times


class Engine:
    """One table's physics: ``table`` built from ``size``; ``shot`` simulates a strike."""

    def __init__(self, size: TableSize) -> None:
        self.pt = load_pooltool()
        self.size = size
        specs = self.pt.objects.PocketTableSpecs()
        import attrs

        specs = attrs.evolve(specs, l=size.length, w=size.width,
                             corner_pocket_width=size.corner_mouth, side_pocket_width=size.side_mouth,
                             **dict(size.specs))
        self.table = self.pt.Table.from_table_specs(specs)
        self.params = attrs.evolve(self.pt.objects.BallParams.default(), R=size.ball_radius,
                                   m=size.ball_mass)

    def pocket_centre(self, pocket: Pocket) -> tuple[float, float]:
        """Returns the centre of ``pocket``'s opening (x, y)."""
        pid = next(k for k, v in POCKET_OF.items() if v == pocket)
        c = self.table.pockets[pid].center
        return float(c[0]), float(c[1])

    def shot(self, balls: dict[Ball, XY], phi: float, speed: float,
             spin: XY = (0.0, 0.0)) -> tuple[list[Happening], dict[Ball, XY]]:
        """Simulates the cue ball struck at angle ``phi`` (degrees, from +x) with ``speed``
        (m/s). Returns the shot's happenings in time order and where the balls still on the
        table came to rest. Raises ArithmeticError when the engine cannot resolve a collision.
        """
        pt = self.pt
        objs = {str(b): pt.Ball.create(str(b), xy=xy, **{"R": self.params.R, "m": self.params.m})
                for b, xy in balls.items()}
        system = pt.System(cue=pt.Cue(cue_ball_id=CUE), table=self.table, balls=objs)
        system.strike(V0=speed, phi=phi, a=spin[0], b=spin[1], theta=0.0)
        try:
            pt.simulate(system, inplace=True)
        except AssertionError as exc:  # the compliant cushion model, rarely (see the notes)
            raise ArithmeticError(f"the engine could not resolve a collision: {exc}") from exc
        happenings = [h for e in system.events if (h := self._happening(e)) is not None]
        happenings = sorted(happenings + self._centre_crossings(system), key=lambda h: h.t)
        rest: dict[Ball, XY] = {}
        for bid, ball in system.balls.items():
            if ball.state.s != 4:
                rest[_ball(bid)] = (float(ball.state.rvw[0][0]), float(ball.state.rvw[0][1]))
        return happenings, rest

    def _centre_crossings(self, system: Any) -> list[Happening]:
        """Returns a ``centre`` happening for each time a ball's centre crossed the table's
        centre line, from the ball's states at each event of the shot."""
        found: list[Happening] = []
        for bid, ball in system.balls.items():
            track = [(float(st.t), float(st.rvw[0][1])) for st in ball.history.states if st.s != 4]
            found += [Happening(t, "centre", _ball(bid)) for t in crossings(track, self.size.length / 2)]
        return found

    def departure(self, cue: XY, ball: XY, phi: float, speed: float,
                  spin: XY = (0.0, 0.0)) -> float | None:
        """Returns the direction (degrees from +x) in which the object ball at ``ball`` leaves
        the cue ball struck from ``cue`` at ``phi`` with ``speed`` (the two alone on the
        table): the throw a player allows for from experience. None when they do not meet."""
        pt = self.pt
        objs = {str(b): pt.Ball.create(str(b), xy=xy, **{"R": self.params.R, "m": self.params.m})
                for b, xy in ((CUE, cue), ("1", ball))}
        system = pt.System(cue=pt.Cue(cue_ball_id=CUE), table=self.table, balls=objs)
        system.strike(V0=speed, phi=phi, a=spin[0], b=spin[1], theta=0.0)
        try:
            pt.simulate(system, inplace=True, max_events=12)
        except AssertionError:
            return None
        for event in system.events:
            if str(event.event_type) == "ball_ball":
                out = next(a for a in event.agents if a.id == "1").final.state.rvw[1]
                return math.degrees(math.atan2(float(out[1]), float(out[0])))
        return None

    def _happening(self, event: Any) -> Happening | None:
        kind = str(event.event_type)
        t = float(event.time)
        a = event.agents[0]
        if kind == "ball_ball":
            b = event.agents[1]
            va, vb = a.initial.state.rvw[1], b.initial.state.rvw[1]
            rel = math.hypot(float(va[0] - vb[0]), float(va[1] - vb[1]))
            return Happening(t, "contact", _ball(a.id), _ball(b.id), speed=rel)
        if kind == "ball_linear_cushion":
            seg = event.agents[1].initial
            v = a.initial.state.rvw[1]
            dx, dy = float(seg.p2[0] - seg.p1[0]), float(seg.p2[1] - seg.p1[1])
            norm = math.hypot(dx, dy) or 1.0
            vn = abs(float(v[0]) * -dy / norm + float(v[1]) * dx / norm)
            return Happening(t, "cushion", _ball(a.id), rail=rail_of(str(seg.id)), speed=vn)
        if kind == "ball_circular_cushion":
            seg = event.agents[1].initial
            r, v = a.initial.state.rvw[0], a.initial.state.rvw[1]
            nx, ny = float(r[0] - seg.center[0]), float(r[1] - seg.center[1])
            norm = math.hypot(nx, ny) or 1.0
            vn = abs(float(v[0]) * nx / norm + float(v[1]) * ny / norm)
            return Happening(t, "cushion", _ball(a.id), rail=rail_at(self.size, float(r[0]), float(r[1])),
                             speed=vn, jaw=True)
        if kind == "ball_pocket":
            v = a.initial.state.rvw[1]
            return Happening(t, "pocket", _ball(a.id), pocket=POCKET_OF[str(event.agents[1].id)],
                             speed=math.hypot(float(v[0]), float(v[1])))
        return None


def _ball(bid: str) -> Ball:
    return CUE if bid == CUE else int(bid)
