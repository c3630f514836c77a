"""Siberian Ten (seed 000) played on the physics: the table, the rack, the player, the referee.

``SiberianRack(engine, seed, sensors).play()`` racks as seed 000 says («Начальная
расстановка шаров»): ten balls in a triangle, the apex on the foot spot, the base parallel to
the foot rail (the numbers at random); the cue ball anywhere in the kitchen, not on its line.
The breaker breaks from hand in the kitchen with no call; then each shot the simulated
player calls the ball and pocket it plays («заказная игра»: the easiest pot among all the
balls, ``controller.sim.physics.player``), and the cue ball too where the shot played as meant
would sink it («свояк»), and misses as a club player does. From hand in the kitchen after a
foul it plays no ball lying in the kitchen (ST-12), or, with nothing else left, banks off
the foot rail at one. At 5:5 with the table empty the shoot-out's bullets
are played from the head and foot spots, each player from their own end.

The referee declares only what no sensor sees, and only where it decides the ruling: a miss
(no ball touched: nothing else tells it), a direct hit on a ball in the kitchen (ST-12), what
fell where when no identity reader tells (``declared_drops``), and, when the two-cushion rule
applies (nothing fell), the cushions after the contact where the ones the sensors felt
would rule otherwise, and the centre line where one cushion leaves the rule to it. It
answers the pipeline's questions truthfully, and its players' choices as the oracle made
them (``controller.sim.physics.truth_siberian``).
"""

from __future__ import annotations

import math
from typing import Any

from controller.sim.physics.engine import POOL_9FT, Engine, TableSize
from controller.sim.physics.player import aim, in_hand, plan
from controller.sim.physics.rack import PLAYERS, RackPlay, RackRecord, Refused, declared_drops, triangle
from controller.sim.physics.sensors import CLICK_MPS, Sensors, felt
from controller.sim.physics.truth import CUE, Ball, Happening, ShotTruth, one_rail, shot_truth
from controller.sim.physics.truth_siberian import (
    ORACLE_OPTIONS,
    SiberianFacts,
    SiberianOracle,
    SiberianRuling,
    two_cushions,
)
from vocabulary import POCKETS, Pocket

XY = tuple[float, float]

#: Seed 000 plays «на американском столе», a pool table: the 9 ft one (``POOL_9FT``).
SIBERIAN_TABLE: TableSize = POOL_9FT
#: The share of shots played softly, for position: the two-cushion rule's test.
SOFT_SHARE = 0.2
#: The share of breaks played softly (the two-cushion rule then decides whether it is legal).
SOFT_BREAK = 0.25
#: The share of shots from hand after a foul where the player forgets ST-12 and may play
#: a ball in the kitchen directly.
KITCHEN_SLIP = 0.15
#: The object ball of a bullet (the pipeline resolves a bullet's drops to ball 1).
BULLET_BALL = 1


def siberian_rack(engine: Engine, order: list[int]) -> dict[Ball, XY]:
    """Returns the ten balls racked in ``order`` from the apex (on the foot spot) row by row;
    the cue ball is not placed."""
    return dict(zip(order, triangle(engine.size, 4), strict=True))


def in_kitchen(size: TableSize, xy: XY) -> bool:
    """Returns whether a ball lies in the kitchen: behind the head string (its line is not in
    it, «но не на линии дома»)."""
    return xy[1] < size.length / 4


