"""Point pyramid (``pyramid``; rules PP-1…PP-13 of docs/rules.md): 15 numbered balls, points
by number.

Two, three or four players, each for themselves, in turn order. A ball scores its number, the
ace and (with more players) the 2 and the 3 ten more, the last ball ten more; the first to
71 / 51 / 41 wins at once. The rules of one shot, in the order they apply:

1. fouls: found from the facts (cue ball pocketed or off the table, the cue ball touched no
   ball) and declared by a referee; fouls the club waived are noted and ignored (PP-8);
2. on a 5-point foul: 5 points move from the offender to the next player in turn (option
   ``penalty_to``: to every other player), everything that fell is spotted, the called ball on
   the third spot (option ``foul_uncalled``: the others stay down), the next player shoots,
   from hand in the house after the cue ball fell or left the table (PP-8, PP-9, PP-11); a
   direct hit in the house counts only on a shot from hand; on a non-counting stroke the same
   without the 5 points (PP-10);
3. without a foul: the shot scores when its called ball fell in its called pocket (in clean
   designation also as called, which the referee confirms): every ball that fell scores and
   the shooter continues; otherwise what fell is spotted and the turn passes (PP-5, PP-6);
4. the end: the first to the target wins at once, whoever brought the points (a ball or a
   penalty); a table cleared with nobody at the target is a draw; «своя» (two players, or
   with option ``svoya_more_players`` any number) draws against the last ball (PP-4).

Which ball fell is never guessed: the referee core resolves every drop before the rules run
(sensors, the one-drop-in-the-called-pocket presumption, or an ``identify`` question).

Spotting: the first ball spotted on a shot (the called ball, when it fell) is placed on the
foot spot, the others on the foot short rail (``Spot.FOOT_SPOT`` / ``Spot.FOOT_RAIL``). The
core does not see the cloth: when the foot spot is already taken by a ball that lies there,
the person placing the ball uses the rail, as PP-9 says. Likewise the temporary house of
PP-11 (every object ball in the house: the deep end by the third spot) is the placer's call;
the snapshot says ``kitchen``.

Readings of the original, where it is silent:
- one 5-point penalty per shot, however many fouls it had;
- an object ball driven off the table is no foul (PP-8 does not list it): it is spotted and
  never scores, and the rest of the shot is ruled as usual;
- a double hit is a push (PP-10); playing from hand with the body past the long-rail line is
  declared as ``bad_placement``; fouls pyramid does not know (``wrong_ball_first``,
  ``cue_on_table``, ``out_of_turn``, ``slow_play``, ``bad_break``) and declared specials are
  noted and cost nothing;
- touching the balls in the belief that the game is over happens after a shot: declare
  ``game_over_touch`` on a record of its own (no drops), so the shot before keeps its points;
- a shot declared a safety calls nothing and scores nothing;
- points moved by a penalty count like any others: they can bring the next player to the
  target, and that player wins;
- when one shot clears the table, the last ball's 10 is credited with the last ball listed.

The package: ``game`` (the class and its plain functions), ``options`` and ``spec`` (the
game as the house reads it).
"""

from rules.games.pyramid.game import TARGETS, PointPyramid, ball_value, target, total_points
from rules.games.pyramid.options import PyramidOptions
from rules.games.pyramid.spec import SPEC

__all__ = ["PointPyramid", "ball_value", "total_points", "target", "TARGETS", "PyramidOptions", "SPEC"]
