"""One rack played on the physics: the trace a table would record, the truth beside it, and
the ruling a referee with perfect facts gives each shot.

``RackPlay`` is what every game's rack shares: the trace, the sensor events a shot's
happenings cause, the referee's declarations and its truthful answers (an ``identify``
question none of whose choices fell there is refused, never answered with a wrong ball: the
referee declares what fell where instead, and a question still open is recorded, ending the
rack). ``TenBallRack(engine, seed, sensors).play()`` breaks as seed 001 racks (the 1 on the foot
spot, the 10 in the middle of the triangle), then the simulated player calls and plays the
lowest ball until the game is over. The pipeline (a ``Table``) runs alongside only so that
the referee can answer the questions it asks, truthfully from the physics, as a person at
the table would; it rules nothing of the expected record. The referee declares only what no
sensor sees, and only where it decides a ruling: a first contact that was not the lowest
ball (or no contact), what fell in the called pocket when it was not the called ball and
no identity reader tells (all that fell, when the cue ball fell with other balls),
cushions after the contact that the sensors did not feel, or none
when they felt only hits before it, and on a break that pocketed nothing how many object
balls reached a cushion.
"""

from __future__ import annotations

import abc
import contextlib
import math
import random
from dataclasses import dataclass, field
from typing import Any

from controller.pipeline.fusion import fusion_config
from controller.pipeline.table import Table
from controller.sim.physics.engine import Engine, TableSize
from controller.sim.physics.player import aim, free_spot, in_hand
from controller.sim.physics.sensors import Sensors, felt, sensor_events
from controller.sim.physics.truth import (
    CUE,
    TEN,
    Ball,
    Happening,
    Ruling,
    ShotTruth,
    TenBallOracle,
    shot_truth,
)
from controller.sim.referee import answer_all
from hardware.events import SensorEvent
from vocabulary import POCKETS, Pocket

XY = tuple[float, float]
PLAYERS = ("Ann", "Bob")


