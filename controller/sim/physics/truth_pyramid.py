"""Point pyramid ruled over perfect facts, apart from ``rules/``: what a referee who saw the
shot rules, from seed 004 (``/work/shared/seeds/004_…``; docs/rules.md numbers its clauses
PP-1…PP-13), two, three or four players each for themselves, in turn, no handicap.

- **Values** (PP-3): a ball scores its number, the 1 ten more («К номеру шара с «единицей»
  («туз») прибавляется 10»), with three players the 2 too («При игре втроем дополнительно к
  шару «2» прибавляется 10 очков»), with four the 3 too; the last ball left ten more («и к
  последнему оставшемуся шару … также прибавляется 10»): 140, 150, 160 in all.
- **The end** (PP-4): the first to 71 (three players: 51, four: 41) wins («Выигравшим
  считается тот, кто первым наберет 71 очко»), penalty points included; the table cleared
  with nobody there (70:70, 50:50:50) is a draw. «Своя» (option ``svoya``, its default on,
  which the oracle follows) is the two-player rule: a player on 70 has secured a draw, so the
  other reaching 71 with the shot that takes the last ball draws («Если один игрок набрал
  70 очков («своя»), то даже в случае покладки последнего шара его партнером в партии
  фиксируется ничья»); without a handicap it cannot happen (70 + 71 > 140). With three or
  four players the one who reaches 51 / 41 wins, a player on 50 / 40 or not (option
  ``svoya_more_players``, off).
- **A shot that scores** (PP-6): the called ball in the called pocket («При правильно
  сыгранном назначенном (заказном) шаре все остальные шары, упавшие в лузы вследствие этого
  же удара, засчитываются как сыгранные»): every object ball that fell scores for the
  shooter, who shoots again. Calls are ``ball_pocket`` (option ``call_mode``'s default, PP-5).
- **A shot that does not** (no call, or the called ball not in its pocket): nothing scores,
  what fell is spotted, the turn passes. The seed is silent on balls that fell off a missed
  call; this is docs/rules.md's decision under PP-6, which the oracle follows.
- **5-point fouls** (PP-8) the physics can make: the cue ball pocketed («падение битка в
  лузу»), the cue ball touching no ball, the first shot included («биток не задел шар-мишень
  и не коснулся ни одного из шаров … (в том числе и при самом первом ударе)»), a direct hit on
  a ball in the house when playing from hand («прямое попадание в шар, находящийся в «доме»,
  при игре «с рук»»). Five points move from the offender to the partner («5 очков, которые
  снимаются со счета провинившегося и прибавляются к счету партнера»), with more than two
  players the next in turn (docs/rules.md's reading of PP-8), once a shot, and may bring
  that player to the target. What fell is spotted: the seed says so of called balls
  after a cue ball pocketed or off the table (PP-9); docs/rules.md extends it to every ball
  and every 5-point foul (a foul scores nothing), and so does the oracle. The next player
  in turn shoots, from hand in the house after the cue ball fell (PP-11).

The game is played with the cue ball only («Игра ведется только одним, «своим» шаром»), so
the simulated player never strikes another ball (PP-8's foul в) and the cue ball never leaves
the table in pooltool's two dimensions (foul б): neither is ruled here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.sim.physics.truth import CUE, ShotTruth

#: Points to win, and the balls worth ten more, by the number of players.
TARGETS = {2: 71, 3: 51, 4: 41}
BONUS_BALLS = {2: {1}, 3: {1, 2}, 4: {1, 2, 3}}
PENALTY = 5
BONUS = 10


@dataclass(frozen=True, slots=True)
class PyramidRuling:
    """What a referee with perfect facts rules of a Point pyramid shot: a foul, who shoots
    next, the points each player won or lost (by player number, none at zero), the balls
    spotted, and the game's end (a ``winner``, or ``drawn``)."""

    foul: bool
    next_shooter: int
    points: dict[int, int] = field(default_factory=dict)
    spotted: tuple[int, ...] = ()
    winner: int | None = None
    drawn: bool = False

    def to_json(self) -> dict[str, Any]:
        """Returns the ruling as a JSON object (``points`` keyed by the player as a string)."""
        return {"foul": self.foul, "next_shooter": self.next_shooter,
                "points": {str(p): n for p, n in sorted(self.points.items()) if n},
                "spotted": sorted(self.spotted), "winner": self.winner, "drawn": self.drawn}


@dataclass
class PyramidOracle:
    """Point pyramid over perfect facts: the balls on the table and the players' scores."""

    players: int = 2
    on_table: set[int] = field(default_factory=lambda: set(range(1, 16)))
    scores: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.scores = self.scores or [0] * self.players

    def rule(self, shot: ShotTruth, direct_hit_in_house: bool = False) -> PyramidRuling:
        """Returns the ruling of ``shot`` (``direct_hit_in_house``: played from hand, the cue
        ball struck a ball in the house before any cushion) and applies it to the table."""
        shooter, following = shot.shooter, (shot.shooter + 1) % self.players
        target = TARGETS[self.players]
        down = tuple(int(b) for b, _ in shot.drops if b != CUE)
        scratch = any(b == CUE for b, _ in shot.drops)
        if scratch or shot.first_contact is None or direct_hit_in_house:
            self.scores[shooter] -= PENALTY
            self.scores[following] += PENALTY
            points = {shooter: -PENALTY, following: PENALTY}
            won = following if self.scores[following] >= target else None
            return PyramidRuling(True, following, points, down, winner=won)
        if shot.call is None or shot.call not in shot.drops:
            return PyramidRuling(False, following, spotted=down)
        self.on_table -= set(down)
        bonus = BONUS_BALLS[self.players]
        gained = sum(b + (BONUS if b in bonus else 0) for b in down) + (0 if self.on_table else BONUS)
        self.scores[shooter] += gained
        points = {shooter: gained}
        # «своя» (PP-4): the seed gives it for two players («набрал 70 очков»)
        svoya = self.players == 2 and any(
            n == target - 1 for p, n in enumerate(self.scores) if p != shooter)
        if self.scores[shooter] >= target and not (svoya and not self.on_table):
            return PyramidRuling(False, shooter, points, winner=shooter)
        return PyramidRuling(False, shooter, points, drawn=not self.on_table)
