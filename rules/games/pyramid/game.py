"""The rules of one shot, as the package's docstring lists them: a small class wiring plain
functions."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import replace

from rules.decisions import (
    BallCredited,
    BallSpotted,
    Decision,
    FoulCalled,
    GameDrawn,
    GameWon,
    InHand,
    Noted,
    PointsMoved,
    ShooterContinues,
    Spot,
    TurnPassed,
)
from rules.errors import InvalidInput
from rules.facts import CUE, OBJECT, UNKNOWN, Ball, Call, Foul, ShotKind
from rules.game import Asker, Game, Shot, register
from rules.games.pyramid.options import CLEAN, PyramidOptions, options_of
from rules.games.pyramid.spec import SPEC
from rules.options import parse_options
from rules.state import MatchState, Status, Topic

#: Points to win, by number of players (PP-4); one point less each is the draw.
TARGETS = {2: 71, 3: 51, 4: 41}
#: Balls worth 10 more than their number, by number of players (PP-3).
BONUS_BALLS = {2: frozenset({1}), 3: frozenset({1, 2}), 4: frozenset({1, 2, 3})}
BONUS = 10
PENALTY = 5

#: Fouls that cost 5 points (PP-8).
FIVE_POINT_FOULS = frozenset({
    Foul.SCRATCH, Foul.CUE_OFF_TABLE, Foul.WRONG_CUE_BALL, Foul.MISS, Foul.BUTT_OR_SIDE,
    Foul.TOUCHED_BALL, Foul.MOVING_BALLS, Foul.GAME_OVER_TOUCH, Foul.DIRECT_HIT_IN_KITCHEN,
})
#: Non-counting strokes (PP-10): a push or press (a double hit is one), the body past the
#: long-rail line when playing from hand (declared as ``bad_placement``), no foot on the floor.
NON_COUNTING = frozenset({Foul.PUSH, Foul.DOUBLE_HIT, Foul.BAD_PLACEMENT, Foul.FEET_OFF_FLOOR})


def target(n_players: int) -> int:
    """Returns the points that win a game of ``n_players`` (PP-4)."""
    return TARGETS[n_players]


def ball_value(ball: int, n_players: int) -> int:
    """Returns what ``ball`` scores with ``n_players``, without the last-ball bonus (PP-3)."""
    return ball + (BONUS if ball in BONUS_BALLS[n_players] else 0)


def total_points(n_players: int) -> int:
    """Returns the points of a whole rack, the last-ball bonus included: 140 / 150 / 160."""
    return sum(ball_value(b, n_players) for b in range(1, 16)) + BONUS


@register
class PointPyramid(Game):
    spec = SPEC

    def parse_options(self, raw: Mapping[str, object]) -> PyramidOptions:
        """Returns the options; ``handicap`` is a list of whole points, one per player."""
        rest = dict(raw)
        handicap = rest.pop("handicap", ())
        if not isinstance(handicap, list | tuple) or len(handicap) > self.max_players or any(
            isinstance(h, bool) or not isinstance(h, int) or h < 0 for h in handicap
        ):
            raise InvalidInput(
                f"option 'handicap' must be a list of points (0 or more), one per player in "
                f"turn order, not {handicap!r}")
        options = parse_options(self.Options, rest)  # a variant's own options extend these
        assert isinstance(options, PyramidOptions)
        return dataclasses.replace(options, handicap=tuple(handicap))

    def rack(self, state: MatchState) -> MatchState:
        # PP-2: the pyramid on the foot spot, the cue ball in the house.
        opts = options_of(state)
        n = state.n_players
        if len(opts.handicap) > n or any(h >= target(n) for h in opts.handicap):
            raise InvalidInput(
                f"handicap {list(opts.handicap)}: at most one number per player ({n}), each "
                f"below the {target(n)} points that win")
        start = opts.handicap + (0,) * (n - len(opts.handicap))  # PP-12
        return self.new_rack(state, scores=start)

    def check_call(self, state: MatchState, calls: tuple[Call, ...], kind: ShotKind) -> None:
        if any(c.ball == CUE for c in calls):
            raise InvalidInput("in pyramid the cue ball cannot be called")
        if kind is ShotKind.PUSH_OUT:
            raise InvalidInput("pyramid has no push-out (that is a Ten-ball shot)")
        if kind is ShotKind.SAFETY and calls:
            raise InvalidInput("a safety calls no ball")
        if len(state.on_table) == 1:  # PP-5: the last ball needs no number
            calls = tuple(Call(state.on_table[0], c.pocket) for c in calls)
        super().check_call(state, calls, kind)

    def rule(self, state: MatchState, shot: Shot, ask: Asker) -> tuple[MatchState, list[Decision]]:
        shooter = shot.shooter
        following = state.next_player(shooter)
        decisions: list[Decision] = []
        if shot.record.special is not None:
            decisions.append(Noted("special_not_in_rules", str(shot.record.special)))

        fouls = self._fouls(state, shot, ask, decisions)
        if fouls is None:
            return state, decisions
        if fouls:
            decisions.append(FoulCalled(shooter, tuple(fouls)))
            five = any(f in FIVE_POINT_FOULS for f in fouls)
            if five:  # PP-8: one penalty per shot
                for to in _receivers(state, shooter):
                    state = _add(state, shooter, -PENALTY)
                    state = _add(state, to, PENALTY)
                    decisions.append(PointsMoved(shooter, to, PENALTY))
            # PP-9, PP-10: nothing scores, what fell is spotted, the called ball first.
            state, spotted = _foul_balls(state, shot, five, decisions)
            decisions += _spotted(spotted + _off_table(state, shot))
            reached = [to for to in _receivers(state, shooter) if five
                       and state.players[to].score >= target(state.n_players)]
            if reached:
                return _won(state, reached[0], "penalty_points", decisions)
            scratch = Foul.SCRATCH in fouls or Foul.CUE_OFF_TABLE in fouls
            return _pass(state, following, decisions, InHand.KITCHEN if scratch else InHand.NONE)

        scores = self._scores(state, shot, ask)
        if scores is None:
            return state, decisions
        if not scores:  # PP-6 (decision): nothing scores, what fell is spotted
            decisions += _spotted(_fallen(shot) + _off_table(state, shot))
            return _pass(state, following, decisions)

        # PP-6: every ball that fell on the shot scores; PP-3: values and the last ball.
        pocketed = shot.balls_pocketed
        state = state.without_balls(set(pocketed))
        n = state.n_players
        points = [ball_value(b, n) for b in pocketed]
        if not state.on_table:
            points[-1] += BONUS  # PP-3 (decision): the last ball's 10, once per clearing shot
        decisions += [BallCredited(shooter, b, p) for b, p in zip(pocketed, points, strict=True)]
        player = state.players[shooter]
        state = state.with_player(shooter, score=player.score + sum(points),
                                  balls=player.balls + pocketed)
        decisions += _spotted(_off_table(state, shot))
        if state.players[shooter].score >= target(n):  # PP-4: wins at once
            return _won(state, shooter, "points", decisions)
        if not state.on_table:  # PP-4: nobody can reach the target any more
            return replace(state, status=Status.GAME_OVER), [*decisions, GameDrawn(state.game_no)]
        state = replace(state, status=Status.IN_PLAY, to_shoot=shooter, ball_in_hand=InHand.NONE)
        return state, [*decisions, ShooterContinues(shooter)]

    # -------------------------------------------------------------- pieces
    @staticmethod
    def _fouls(state: MatchState, shot: Shot, ask: Asker,
               decisions: list[Decision]) -> list[Foul] | None:
        """Returns the shot's fouls (empty: none), or None after asking whether the cue ball
        touched a ball. Waived fouls and fouls pyramid does not know are noted, not called."""
        opts = options_of(state)
        waived = {Foul.BUTT_OR_SIDE: not opts.penalise_butt_or_side,
                  Foul.TOUCHED_BALL: not opts.penalise_touched_ball}
        fouls: list[Foul] = []
        for foul in dict.fromkeys(shot.record.fouls):
            if foul is Foul.DIRECT_HIT_IN_KITCHEN and state.ball_in_hand is not InHand.KITCHEN:
                # PP-8 и): «прямое попадание в шар, находящийся в «доме», при игре «с рук»»
                decisions.append(Noted("foul_not_applicable", str(foul)))
            elif waived.get(foul, False):
                decisions.append(Noted("foul_waived", str(foul)))
            elif foul in FIVE_POINT_FOULS or foul in NON_COUNTING:
                fouls.append(foul)
            else:
                decisions.append(Noted("foul_not_in_rules", str(foul)))
        if shot.cue_pocketed:
            fouls.append(Foul.SCRATCH)
        if shot.cue_off_table:
            fouls.append(Foul.CUE_OFF_TABLE)
        if any(f in FIVE_POINT_FOULS for f in fouls):
            return list(dict.fromkeys(fouls))  # the penalty is due: contact changes nothing
        contact = shot.record.first_contact
        if contact is UNKNOWN and not shot.pocketed and shot.record.contact_unheard:
            decisions.append(Noted("miss_unheard"))  # the click sensor heard nothing
            contact = None
        elif contact is UNKNOWN and not shot.pocketed:  # a ball that fell was touched
            if opts.presume_contact:
                decisions.append(Noted("contact_presumed"))
            else:
                touched = ask.confirm(shot.shooter, Topic.CONTACT)
                if touched is None:
                    return None
                contact = None if not touched else contact
        if contact is None:
            fouls.append(Foul.MISS)
        return list(dict.fromkeys(fouls))

    @staticmethod
    def _scores(state: MatchState, shot: Shot, ask: Asker) -> bool | None:
        """Returns whether the shot scores (its called ball fell as called), or None after
        asking the referee."""
        opts = options_of(state)
        clean = opts.call_mode == CLEAN
        if shot.kind is not ShotKind.NORMAL or not shot.pocketed:
            return False
        if not shot.calls:
            down = [(b, p) for b, p in shot.pocketed if p is not None]
            if not down or opts.missing_call == "no_count":
                return False
            if opts.missing_call == "count":
                return True
            answer = ask.confirm(shot.shooter, Topic.ANY_CALLED, fell=tuple(down), clean=clean)
            return answer
        call = shot.calls[0]
        ball = state.on_table[0] if len(state.on_table) == 1 else call.ball  # PP-5: last ball
        if not shot.fell_in(ball, call.pocket):
            return False
        if not clean:
            return True
        manner = (shot.record.manner or "").strip()
        if not manner:  # PP-5: clean designation states the manner before the shot
            return False
        answer = ask.confirm(state.next_player(shot.shooter), Topic.PLAYED_AS_CALLED,
                             ball=ball, pocket=call.pocket, manner=manner)
        return answer


def _receivers(state: MatchState, offender: int) -> list[int]:
    """Returns who receives a 5-point penalty (PP-8, option ``penalty_to``)."""
    if options_of(state).penalty_to == "each":
        return [state.next_player(offender, k) for k in range(1, state.n_players)]
    return [state.next_player(offender)]


def _foul_balls(state: MatchState, shot: Shot, five: bool,
                decisions: list[Decision]) -> tuple[MatchState, tuple[Ball, ...]]:
    """Returns the state and the balls to spot on a foul shot: the called ball first, so it
    takes the third spot (PP-9); on a 5-point foul with ``foul_uncalled`` 'stay_down' the
    other balls stay down, scoring for nobody (noted)."""
    called = [b for b in shot.balls_pocketed if any(c.ball == b for c in shot.calls)]
    others = tuple(b for b in _fallen(shot) if b not in called)
    if five and others and options_of(state).foul_uncalled == "stay_down":
        decisions.append(Noted("stay_down", about=(("balls", others),)))
        numbers = {b for b in others if isinstance(b, int)}
        state = state.without_balls(numbers)
        if len(others) > len(numbers):
            state = state.without_unidentified(len(others) - len(numbers))
        return state, tuple(called)
    return state, (*called, *others)


def _fallen(shot: Shot) -> tuple[Ball, ...]:
    """Returns the object balls that fell: numbers, then ``OBJECT`` for each of no known
    number (a "which ball?" nobody was asked, as it changed nothing: ``rules.moot``)."""
    return (*shot.balls_pocketed, *(OBJECT for _ in shot.unidentified))


def _add(state: MatchState, player: int, points: int) -> MatchState:
    return state.with_player(player, score=state.players[player].score + points)


def _off_table(state: MatchState, shot: Shot) -> tuple[Ball, ...]:
    """Returns the object balls driven off the table (not pocketed): they are spotted."""
    return tuple(b for b in dict.fromkeys(shot.balls_off_table)
                 if b in state.on_table and b not in shot.balls_pocketed)


def _spotted(balls: tuple[Ball, ...]) -> list[Decision]:
    """PP-9: the first ball on the foot spot, the others on the foot short rail."""
    return [BallSpotted(b, Spot.FOOT_SPOT if i == 0 else Spot.FOOT_RAIL)
            for i, b in enumerate(balls)]


def _won(state: MatchState, player: int, reason: str,
         decisions: list[Decision]) -> tuple[MatchState, list[Decision]]:
    """Returns the game won by ``player``, or drawn when the shot took the last ball and
    another player has «своя» (PP-4)."""
    state = replace(state, status=Status.GAME_OVER)
    short = target(state.n_players) - 1
    secured = [i for i, p in enumerate(state.players) if i != player and p.score == short]
    opts = options_of(state)
    svoya = opts.svoya if state.n_players == 2 else opts.svoya_more_players
    if secured and not state.on_table and svoya:
        return state, [*decisions, Noted("svoya", str(secured[0])), GameDrawn(state.game_no)]
    return state, [*decisions, GameWon(player, state.game_no, reason)]


def _pass(state: MatchState, to: int, decisions: list[Decision],
          in_hand: InHand = InHand.NONE) -> tuple[MatchState, list[Decision]]:
    """Returns the state with the turn passed (PP-1, PP-11)."""
    state = replace(state, status=Status.IN_PLAY, to_shoot=to, ball_in_hand=in_hand)
    return state, [*decisions, TurnPassed(to, in_hand)]