@dataclass
class RackRecord:
    """A played rack: its trace lines, and each shot's truth and expected ruling."""

    game: str
    seed: int
    sensors: Sensors
    lines: list[dict[str, Any]] = field(default_factory=list)
    shots: list[dict[str, Any]] = field(default_factory=list)
    #: questions the referee would not answer (none of the choices true), by shot number
    refused: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Returns the record as one JSON object (a corpus line)."""
        return {"game": self.game, "seed": self.seed, "sensors": self.sensors.fusion()
                | {"click": self.sensors.click}, "trace": self.lines, "shots": self.shots,
                "refused": self.refused}


def triangle(size: TableSize, rows: int) -> list[XY]:
    """Returns the spots of a triangle rack of ``rows`` rows, the apex on the foot spot and
    the base parallel to the foot rail, row by row from the apex (left to right)."""
    r = size.ball_radius * 1.002
    return [(size.width / 2 + (k - row / 2) * 2 * r, size.length * 3 / 4 + row * r * math.sqrt(3))
            for row in range(rows) for k in range(row + 1)]


def declared_drops(truth: ShotTruth, sensors: Sensors) -> dict[str, Any]:
    """Returns the ``pocketed`` declaration a table without an identity reader needs (none
    with one): the one drop in the called pocket is presumed the called ball, and the
    cue-ball detector cannot tell which of several drops was the cue ball, so the referee
    says what really fell where when that matters."""
    if sensors.identity_reader:
        return {}
    there = [b for b, p in truth.drops if truth.call is not None and p == truth.call[1]]
    if len(truth.drops) > 1 and any(b == CUE for b, _ in truth.drops):
        return {"pocketed": [{"ball": b, "pocket": p} for b, p in truth.drops]}
    if truth.call is not None and len(there) == 1 and there[0] not in (truth.call[0], CUE):
        return {"pocketed": [{"ball": there[0], "pocket": truth.call[1]}]}
    return {}


def ten_ball_rack(engine: Engine, rng: random.Random) -> dict[Ball, XY]:
    """Returns the balls racked as seed 001 (9.2) racks them, the 1 on the foot spot and the
    10 in the middle, the others at random; the cue ball is not placed."""
    spots = triangle(engine.size, 4)
    others = list(range(2, 10))
    rng.shuffle(others)
    order = [1, *others[:3], TEN, *others[3:]]  # spot 4 is the middle of the third row
    return {ball: spots[i] for i, ball in enumerate(order)}


class RackPlay(abc.ABC):
    """The trace of one rack as a table records it, for any game: the match started, the
    sensor events a shot's happenings cause, the referee's declarations and answers. The
    pipeline (a ``Table``) runs alongside only so that the referee can answer the questions
    it asks, truthfully from the physics; it rules nothing of the expected record.

    A game's rack says what its referee declares (``_declare``) and plays the shots."""

    game = ""

    def __init__(self, engine: Engine, seed: int, sensors: Sensors) -> None:
        self.engine = engine
        self.rng = random.Random(seed)
        self.sensors = sensors
        self.record = RackRecord(self.game, seed, sensors)
        fusion = sensors.fusion()
        self.record.lines.append({"trace": 1, "venue": "sim", "table": "t1",
                                  "recorded": "2026-12-03T07:00:00Z",
                                  "simulated": {"game": self.game, "seed": seed, "physics": "pooltool"},
                                  "fusion": fusion})
        self.config = fusion_config(fusion)
        self.table = Table(fusion=self.config)
        self.table.start(0.0)
        self.t = 0.0
        self.pockets = {p: engine.pocket_centre(p) for p in POCKETS}
        self._truth: ShotTruth | None = None
        self._happenings: list[Happening] = []
        self.stopped = False  # a question the referee would not answer is open

    @abc.abstractmethod
    def play(self) -> RackRecord:
        """Plays the rack to its end (or a cap on its shots); returns its record."""

    # ---------------------------------------------------------------- the trace
    def _request(self, name: str, payload: dict[str, Any], dt: float) -> None:
        self.t += dt
        self.record.lines.append({"t": round(self.t, 6), "request": name, "payload": payload})
        self.table.advance(self.t)
        self.table.request(name, payload, round(self.t, 6))

    def _call(self, call: tuple[int, Pocket] | None) -> None:
        """Records the shooter's call of ball and pocket (nothing when there is none)."""
        if call is not None:
            self._request("call", {"calls": [{"ball": call[0], "pocket": call[1]}], "kind": "normal"},
                          dt=1.0)

    def _sensor(self, ev: SensorEvent) -> None:
        ev = SensorEvent(round(ev.t, 6), ev.ch, ev.v, ev.level, ev.ball, ev.pocket)
        self.record.lines.append(ev.to_json())
        self.table.sensor(ev)

    def _play(self, truth: ShotTruth, happenings: list[Happening]) -> None:
        """Records the shot's sensor events and the referee's declaration, then answers the
        pipeline's questions."""
        rng = self.rng
        self._truth, self._happenings = truth, happenings
        start = self.t + rng.uniform(1.0, 2.0)
        events = sensor_events(happenings, start, self.sensors, rng)
        for ev in events:
            self._sensor(ev)
        self.t = max([self.t, start, *(e.t for e in events)])
        declare = self._declare(truth, happenings)
        if declare:
            self._request("declare", {**declare, "shot": self._shot_no()}, dt=0.5)
        if not events:
            self._request("shot_end", {}, dt=1.5)
        self.t += self.config.quiet_s + self.config.identity_max_s + 0.5
        self.table.advance(self.t)
        self._answer_all()

    def _shot_no(self) -> int:
        """Returns the number of the shot being played (the pipeline's numbering): a
        declaration names it, so it never goes to the shot before."""
        return len(self.record.shots) + 1

    def _declare(self, truth: ShotTruth, happenings: list[Happening]) -> dict[str, Any]:
        """Returns what the referee declares of the shot (nothing, by default)."""
        return {}

    def _answer_all(self) -> None:
        """Answers the pipeline's questions. Where the referee refuses one (no choice is
        true), it declares what really fell where instead; a question still open then is
        recorded in ``record.refused`` and ends the rack (``stopped``)."""
        try:
            answer_all(self.table, self._truthful, self._request)
            return
        except Refused as exc:
            refused = str(exc)
        assert self._truth is not None
        self._request("declare", {"pocketed": [{"ball": b, "pocket": p} for b, p in self._truth.drops],
                                  "shot": self._shot_no()},
                      dt=1.0)
        with contextlib.suppress(Refused):  # a question still open is recorded below
            answer_all(self.table, self._truthful, self._request)
        if self.table.referee.questions:
            self.record.refused.append({"shot": len(self.record.shots) + 1, "question": refused})
            self.stopped = True

    def _truthful(self, q: Any) -> Any:
        """Returns the true answer to ``q``, as the referee saw the shot."""
        assert self._truth is not None
        return true_answer(self._truth, q)


