"""Siberian Ten over perfect facts: seed 000's rules as a referee at the table applies them,
stated apart from ``rules/`` (docs/rules.md numbers them ST-1…ST-21; the seed's own
sections are named below by their Russian headings).

The facts of a shot (``SiberianFacts``) are the common ``ShotTruth`` and what this game needs
besides: whether a ball crossed the centre line after the first contact, and whether a shot
from hand in the kitchen after a foul struck a ball lying in the kitchen before the cue ball
had touched a cushion. ``SiberianOracle.rule`` gives the ruling (``SiberianRuling``): the
foul, who shoots next, the balls credited to each player on the shot, the winner.

The players' own choices, which the seed leaves to them, are made here one fixed way, and
the simulated referee gives the pipeline the same answers: a penalty ball (and the ball a
called cue ball takes, ST-9) is the lowest-numbered ball on the table; after a foul the
opponent shoots (never hands the shot back); an illegal break is accepted (the opponent
shoots as the balls lie); nobody declares «Игра» in the shoot-out.

Where docs/options.md lists readings of an unclear clause, the oracle follows the default
(``two_cushions = after_contact``, ``after_foul = kitchen``, ``kitchen_penalty`` off) or, where
it reads otherwise, the option its racks are played under (``ORACLE_OPTIONS``:
``two_cushions_when = nothing_fell``, the default before issue 27), and follows docs/rules.md's
decisions where the seed is silent (an uncalled cue ball that fell is no foul). Balls off the
table (ST-10, ST-11, ST-17) never happen: pooltool keeps every ball on the cloth.

Two clauses of the two-cushion rule's full wording are not modelled on their own: a ball
touched while frozen to a cushion counts that cushion only where the engine reports it
touching the cushion, and touching a ball whose centre lay across the centre line counts
as a crossing only where a ball's centre then crosses it (``engine.crossings``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.sim.physics.truth import CUE, Ball, ShotTruth
from vocabulary import Pocket

GOAL = 6  # «Первым забить шесть шаров»
#: The options a rack is played under where the oracle reads a clause otherwise than the
#: default: the two-cushion rule only when no ball at all fell.
ORACLE_OPTIONS = {"two_cushions_when": "nothing_fell"}
MAX_RETAKES = 2  # a missed bullet is retaken «но не более двух раз»


@dataclass(frozen=True, slots=True)
class SiberianFacts:
    """What a referee at the table sees of one Siberian Ten shot."""

    facts: ShotTruth
    #: a ball's centre crossed the centre line after the first contact
    centre_line: bool = False
    #: from hand in the kitchen after a foul, the first ball struck lay in the kitchen and
    #: the cue ball had touched no cushion before it (ST-12)
    kitchen_hit: bool = False
    #: a bullet of the shoot-out (ST-20)
    bullet: bool = False
    #: the pocket the cue ball was called in besides the object ball («свояк», ST-8, ST-9)
    cue_call: Pocket | None = None

    def calls(self) -> list[tuple[Ball, Pocket]]:
        """Returns the shot's calls: the object ball's, then the cue ball's."""
        calls: list[tuple[Ball, Pocket]] = [] if self.facts.call is None else [self.facts.call]
        return calls + ([] if self.cue_call is None else [(CUE, self.cue_call)])

    def to_json(self) -> dict[str, Any]:
        """Returns the facts as a JSON object."""
        return self.facts.to_json() | {"centre_line": self.centre_line,
                                       "kitchen_hit": self.kitchen_hit, "bullet": self.bullet,
                                       "cue_call": self.cue_call}


@dataclass(frozen=True, slots=True)
class SiberianRuling:
    """A ruling: a foul, who shoots next, the balls each player was credited on the shot
    (``points``, by player number as a string, none when zero), the game's winner; and the
    balls the players took off the table (``picked``, in the order they were taken)."""

    foul: bool
    next_shooter: int
    points: dict[str, int] = field(default_factory=dict)
    winner: int | None = None
    picked: tuple[int, ...] = ()
    shootout: bool = False  # the shoot-out starts (or goes on) after this shot

    def to_json(self) -> dict[str, Any]:
        """Returns the ruling as a JSON object (``spotted``: no ball is ever spotted here)."""
        return {"foul": self.foul, "next_shooter": self.next_shooter, "points": self.points,
                "winner": self.winner, "spotted": [], "picked": list(self.picked),
                "shootout": self.shootout}


def two_cushions(cushions: int, centre_line: bool) -> bool:
    """Returns whether the two-cushion rule holds (ST-14, «правило двух бортов»): after the
    contact the balls together touched two different cushions, a ball crossing the centre
    line counting as one."""
    return cushions + int(centre_line) >= 2


