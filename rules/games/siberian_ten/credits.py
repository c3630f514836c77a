"""Siberian Ten's balls: every object ball is at every moment on the table or in exactly one
player's ``balls``. Crediting them (with the handicap, ST-19), the balls driven off the table
(ST-10), the penalty ball's pick (ST-16), and when the game ends (ST-3)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.decisions import BallCredited, BallSpotted, Decision, Noted, Spot
from rules.facts import CUE, OBJECT, Ball, Call
from rules.game import Asker, Shot
from rules.games.siberian_ten.options import options_of
from rules.games.siberian_ten.records import SiberianExtra
from rules.state import MatchState, Topic

GOAL = 6
TIED = 5


def credit(state: MatchState, player: int, ball: Ball, decisions: list[Decision],
           by: int | None = None, pocketed: bool = True) -> MatchState:
    """Returns ``state`` with ``ball`` (off the table) credited to ``player``; ``by``: the
    player who pocketed it (None: a penalty ball, a ball off the table), or whose pocketed
    cue ball it stands for (``pocketed`` False, ST-9). The giver's first pocketed balls,
    whoever they go to, use up the handicap, and one that would be the giver's goes to the
    receiver (ST-19)."""
    options = options_of(state)
    extra: SiberianExtra = state.extra
    if by is not None:
        extra = replace(extra, last_pocketer=by)
        state = replace(state, extra=extra)
    if by == options.handicap_giver and extra.handicap_left > 0:
        player = state.next_player(by)  # the ball counts for the receiver
        state = replace(state, extra=replace(extra, handicap_left=extra.handicap_left - 1))
        decisions.append(Noted("handicap", str(ball), about=(("ball", ball), ("to", player))))
    p = state.players[player]
    state = state.with_player(player, score=p.score + 1, balls=(*p.balls, ball))
    if ball == OBJECT:
        state = state.without_unidentified()
    elif isinstance(ball, int):
        state = state.without_balls({ball})
    decisions.append(BallCredited(player, ball, pocketed=pocketed and by is not None))
    return state


def off_table(state: MatchState, shot: Shot, decisions: list[Decision]) -> MatchState:
    """ST-10: returns ``state`` with the object balls driven off the table credited to the
    shooter's opponent."""
    opponent = state.next_player(shot.shooter)
    for ball in dict.fromkeys(shot.balls_off_table):
        if ball in state.on_table and ball not in shot.balls_pocketed:
            state = credit(state, opponent, ball, decisions)
    return state


def pick(state: MatchState, player: int, ask: Asker, topic: Topic, **about: Any) -> Ball | None:
    """Returns the ball ``player`` takes off the table, None while asking. Nobody is asked
    when there is no choice: one ball left (``OBJECT`` when its number is not known), or
    plain balls (uncalled play)."""
    if len(state.on_table) == 1:
        return state.on_table[0]
    if state.balls_left == 1 or not options_of(state).called:
        return OBJECT
    return ask.pick_ball(player, topic, state.on_table, **about)


def winner(state: MatchState) -> int | None:
    """Returns the player with six balls (ST-3), or None."""
    return next((i for i, p in enumerate(state.players) if p.score >= GOAL), None)


def ends(state: MatchState) -> bool:
    """Returns True when the game is won or goes to the shoot-out in this state."""
    return winner(state) is not None or not state.on_table


def cue_elsewhere(shot: Shot, calls: tuple[Call, ...]) -> bool:
    """Returns True when the cue ball was called and fell in a known pocket not called for it
    (ST-8: «Если второй из заказанных шаров упал в другую (не заказанную) лузу»)."""
    pockets = {c.pocket for c in calls if c.ball == CUE}
    return (bool(pockets) and shot.cue_pocketed and shot.cue_pocket is not None
            and shot.cue_pocket not in pockets)


def spotted(shot: Shot, spot: Spot) -> list[Decision]:
    """Returns the spotting of every object ball that fell on the shot, numbered or not."""
    return [BallSpotted(b, spot) for b in fallen(shot)]


def fallen(shot: Shot) -> tuple[Ball, ...]:
    """Returns the object balls that fell on the shot: numbers, then ``OBJECT`` for each
    ball of no known number."""
    return (*shot.balls_pocketed, *(OBJECT for _ in shot.unidentified))


def count(state: MatchState, shot: Shot, calls: tuple[Call, ...] | None,
          decisions: list[Decision], ask: Asker) -> tuple[MatchState, bool] | None:
    """Credits the balls of a shot without a foul; returns the state and whether the
    shooter continues, None while the opponent's pick is asked. ``calls`` None: every ball
    counts for the shooter (the break, uncalled play)."""
    shooter = shot.shooter
    opponent = state.next_player(shooter)
    for ball, pocket in shot.pocketed:
        if calls is None or any(c.ball == ball and c.pocket == pocket for c in calls):
            state = credit(state, shooter, ball, decisions, by=shooter)  # ST-6, ST-13
        else:
            state = credit(state, opponent, ball, decisions, by=shooter)  # ST-6…ST-8
    for _ in shot.unidentified:  # a number that changes nothing: no called pocket's ball
        to = shooter if calls is None else opponent
        state = credit(state, to, OBJECT, decisions, by=shooter)
    cue_to: int | None = None
    if calls is None:
        cue_to = shooter if shot.cue_pocketed else None
        continues = shot.objects_fell or shot.cue_pocketed
    else:
        if any(c.ball == CUE and shot.fell_in(CUE, c.pocket) for c in calls):
            cue_to = shooter  # ST-9
        elif cue_elsewhere(shot, calls):
            cue_to = opponent  # ST-8: «этот шар и очередность удара переходит сопернику»
        continues = bool(calls) and all(shot.fell_in(c.ball, c.pocket) for c in calls)
    if cue_to is not None and winner(state) is None:
        if state.on_table:  # the opponent takes a table ball for the cue ball (ST-9)
            picked = pick(state, opponent, ask, Topic.CUE_BALL_COUNTS, to=cue_to)
            if picked is None:
                return None
            state = credit(state, cue_to, picked, decisions, by=shooter, pocketed=False)
        else:
            state = credit(state, cue_to, CUE, decisions, by=shooter)
    return state, continues and not shot.cue_off_table  # ST-11


def jumped(state: MatchState, shot: Shot, decisions: list[Decision],
           counted: MatchState, continues: bool) -> tuple[MatchState, bool]:
    """ST-10 on a shot without a foul (option ``ball_off_table`` 'opponent'): returns the
    state ``counted`` with the balls driven off the table credited to the opponent, and
    whether the shooter continues (not after a ball left the table)."""
    if not shot.balls_off_table:
        return counted, continues
    decisions.append(Noted("ball_off_table_to_opponent", about=(
        ("balls", tuple(dict.fromkeys(shot.balls_off_table))),)))
    return off_table(counted, shot, decisions), False