def true_answer(truth: ShotTruth, q: Any) -> Any:
    """Returns the true answer to the pipeline's question ``q`` (a ``Question`` of the
    referee core) about the shot whose facts are ``truth``, as a referee at the table gives
    it. Raises Refused on an ``identify`` question none of whose choices fell there (the
    referee picks none), ValueError on a topic it cannot answer."""
    topic = str(q.topic)
    if q.kind == "identify":
        pocket = q.params.get("pocket")
        fell = [b for b, p in truth.drops if (pocket is None or p == pocket) and b in q.choices]
        if len(fell) < q.count:
            raise Refused(f"{q.describe()}: none of {list(q.choices)} fell there")
        picked = fell[: q.count]
        return picked if q.count > 1 else picked[0]
    if q.kind == "confirm":
        pocket = q.params.get("pocket")
        answers = {
            "ball_fell": any(p == pocket for _, p in truth.drops),
            "cue_ball": any(b == CUE and p == pocket for b, p in truth.drops),
            "called_ball": (q.params.get("ball"), pocket) in truth.drops,
            "was_called": truth.call == (q.params.get("ball"), pocket),
            "any_called": truth.call is not None and truth.call in truth.drops,
            "rail_after_contact": truth.cushions_after_contact > 0,
            "four_balls_to_cushions": truth.balls_to_cushion >= 4,
            "first_contact": truth.first_contact == q.params.get("ball"),
            "contact": truth.first_contact is not None,
        }
        if topic in answers:
            return answers[topic]
        raise ValueError(f"the simulated referee cannot answer {topic!r}")
    if "shoot" in q.choices:
        return "shoot"
    return list(q.choices)[0]


class Refused(Exception):
    """The referee will not answer a question: none of its choices is true."""


class TenBallRack(RackPlay):
    """Plays one rack of Ten-ball (two players, race to one)."""

    game = "ten-ball"
    MAX_SHOTS = 40

    def __init__(self, engine: Engine, seed: int, sensors: Sensors) -> None:
        super().__init__(engine, seed, sensors)
        self.oracle = TenBallOracle()

    # ---------------------------------------------------------------- play
    def play(self) -> RackRecord:
        """Plays the rack to its end (or ``MAX_SHOTS``); returns its record."""
        rng = self.rng
        self._request("new_match", {"game": "ten-ball", "players": list(PLAYERS), "race_to": 1,
                                    "breaker": 0}, dt=1.0)
        size = self.engine.size
        balls = ten_ball_rack(self.engine, rng)
        balls[CUE] = (size.width / 2 + rng.uniform(-0.3, 0.3), size.length / 4 - rng.uniform(0.0, 0.1))
        shooter, is_break = 0, True
        for _ in range(self.MAX_SHOTS):
            lowest = min(b for b in balls if b != CUE)
            if is_break:
                ox, oy = balls[1]
                cx, cy = balls[CUE]
                phi = math.degrees(math.atan2(oy - cy, ox - cx)) + rng.gauss(0.0, 0.4)
                call: tuple[int, Pocket] | None = None
                speed = rng.uniform(6.0, 8.5)
            else:
                shot = aim(balls, int(lowest), self.pockets, size.ball_radius, rng)
                call, phi, speed = (int(lowest), shot.pocket), shot.phi, shot.speed
            try:
                happenings, rest = self.engine.shot(balls, phi, speed)
            except ArithmeticError:
                break  # left out of the rack, as the notes advise
            self._call(call)
            truth = shot_truth(shooter, is_break, call, happenings)
            ruling = self.oracle.rule(truth)
            self._play(truth, happenings)
            self.record.shots.append({"truth": truth.to_json(), "expected": ruling.to_json()})
            if ruling.winner is not None or self.stopped:
                break
            balls = self._next_position(rest, ruling, truth)
            shooter, is_break = ruling.next_shooter, False
        return self.record

    def _next_position(self, rest: dict[Ball, XY], ruling: Ruling, truth: ShotTruth) -> dict[Ball, XY]:
        size = self.engine.size
        balls = dict(rest)
        if ruling.spotted_ten:
            balls[TEN] = free_spot(balls, size.width / 2, size.length * 3 / 4, size.ball_radius,
                                   (0.0, size.ball_radius))
        if ruling.foul:
            scratch = any(b == CUE for b, _ in truth.drops)
            balls.pop(CUE, None)
            lowest = min(b for b in balls if b != CUE)
            balls[CUE] = in_hand(balls, int(lowest), self.pockets, size.ball_radius, size.width,
                                 size.length, scratch, self.rng)
        return balls

    def _declare(self, truth: ShotTruth, happenings: list[Happening]) -> dict[str, Any]:
        """Returns what the referee declares: only what no sensor sees, where it decides."""
        down = [b for b, _ in truth.drops if b != CUE]
        lowest = min(self.oracle.on_table | {b for b in down if isinstance(b, int)})
        declare = declared_drops(truth, self.sensors)
        if truth.first_contact != lowest:
            declare["first_contact"] = truth.first_contact
            return declare
        if truth.is_break:
            if not down:
                declare["balls_to_cushion"] = min(15, truth.balls_to_cushion)
            return declare
        if down:
            return declare
        contact = next(h.t for h in happenings if h.kind == "contact")
        felt_after = [h for h in happenings if felt(h) and h.t >= contact]
        felt_before = [h for h in happenings if felt(h) and h.t < contact]
        if truth.cushions_after_contact and not felt_after:
            declare["cushions_after_contact"] = truth.cushions_after_contact
        elif not truth.cushions_after_contact and felt_before and not self.sensors.click:
            declare["cushions_after_contact"] = 0
        return declare