class SiberianRack(RackPlay):
    """Plays one game of Siberian Ten (two players, race to one): to six balls, or the
    shoot-out's end."""

    game = "siberian-ten"
    MAX_SHOTS = 60

    def __init__(self, engine: Engine, seed: int, sensors: Sensors) -> None:
        super().__init__(engine, seed, sensors)
        self.oracle = SiberianOracle()
        self._facts: SiberianFacts | None = None
        self._ruling: SiberianRuling | None = None

    # ---------------------------------------------------------------- play
    def play(self) -> RackRecord:
        """Plays the game to its end (or ``MAX_SHOTS``); returns its record."""
        rng = self.rng
        size = self.engine.size
        self._request("new_match", {"game": self.game, "players": list(PLAYERS), "race_to": 1,
                                    "breaker": 0, "options": dict(ORACLE_OPTIONS)}, dt=1.0)
        order = list(range(1, 11))
        rng.shuffle(order)
        balls = siberian_rack(self.engine, order)
        balls[CUE] = (size.width / 2 + rng.uniform(-0.3, 0.3), size.length / 4 - rng.uniform(0.02, 0.1))
        shooter, is_break, after_foul, from_kitchen = 0, True, False, False
        for _ in range(self.MAX_SHOTS):
            bullet = self.oracle.first is not None
            cue_call: Pocket | None = None
            if is_break:
                call, phi, speed = None, *self._break(balls, order[0])
            elif bullet:
                balls = self._bullet_position(shooter)
                shot = aim(balls, BULLET_BALL, self.pockets, size.ball_radius, rng)
                call, phi, speed = None, shot.phi, shot.speed
            else:
                if from_kitchen:
                    balls = self._cue_in_hand(balls, after_foul)
                kitchen_rule = after_foul and from_kitchen and rng.random() >= KITCHEN_SLIP
                call, phi, speed = self._choose(balls, kitchen_rule)
                cue_call = self._scratch_foreseen(balls, call, speed)
            try:
                happenings, rest = self.engine.shot(balls, phi, speed)
            except ArithmeticError:
                break  # left out of the rack, as the notes advise
            truth = shot_truth(shooter, is_break, call, happenings)
            facts = SiberianFacts(truth, centre_line=crossed_after_contact(happenings),
                                  kitchen_hit=after_foul and from_kitchen
                                  and self._kitchen_hit(balls, truth, happenings),
                                  bullet=bullet, cue_call=cue_call)
            if call is not None or bullet:  # a bullet is called with no ball: it opens the shot
                calls = [{"ball": b, "pocket": p} for b, p in facts.calls()]
                self._request("call", {"calls": calls, "kind": "normal"}, dt=1.0)
            ruling = self.oracle.rule(facts)
            self._facts, self._ruling = facts, ruling
            self._play(truth, happenings)
            self.record.shots.append({"truth": facts.to_json(), "expected": ruling.to_json()})
            if ruling.winner is not None or self.stopped:
                break
            balls = {b: xy for b, xy in rest.items() if b not in ruling.picked}
            illegal_break = is_break and truth.first_contact is not None and ruling.foul
            after_foul = ruling.foul and not illegal_break
            from_kitchen = any(b == CUE for b, _ in truth.drops) or after_foul
            shooter, is_break = ruling.next_shooter, False
        return self.record

    def _break(self, balls: dict[Ball, XY], apex: int) -> tuple[float, float]:
        """Returns the break's angle and speed: at the apex ball, hard, or (``SOFT_BREAK``
        of the breaks) softly, to leave the opponent nothing."""
        rng = self.rng
        (ox, oy), (cx, cy) = balls[apex], balls[CUE]
        phi = math.degrees(math.atan2(oy - cy, ox - cx)) + rng.gauss(0.0, 0.4)
        soft = rng.random() < SOFT_BREAK
        return phi, rng.uniform(1.5, 3.0) if soft else rng.uniform(6.0, 8.5)

    def _choose(self, balls: dict[Ball, XY], kitchen_rule: bool) -> tuple[tuple[int, Pocket], float, float]:
        """Returns the call, the cue's angle and speed: the easiest pot among the balls (not
        those in the kitchen under ST-12), or a bank off the foot rail at a kitchen ball."""
        size = self.engine.size
        targets = [b for b in balls if b != CUE and not (kitchen_rule and in_kitchen(size, balls[b]))]
        if not targets:
            return self._bank(balls)
        scored = []
        for b in targets:
            chosen = plan(balls, int(b), self.pockets, size.ball_radius)
            scored.append((1e3 if chosen is None else chosen[2] + 25 * chosen[3], int(b)))
        target = min(scored)[1]
        shot = aim(balls, target, self.pockets, size.ball_radius, self.rng)
        soft = self.rng.random() < SOFT_SHARE  # a touch for position, often too soft
        return (target, shot.pocket), shot.phi, shot.speed * (self.rng.uniform(0.2, 0.5) if soft else 1.0)

    def _scratch_foreseen(self, balls: dict[Ball, XY], call: tuple[int, Pocket],
                          speed: float) -> Pocket | None:
        """Returns the pocket the cue ball would fall in after the contact if the shot on
        ``call`` went as meant (the ghost-ball line, ``speed``): a player who sees it coming
        calls the cue ball there too («свояк», ST-9); None otherwise."""
        size = self.engine.size
        meant = plan(balls, call[0], self.pockets, size.ball_radius)
        if meant is None or meant[0] != call[1]:
            return None
        try:
            happenings, _ = self.engine.shot(balls, meant[1], speed)
        except ArithmeticError:
            return None
        contact = next((h.t for h in happenings if h.kind == "contact" and CUE in (h.a, h.b)), None)
        return next((h.pocket for h in happenings if h.kind == "pocket" and h.a == CUE
                     and contact is not None and h.t > contact), None)

    def _bank(self, balls: dict[Ball, XY]) -> tuple[tuple[int, Pocket], float, float]:
        """Returns a one-cushion kick off the foot rail at the kitchen ball nearest it, called
        in the pocket nearest that ball."""
        size = self.engine.size
        target = max((b for b in balls if b != CUE), key=lambda b: balls[b][1])
        tx, ty = balls[target]
        mirror = 2 * (size.length - size.ball_radius) - ty  # the ball seen in the foot cushion
        cx, cy = balls[CUE]
        phi = math.degrees(math.atan2(mirror - cy, tx - cx)) + self.rng.gauss(0.0, 1.0)
        pocket = min(POCKETS, key=lambda p: math.dist(self.pockets[p], (tx, ty)))
        return (int(target), pocket), phi, self.rng.uniform(3.0, 4.5)

    def _cue_in_hand(self, balls: dict[Ball, XY], kitchen_rule: bool) -> dict[Ball, XY]:
        """Returns the balls with the cue ball placed in the kitchen for the best pot."""
        size = self.engine.size
        others = {b: xy for b, xy in balls.items() if b != CUE}
        targets = [b for b in others if not (kitchen_rule and in_kitchen(size, others[b]))]
        best: tuple[float, XY] | None = None
        for b in targets or list(others):
            xy = in_hand(others, int(b), self.pockets, size.ball_radius, size.width, size.length,
                         True, self.rng)
            chosen = plan({**others, CUE: xy}, int(b), self.pockets, size.ball_radius)
            score = 1e3 if chosen is None else chosen[2] + 25 * chosen[3]
            if best is None or score < best[0]:
                best = (score, xy)
        assert best is not None
        return {**others, CUE: best[1]}

    def _bullet_position(self, shooter: int) -> dict[Ball, XY]:
        """Returns a bullet's balls on the spots (ST-20): the first shooter's cue ball on the
        head spot and the object ball on the foot spot, the other's the other way round."""
        size = self.engine.size
        head, foot = (size.width / 2, size.length / 4), (size.width / 2, size.length * 3 / 4)
        if shooter == self.oracle.first:
            return {CUE: head, BULLET_BALL: foot}
        return {CUE: foot, BULLET_BALL: head}

    def _kitchen_hit(self, balls: dict[Ball, XY], truth: ShotTruth, happenings: list[Happening]) -> bool:
        """Returns whether the first ball struck lay in the kitchen and the cue ball had
        touched no cushion before it (ST-12)."""
        if truth.first_contact is None or not in_kitchen(self.engine.size, balls[truth.first_contact]):
            return False
        contact = next(h.t for h in happenings if h.kind == "contact" and CUE in (h.a, h.b))
        return not any(h.kind == "cushion" and h.a == CUE and h.t < contact for h in happenings)

    # ---------------------------------------------------------------- the referee
    def _declare(self, truth: ShotTruth, happenings: list[Happening]) -> dict[str, Any]:
        """Returns what the referee declares: only what no sensor sees, where it decides."""
        facts = self._facts
        assert facts is not None
        declare = declared_drops(truth, self.sensors)
        if truth.first_contact is None:
            declare["first_contact"] = None
            return declare
        if facts.kitchen_hit:
            declare["fouls"] = ["direct_hit_in_kitchen"]
            return declare
        if facts.bullet or truth.drops:
            return declare  # the two-cushion rule applies when nothing fell
        seen = cushions_felt(happenings, self.sensors.click)
        count = truth.cushions_after_contact
        if two_cushions(seen, facts.centre_line) != two_cushions(count, facts.centre_line):
            declare["cushions_after_contact"] = count
            seen = count
        if seen == 1:
            declare["centre_line"] = facts.centre_line
        return declare

    def _truthful(self, q: Any) -> Any:
        """Returns the true answer to ``q``; the players' choices as the oracle made them.
        Raises Refused for a ball to pick that the oracle's player did not take."""
        facts, ruling = self._facts, self._ruling
        assert facts is not None and ruling is not None
        topic = str(q.topic)
        if topic == "centre_line":
            return facts.centre_line
        if topic == "two_cushions":
            return two_cushions(facts.facts.cushions_after_contact, facts.centre_line)
        if q.kind == "pick_ball":  # the ball the oracle's player took, or none to give
            taken = [b for b in ruling.picked if b in q.choices]
            if not taken:
                raise Refused(f"{q.describe()}: the player took {list(ruling.picked)} off the table")
            return taken[0]
        if topic == "illegal_break":
            return "accept"
        return super()._truthful(q)


def crossed_after_contact(happenings: list[Happening]) -> bool:
    """Returns whether a ball's centre crossed the centre line after the cue ball's first
    contact (ST-14: either ball, or one it drove)."""
    contact = next((h.t for h in happenings if h.kind == "contact" and CUE in (h.a, h.b)), None)
    return contact is not None and any(h.kind == "centre" and h.t >= contact for h in happenings)


def cushions_felt(happenings: list[Happening], click: bool) -> int:
    """Returns how many cushions the sensors count after the contact (as fusion does): the
    felt hits after the first click where the table has a click sensor and it heard one,
    else every felt hit of the shot."""
    hits = [h for h in happenings if felt(h) and h.rail is not None]
    clicks = [h.t for h in happenings if h.kind == "contact" and h.speed >= CLICK_MPS]
    if click and clicks:
        hits = [h for h in hits if h.t >= clicks[0]]
    return len({one_rail(h.rail) for h in hits if h.rail is not None})
