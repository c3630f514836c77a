"""Ten-ball (``ten-ball``; rules TB-1…TB-14 of docs/rules.md): a called-shot rotation game.

The lowest-numbered ball on the table is hit first; legally pocketing the 10 wins. The
rules of one shot, in the order they apply:

1. a declared stalemate re-racks the game for the same breaker; a declared penalty for
   unsportsmanlike conduct (``forfeit``) gives the game, or the match, to the other player
   (TB-14);
2. fouls: found from the facts (scratch, cue ball or a ball off the table, wrong ball
   first, no rail, a break with nothing down and fewer than four cushion hits, TB-5) and
   declared by a referee (TB-11; ``direct_hit_in_kitchen`` only on a shot from the kitchen).
   What is presumed is noted: contact with the lowest ball, a rail or the break's four balls
   with the cushions unknown, hits presumed after the contact (no click sensor);
3. on a foul: the 10 and balls off the table are spotted (option ``off_table_balls``), the
   rest stay down; ball in hand
   for the incoming player, behind the head string after a scratch; three fouls in a row
   lose the game, with a warning at two (TB-12);
4. without a foul: the break (TB-2, TB-5), a push-out (TB-6), a safety (TB-8), or a called
   shot: the called ball in its pocket (TB-13), or an inning lost with the option to hand
   the shot back (TB-9).

The package: ``game`` (the class), ``cushions`` (TB-5's four balls and TB-11's rail, plain
functions), ``options`` and ``spec`` (the game as the house reads it).
"""

from rules.games.ten_ball.game import TEN, TenBall, TenBallExtra
from rules.games.ten_ball.options import TenBallOptions
from rules.games.ten_ball.spec import SPEC

__all__ = ["TenBall", "TenBallExtra", "TEN", "TenBallOptions", "SPEC"]