@dataclass
class SiberianOracle:
    """Siberian Ten over perfect facts, two players, called play, first to six balls.

    - the break («Разбой пирамиды», ST-4, ST-5): every ball that falls counts for the breaker,
      the cue ball too (as a called cue ball does, ST-9); anything down keeps the table. With
      nothing down and the two-cushion rule broken the break is illegal: no penalty ball,
      the opponent chooses (here: accepts and shoots);
    - a foul («Штрафы», ST-15, ST-16): no ball touched (г), or the two-cushion rule broken when
      no ball at all fell (ж, ST-14): the balls that fell count for the opponent, who takes a
      penalty ball off the table for themselves and shoots from hand in the kitchen;
    - from hand in the kitchen after a foul, a ball in the kitchen struck before a cushion
      (ST-12): the opponent plays on from the kitchen, no penalty ball, balls that fell count
      for the opponent;
    - called play («Забивание шаров и удары по заказу», ST-6…ST-9): a called ball in its
      called pocket counts for the shooter, who continues when every called ball fell so;
      any other ball that fell counts for the opponent; a called cue ball («свояк») that
      fell as called takes a ball off the table for the shooter (the cue ball itself counts
      when none is left) and the shooter plays on from the kitchen; a called cue ball that
      fell in another pocket takes a ball off the table for the opponent («этот шар и
      очередность удара переходит сопернику»); an uncalled cue ball that fell counts for
      nobody;
    - six balls win; the table empty at 5:5 starts the shoot-out («Булиты», ST-20): the
      player who last pocketed a ball shoots first («Первым бьет игрок, последним забившим
      шар»: a penalty ball is nobody's pocketing); a bullet scores the balls that fell
      after the contact; a bullet that touched nothing is retaken at most twice; the
      higher score of a round wins, a tied round is played again.
    """

    on_table: set[int] = field(default_factory=lambda: set(range(1, 11)))
    balls: list[int] = field(default_factory=lambda: [0, 0])
    #: the shoot-out: its first shooter, the bullet's misses, this round's points by player
    first: int | None = None
    misses: int = 0
    round_points: dict[int, int] = field(default_factory=dict)
    _pocketer: int | None = None  # who last pocketed a ball that counted

    def rule(self, shot: SiberianFacts) -> SiberianRuling:
        """Returns the ruling of ``shot`` and applies it to the table's balls and the score."""
        if shot.bullet:
            return self._bullet(shot)
        facts = shot.facts
        shooter, other = facts.shooter, 1 - facts.shooter
        down = [b for b, _ in facts.drops if b != CUE]
        cue_down = any(b == CUE for b, _ in facts.drops)
        points: dict[int, int] = {}
        picked: list[int] = []
        self.on_table -= {int(b) for b in down}
        if down:
            self._pocketer = shooter
        missed = facts.first_contact is None
        nothing_fell = not facts.drops
        broken = (not missed and nothing_fell
                  and not two_cushions(facts.cushions_after_contact, shot.centre_line))
        if facts.is_break and not missed:
            if not nothing_fell:  # everything counts for the breaker, the cue ball too
                self._credit(shooter, len(down), points)
                if cue_down and not self._won():
                    self._pocketer = shooter
                    self._take(shooter, points, picked)
                return self._next(facts, points, picked, shooter)
            return self._next(facts, points, picked, other, foul=broken)  # accepted if illegal
        if shot.kitchen_hit:  # ST-12
            self._credit(other, len(down), points)
            return self._next(facts, points, picked, other, foul=True)
        if missed or broken:  # ST-15, ST-16
            self._credit(other, len(down), points)
            if not self._over():
                self._take(other, points, picked)
            return self._next(facts, points, picked, other, foul=True)
        calls = shot.calls()
        own = sum(1 for drop in facts.drops if drop[0] != CUE and drop in calls)
        self._credit(shooter, own, points)
        self._credit(other, len(down) - own, points)
        if (CUE, shot.cue_call) in facts.drops and not self._won():  # ST-9: «свояк»
            self._pocketer = shooter
            self._take(shooter, points, picked)
        elif shot.cue_call is not None and cue_down and not self._won():  # ST-8: elsewhere
            self._pocketer = shooter
            self._take(other, points, picked)
        every = bool(calls) and all(call in facts.drops for call in calls)  # ST-8
        return self._next(facts, points, picked, shooter if every else other)

    def _credit(self, player: int, n: int, points: dict[int, int]) -> None:
        if n:
            self.balls[player] += n
            points[player] = points.get(player, 0) + n

    def _take(self, player: int, points: dict[int, int], picked: list[int]) -> None:
        """``player`` is credited the lowest ball on the table (a penalty ball, or the ball
        a called cue ball takes); with none left, the cue ball itself counts (ST-9)."""
        if self.on_table:
            ball = min(self.on_table)
            self.on_table.discard(ball)
            picked.append(ball)
        self._credit(player, 1, points)

    def _won(self) -> bool:
        return max(self.balls) >= GOAL

    def _over(self) -> bool:
        return self._won() or not self.on_table

    def _next(self, facts: ShotTruth, points: dict[int, int], picked: list[int], to: int,
              foul: bool = False) -> SiberianRuling:
        """Ends the game at six balls, starts the shoot-out on an empty table (its first
        shooter: the player who last pocketed a ball), or gives the next shot to ``to``."""
        out = {str(p): n for p, n in sorted(points.items())}
        winner = next((p for p in (0, 1) if self.balls[p] >= GOAL), None)
        if winner is not None:
            return SiberianRuling(foul, to, out, winner, tuple(picked))
        if not self.on_table:
            self.first = facts.shooter if self._pocketer is None else self._pocketer
            return SiberianRuling(foul, self.first, out, None, tuple(picked), shootout=True)
        return SiberianRuling(foul, to, out, None, tuple(picked))

    def _bullet(self, shot: SiberianFacts) -> SiberianRuling:
        """A bullet (ST-20): both balls down after the contact 2, one 1, none 0; a bullet
        that touched nothing is retaken at most twice, then scores 0."""
        facts = shot.facts
        shooter, other = facts.shooter, 1 - facts.shooter
        assert self.first is not None
        missed = facts.first_contact is None
        if missed and self.misses < MAX_RETAKES:
            self.misses += 1
            return SiberianRuling(False, shooter, shootout=True)
        self.misses = 0
        self.round_points[shooter] = 0 if missed else len(facts.drops)
        if other not in self.round_points:
            return SiberianRuling(False, other, shootout=True)
        mine, theirs = self.round_points[shooter], self.round_points[other]
        self.round_points = {}
        if mine != theirs:
            winner = shooter if mine > theirs else other
            return SiberianRuling(False, other, winner=winner, shootout=True)
        return SiberianRuling(False, self.first, shootout=True)

