"""Siberian Ten's shoot-out, its own small fold: bullets (ST-20) and «Игра» (ST-21).

It starts on an empty table at 5:5 (``start``); each shot then is ruled by ``rule`` alone,
its state the ``Shootout`` record in the game's extra state. The first shooter is the player
who last pocketed a ball that stayed down; the same player shoots first in every round. A
miss of the object ball is retaken, at most twice; a declared foul scores 0 (option
``bullet_foul``); a round the two score alike is tied and another is played. After a legal
bullet that pocketed nothing the other player may declare «Игра»: then the first to pocket a
ball wins, a miss loses, another foul passes the turn (option ``igra_foul``).
"""

from __future__ import annotations

from dataclasses import replace

from rules.decisions import (
    BallSpotted,
    Decision,
    FoulCalled,
    GameWon,
    InHand,
    Noted,
    ShooterContinues,
    Spot,
    TurnPassed,
)
from rules.errors import InvalidInput
from rules.facts import Call, Foul, ShotKind, Special
from rules.game import Asker, Shot
from rules.games.siberian_ten.decisions import (
    BulletRetaken,
    BulletScored,
    IgraDeclared,
    RoundTied,
    ShootoutStarted,
)
from rules.games.siberian_ten.fouls import missed
from rules.games.siberian_ten.options import options_of
from rules.games.siberian_ten.records import Shootout
from rules.state import MatchState, Status

#: The object ball of a bullet, as drops on a bullet resolve (the table is empty then).
BULLET_BALL = 1
MAX_RETAKES = 2

Ruled = tuple[MatchState, list[Decision]]


def check_call(state: MatchState, calls: tuple[Call, ...], kind: ShotKind) -> None:
    """Raises InvalidInput when the call cannot be made on the coming bullet."""
    if calls:
        raise InvalidInput("no call is made in the shoot-out")
    so = state.extra.shootout
    if kind is ShotKind.IGRA:
        if so.igra:
            raise InvalidInput("\"Igra\" is already being played")
        if so.igra_allowed is None:
            raise InvalidInput("\"Igra\" may be declared only after a legal bullet that "
                               "pocketed nothing")
    elif kind is not ShotKind.NORMAL:
        raise InvalidInput(f"no {kind} shot in the shoot-out")


def start(state: MatchState, shot: Shot, decisions: list[Decision]) -> Ruled:
    """Returns the state and decisions with the shoot-out started (ST-20: «Первым бьет игрок,
    последним забившим шар»; a penalty ball or a ball off the table is nobody's pocketing)."""
    pocketer = state.extra.last_pocketer
    first = shot.shooter if pocketer is None else pocketer
    so = Shootout(first=first, shooting=first)
    state = replace(state, status=Status.SHOOTOUT, to_shoot=first,
                    ball_in_hand=InHand.NONE, extra=replace(state.extra, shootout=so))
    return state, [*decisions, ShootoutStarted(first)]


def rule(state: MatchState, shot: Shot, ask: Asker) -> Ruled:
    """Returns the state after one shot of the shoot-out and its decisions (ST-20, ST-21)."""
    so: Shootout = state.extra.shootout
    shooter = shot.shooter
    other = state.next_player(shooter)
    record = shot.record
    decisions: list[Decision] = []
    if record.special is Special.INTERFERENCE:
        return state, [Noted("replayed", "interference"), ShooterContinues(shooter)]
    miss = missed(state, shot, ask, decisions)
    if miss is None:
        return state, decisions
    declared: list[Foul] = [f for f in dict.fromkeys(record.fouls) if f is not Foul.MISS]
    fouls = list(declared)
    if shot.cue_off_table:
        fouls.append(Foul.CUE_OFF_TABLE)
    if shot.balls_off_table:
        fouls.append(Foul.BALL_OFF_TABLE)
    if not so.igra and record.kind is ShotKind.IGRA:
        if so.igra_allowed == other:
            so = replace(so, igra=True, igra_by=other, igra_allowed=None)
            decisions.append(IgraDeclared(other))
        else:
            decisions.append(Noted("igra_refused", "not after a legal bullet with nothing down"))
    if so.igra:
        return _igra(state, so, shot, miss, fouls, decisions)
    # ST-20: a miss is retaken; a declared foul too, if the ``bullet_foul`` option says so
    retaken_foul = bool(declared) and fouls == declared and options_of(state).bullet_foul == "retake"
    if (miss and not fouls or retaken_foul) and so.misses < MAX_RETAKES:
        if fouls:
            decisions.append(FoulCalled(shooter, tuple(fouls)))
        so = replace(so, misses=so.misses + 1, igra_allowed=None)
        state = replace(state, extra=replace(state.extra, shootout=so))
        return state, [*decisions, BulletRetaken(shooter, so.misses), ShooterContinues(shooter)]
    if fouls:
        decisions.append(FoulCalled(shooter, tuple(fouls)))
    points = 0 if miss or fouls else int(shot.objects_fell) + int(shot.cue_pocketed)
    decisions.append(BulletScored(shooter, points, so.round))
    scored = list(so.points)
    scored[shooter] = points
    legal_blank = not miss and not fouls and points == 0
    if scored[other] is None:  # the round's first bullet
        so = replace(so, points=(scored[0], scored[1]), shooting=other, misses=0,
                     igra_allowed=shooter if legal_blank else None)
    else:
        a, b = scored[0] or 0, scored[1] or 0
        if a != b:
            so = replace(so, points=(a, b))
            return won(state, so, 0 if a > b else 1, decisions, "shootout")
        decisions.append(RoundTied(so.round, a))
        so = replace(so, round=so.round + 1, points=(None, None), rounds=(*so.rounds, (a, b)),
                     shooting=so.first, misses=0,
                     igra_allowed=shooter if legal_blank and so.first != shooter else None)
    state = replace(state, to_shoot=so.shooting, extra=replace(state.extra, shootout=so))
    return state, [*decisions, TurnPassed(so.shooting)]


def _igra(state: MatchState, so: Shootout, shot: Shot, miss: bool, fouls: list[Foul],
          decisions: list[Decision]) -> Ruled:
    """ST-21: the first to pocket a ball wins; a miss loses; a foul: the ``igra_foul`` option."""
    shooter = shot.shooter
    other = state.next_player(shooter)
    if fouls:
        decisions.append(FoulCalled(shooter, tuple(fouls)))
    if miss or fouls and options_of(state).igra_foul == "loses":
        return won(state, so, other, decisions, "igra_miss" if miss else "igra_foul")
    if fouls:  # the original names only the miss: the foul scores nothing
        decisions += [BallSpotted(BULLET_BALL, Spot.FOOT_SPOT)] * shot.objects_fell
        in_hand = InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table else InHand.NONE
        so = replace(so, shooting=other)
        state = replace(state, to_shoot=other, ball_in_hand=in_hand,
                        extra=replace(state.extra, shootout=so))
        return state, [*decisions, TurnPassed(other, in_hand)]
    if shot.objects_fell or shot.cue_pocketed:
        return won(state, so, shooter, decisions, "igra")
    so = replace(so, shooting=other)
    state = replace(state, to_shoot=other, extra=replace(state.extra, shootout=so))
    return state, [*decisions, TurnPassed(other)]


def won(state: MatchState, so: Shootout, winner: int, decisions: list[Decision], why: str) -> Ruled:
    """Returns the game won by ``winner`` in the shoot-out, for ``why``."""
    so = replace(so, igra_allowed=None)
    state = replace(state, status=Status.GAME_OVER, extra=replace(state.extra, shootout=so))
    return state, [*decisions, GameWon(winner, state.game_no, why)]
