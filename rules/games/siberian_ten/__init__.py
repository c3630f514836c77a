"""Siberian Ten (``siberian-ten``; rules ST-1…ST-21 of docs/rules.md): Russian-billiards rules played with
ten object balls on a pool table; first to six balls; a shoot-out ("bullets") at 5:5.

Balls are credited, never lost: every object ball is at every moment on the table or in exactly
one player's ``balls`` (``PlayerState.score`` counts them; a called cue ball with no object ball
left counts as ``"cue"``). The rules of one shot, in the order they apply:

1. the shoot-out, once it runs (ST-20, ST-21), rules its own shots (below);
2. a referee's special position (ST-18): interference replays the shot; a ball on the rail
   top passes the turn with pocketed balls counting; a cue ball back from the floor passes the
   turn with pocketed balls spotted; a hanging ball that fell is spotted and the shooter keeps
   the shot from the kitchen;
3. the break (ST-4, ST-5): everything that falls counts for the breaker, the cue ball
   included; with nothing down the two-cushion rule (ST-14) must hold, else the opponent
   chooses ``rebreak`` / ``break`` / ``accept`` (no penalty ball);
4. fouls (ST-15): declared, a miss (``first_contact`` None, sensed or declared; unknown with
   no object ball down, contact is presumed and noted, or asked: option ``presume_contact``),
   a ball off the table (only with option ``ball_off_table`` 'penalty'; by default it counts
   for the opponent and passes the turn, the shot ruled as usual, ST-10), the cue ball off
   the table unless a called ball was legally pocketed (ST-11; option ``cue_off_table``),
   the two-cushion rule when no ball was played (ST-14; options ``two_cushions`` and
   ``two_cushions_when``).
   A foul: pocketed balls count for the opponent, or are spotted at the foot rail after a
   touched ball, the cue ball off the table, or feet off the floor (ST-17); balls off the
   table count for the opponent (ST-10); the opponent takes a ball of their choice off the
   table (``pick_ball``), then chooses ``shoot`` or ``hand_back`` (``option``), asked and
   listed in that order (ST-16). The next shot is from hand in the kitchen (ST-12 reads so;
   option ``after_foul``).
   A declared ``direct_hit_in_kitchen`` alone (ST-12) costs no penalty ball by default: the
   opponent plays on from the kitchen.
5. without a foul, called play (ST-6…ST-9): a called ball in its called pocket counts for the
   shooter, every other ball that fell for the opponent; the shooter continues only when every
   called ball fell as called. A called cue ball ("свояк") that fell as called counts: the
   opponent picks a table ball for the shooter (``pick_ball``), or with none left the cue ball
   itself is the point; the shooter continues from the kitchen. Uncalled play (ST-13):
   everything that fell counts for the shooter, who continues if anything fell.
6. a handicap of k balls (ST-19): the first k balls the giver pockets, whatever they are,
   count for the receiver;
7. the end: six balls win; the table empty at 5:5 starts the shoot-out.

Decisions taken where the originals are silent or ambiguous:

- Without an identity reader, a ball's number is asked only where it changes the ruling: a
  drop in a called pocket (one drop that cannot be the cue ball: only whether it was the
  called ball), or (no call recorded) the first ball down. Elsewhere — the break, uncalled
  play, a pocket nobody called — any object ball counts the same: it is credited as
  ``OBJECT`` (``MatchState.unidentified`` keeps the count of balls on the table right), and
  only whether it was the cue ball is asked, when no cue-ball detector says.
- An uncalled cue ball that fell (called play) scores nothing and is no foul; the next shot is
  from hand in the kitchen ("выставление битка по обычным правилам").
- The two-cushion rule counts distinct cushions (a long rail's two halves are one cushion); a
  ball crossing the centre line counts as one. It applies when no ball was played (legally
  pocketed as called), as the original says.
  A cushion count the referee declared stands over the sensors; hits presumed after the
  contact (no click sensor) are noted when a legal ruling rests on them.
- The first shooter of the shoot-out is the player who last pocketed a ball that stayed down
  (ST-20); a penalty ball or a ball off the table is nobody's pocketing.
- In the shoot-out the same player shoots first in every round. A declared foul or a ball off
  the table scores a bullet 0 (no retake; the original is silent: option ``bullet_foul``); in
  "Игра" it scores nothing and the turn passes (the original names only the miss as losing:
  option ``igra_foul``).
- An illegal break's ``break`` / ``rebreak`` re-racks the game (``GameRestarted``); nothing was
  credited, since a break is illegal only when nothing fell.

The ``shootout`` field of the state snapshot (``null`` before the shoot-out)::

    {"round": 2,              # the round being played, from 1
     "first": 1,              # who shoots first in every round
     "shooting": 0,           # whose bullet (or "Игра" shot) comes next
     "attempt": 1,            # attempt at this bullet, 1-3 (a miss of the object ball retakes)
     "points": [1, null],     # this round's bullet points per player; null: not shot yet
     "rounds": [[0, 0]],      # earlier, tied rounds: points per player
     "igra": false,           # "Игра" is being played (no more bullets)
     "igra_by": null,         # the player who declared it
     "igra_allowed": null}    # the player who may declare it for the coming shot, or null

During the shoot-out the table is empty (``on_table`` []): the bullet's object ball is one of the
credited balls set out again; drops on a bullet resolve to ball ``BULLET_BALL``.

The package: ``game`` (the class wiring the rest), ``fouls`` (what the shot was: calls, a
miss, the fouls, the two-cushion rule), ``credits`` (whose balls, the handicap, the end at six),
``shootout`` (its own fold), ``options``, ``decisions`` (the shoot-out's own), ``records``
(what the game keeps beside the match state) and ``spec`` (the game as the house reads it).
"""

from rules.games.siberian_ten.credits import GOAL, TIED
from rules.games.siberian_ten.decisions import (
    BulletRetaken,
    BulletScored,
    IgraDeclared,
    RoundTied,
    ShootoutStarted,
)
from rules.games.siberian_ten.game import SiberianTen
from rules.games.siberian_ten.options import SiberianOptions
from rules.games.siberian_ten.records import Shootout, SiberianExtra
from rules.games.siberian_ten.shootout import BULLET_BALL
from rules.games.siberian_ten.spec import SPEC

__all__ = [
    "BULLET_BALL", "GOAL", "SPEC", "TIED", "BulletRetaken", "BulletScored", "IgraDeclared",
    "RoundTied", "Shootout", "ShootoutStarted", "SiberianExtra", "SiberianOptions",
    "SiberianTen",
]
