"""The rules of one shot, as the package's docstring lists them: a small class wiring plain
functions."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.decisions import (
    BallSpotted,
    BallStaysDown,
    Decision,
    FoulCalled,
    GameRestarted,
    GameWon,
    InHand,
    MatchWon,
    Noted,
    OptionChosen,
    ShooterContinues,
    Spot,
    TurnPassed,
    WarningIssued,
)
from rules.errors import InvalidInput
from rules.facts import CUE, UNKNOWN, Call, Foul, ShotKind, Special
from rules.game import Asker, Game, Shot, register
from rules.games.ten_ball.cushions import four_balls_to_a_cushion, rail_after_contact
from rules.games.ten_ball.options import options_of
from rules.games.ten_ball.spec import SPEC
from rules.state import MatchState, Status, Topic

TEN = 10

SHOOT, HAND_BACK = "shoot", "hand_back"


@dataclass(frozen=True, slots=True)
class TenBallExtra:
    #: The next shot may be a push-out: it is the first shot after a legal break (TB-6).
    push_out_allowed: bool = False


@register
class TenBall(Game):
    spec = SPEC

    def rack(self, state: MatchState) -> MatchState:
        # TB-4: the 1 on the foot spot, the 10 in the centre; all ten balls on the table.
        return self.new_rack(state, extra=TenBallExtra())

    def check_call(self, state: MatchState, calls: tuple[Call, ...], kind: ShotKind) -> None:
        super().check_call(state, calls, kind)
        if any(c.ball == CUE for c in calls):
            raise InvalidInput("in ten-ball the cue ball cannot be called")
        breaking = state.status is Status.BREAK
        if kind is ShotKind.PUSH_OUT and not state.extra.push_out_allowed:
            raise InvalidInput("a push-out is allowed only on the shot right after a legal break")
        if kind is ShotKind.SAFETY and breaking:
            raise InvalidInput("a safety cannot be called on the break")

    def rule(self, state: MatchState, shot: Shot, ask: Asker) -> tuple[MatchState, list[Decision]]:
        opts = options_of(state)
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        record = shot.record

        if record.special is Special.STALEMATE:  # TB-14: the breaker of this game breaks again
            restarted = self.rack(state)
            restarted = replace(restarted, players=tuple(
                replace(p, consecutive_fouls=0) for p in restarted.players))
            return restarted, [GameRestarted(state.game_no, state.breaker, "stalemate")]

        if record.forfeit is not None:  # TB-14: the referee's penalty, up to the match
            forfeit = record.forfeit
            winner = state.next_player(forfeit.player)
            decisions: list[Decision] = [
                Noted("unsportsmanlike", forfeit.reason),
                GameWon(winner, state.game_no, "unsportsmanlike")]
            if forfeit.match:
                decisions.append(MatchWon(winner))
            return replace(state, status=Status.GAME_OVER), decisions

        lowest = min(state.on_table)
        pocketed = shot.balls_pocketed
        push_out = shot.kind is ShotKind.PUSH_OUT and state.extra.push_out_allowed
        fouls: list[Foul] = list(dict.fromkeys(record.fouls))
        decisions = []
        if Foul.DIRECT_HIT_IN_KITCHEN in fouls and state.ball_in_hand is not InHand.KITCHEN:
            # TB-11 (rule 6.11): only a shot from hand behind the head string can break it
            fouls.remove(Foul.DIRECT_HIT_IN_KITCHEN)
            decisions.append(Noted("foul_not_applicable", str(Foul.DIRECT_HIT_IN_KITCHEN)))

        # TB-11: fouls the facts show.
        if shot.cue_pocketed:
            fouls.append(Foul.SCRATCH)
        if shot.cue_off_table:
            fouls.append(Foul.CUE_OFF_TABLE)
        if shot.balls_off_table:
            fouls.append(Foul.BALL_OFF_TABLE)
        if not push_out:  # TB-6: no wrong-ball or no-rail foul on a push-out
            first = record.first_contact
            if first is UNKNOWN and record.contact_unheard and not shot.objects_fell:
                first = None  # the click sensor heard nothing: evidence of a miss
                decisions.append(Noted("miss_unheard"))
            if first is UNKNOWN:
                if opts.presume_legal_contact:
                    first = lowest
                    decisions.append(Noted("first_contact_presumed", str(lowest)))
                else:
                    legal = ask.confirm(shooter, Topic.FIRST_CONTACT, ball=lowest)
                    if legal is None:
                        return state, decisions
                    first = lowest if legal else None
                    if not legal:
                        fouls.append(Foul.WRONG_BALL_FIRST)
            if first is None and Foul.WRONG_BALL_FIRST not in fouls:
                fouls.append(Foul.MISS)
            elif first is not None and first != lowest:
                fouls.append(Foul.WRONG_BALL_FIRST)
            elif first is not None and not shot.is_break and not pocketed:
                rail = rail_after_contact(state, shot, ask, decisions)
                if rail is None:
                    return state, decisions
                if not rail:
                    fouls.append(Foul.NO_RAIL)  # no ball pocketed and no rail after contact
        fouls = list(dict.fromkeys(fouls))
        if shot.is_break and not pocketed and not fouls:  # TB-5
            four = four_balls_to_a_cushion(state, shot, ask, decisions)
            if four is None:
                return state, decisions
            if not four:
                fouls.append(Foul.BAD_BREAK)

        if fouls:
            return self._foul(state, shot, fouls, decisions)

        state = state.with_player(shooter, consecutive_fouls=0)
        state = replace(state, extra=TenBallExtra(push_out_allowed=shot.is_break))

        if shot.is_break:  # TB-2, TB-5
            if TEN in pocketed and opts.ten_on_break == "wins":
                state, decisions = self._down(state, shooter, pocketed, decisions, spot_ten=False)
                return replace(state, status=Status.GAME_OVER), [
                    *decisions, GameWon(shooter, state.game_no, "ten_on_the_break")]
            state, decisions = self._down(state, shooter, pocketed, decisions)
            if pocketed:
                return self._continue(state, shooter, decisions)
            return self._pass(state, opponent, decisions)

        call = self._call(state, shot, ask)
        if ask.pending:
            return state, decisions
        legal_pot = (call is not None and shot.kind is ShotKind.NORMAL
                     and shot.fell_in(call.ball, call.pocket))
        won = legal_pot and call is not None and call.ball == TEN
        state, decisions = self._down(state, shooter, pocketed, decisions, spot_ten=not won)

        if push_out:  # TB-6: the other player chooses who shoots
            return self._offer(state, shooter, opponent, decisions, ask, "push_out")
        if shot.kind is ShotKind.SAFETY:  # TB-8
            if pocketed:
                return self._offer(state, shooter, opponent, decisions, ask, "safety")
            return self._pass(state, opponent, decisions)
        if won:
            return replace(state, status=Status.GAME_OVER), [
                *decisions, GameWon(shooter, state.game_no, "ten_pocketed")]
        if legal_pot:  # TB-13
            return self._continue(state, shooter, decisions)
        if pocketed:  # TB-9: a ball fell, but not the called ball in its pocket
            return self._offer(state, shooter, opponent, decisions, ask, "missed_call")
        return self._pass(state, opponent, decisions)

    # -------------------------------------------------------------- pieces
    @staticmethod
    def _call(state: MatchState, shot: Shot, ask: Asker) -> Call | None:
        """Returns the shot's call. TB-7: the core always records a call; when none came and a
        ball fell, the ``missing_call`` option settles it (by default, the referee is asked
        whether the first ball down was the called shot)."""
        if shot.calls or shot.kind is not ShotKind.NORMAL or not shot.pocketed:
            return shot.calls[0] if shot.calls else None
        ball, pocket = shot.pocketed[0]
        if pocket is None:
            return None
        how = options_of(state).missing_call
        if how == "no_count":
            return None
        if how == "ask" and not ask.confirm(shot.shooter, Topic.WAS_CALLED, ball=ball,
                                            pocket=pocket):
            return None
        return Call(ball, pocket)

    @staticmethod
    def _down(state: MatchState, shooter: int, pocketed: tuple[int, ...],
              decisions: list[Decision], spot_ten: bool = True,
              off_table: tuple[int, ...] = ()) -> tuple[MatchState, list[Decision]]:
        """TB-10: balls stay down except the 10 (when it must be spotted); balls off the table
        are spotted, or (option ``off_table_balls``) only the 10 is, the others stay out of
        play. When a ball spotted from off the table is then the lowest on the table, a
        ``Noted("lowest_ball_spotted")`` says so: the next shot must hit it first."""
        jumped = {b for b in off_table if b not in pocketed}
        spotted = {TEN} & (set(pocketed) if spot_ten else set()) | {TEN} & jumped
        if options_of(state).off_table_balls == "spotted":
            spotted |= jumped
        down = [b for b in pocketed if b not in spotted]
        gone = sorted(jumped - spotted)  # §9.9: off the table, not spotted
        decisions = [*decisions, *(BallStaysDown(b) for b in [*down, *gone]),
                     *(BallSpotted(b, Spot.FOOT_SPOT) for b in sorted(spotted))]
        state = state.without_balls(set(down) | set(gone))
        lowest = min(state.on_table, default=None)
        if lowest is not None and lowest != TEN and lowest in spotted:
            decisions.append(Noted("lowest_ball_spotted", str(lowest)))
        player = state.players[shooter]
        return state.with_player(shooter, score=player.score + len(down)), decisions

    def _foul(self, state: MatchState, shot: Shot, fouls: list[Foul],
              decisions: list[Decision]) -> tuple[MatchState, list[Decision]]:
        opts = options_of(state)
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        decisions = [*decisions, FoulCalled(shooter, tuple(fouls))]
        state, decisions = self._down(state, shooter, shot.balls_pocketed, decisions,
                                      off_table=shot.balls_off_table)
        count = state.players[shooter].consecutive_fouls + 1
        state = state.with_player(shooter, consecutive_fouls=count)
        state = replace(state, extra=TenBallExtra())
        if opts.three_fouls and count >= 3:  # TB-12
            return replace(state, status=Status.GAME_OVER), [
                *decisions, GameWon(opponent, state.game_no, "three_fouls")]
        if opts.three_fouls and count == 2:
            decisions.append(WarningIssued(shooter, "two_fouls"))
        scratch = Foul.SCRATCH in fouls or Foul.CUE_OFF_TABLE in fouls
        # TB-11: after a scratch, and after illegal play from behind the head string (rule 6.11,
        # second paragraph), the incoming player has the ball in hand behind the head string.
        kitchen = (scratch and opts.scratch_in_hand == "kitchen"
                   or Foul.DIRECT_HIT_IN_KITCHEN in fouls)
        in_hand = InHand.KITCHEN if kitchen else InHand.ANYWHERE
        return self._pass(state, opponent, decisions, in_hand)

    @staticmethod
    def _continue(state: MatchState, shooter: int,
                  decisions: list[Decision]) -> tuple[MatchState, list[Decision]]:
        state = replace(state, status=Status.IN_PLAY, to_shoot=shooter, ball_in_hand=InHand.NONE)
        return state, [*decisions, ShooterContinues(shooter)]

    @staticmethod
    def _pass(state: MatchState, to: int, decisions: list[Decision],
              in_hand: InHand = InHand.NONE) -> tuple[MatchState, list[Decision]]:
        state = replace(state, status=Status.IN_PLAY, to_shoot=to, ball_in_hand=in_hand)
        return state, [*decisions, TurnPassed(to, in_hand)]

    def _offer(self, state: MatchState, shooter: int, opponent: int, decisions: list[Decision],
               ask: Asker, reason: str) -> tuple[MatchState, list[Decision]]:
        """TB-6, TB-8, TB-9: the opponent shoots from here or hands the shot back; ``reason``
        (``push_out``, ``safety``, ``missed_call``) says why they may."""
        state = replace(state, status=Status.IN_PLAY, to_shoot=opponent, ball_in_hand=InHand.NONE)
        choice = ask.option(opponent, Topic.SHOOT_OR_HAND_BACK, (SHOOT, HAND_BACK),
                            reason=reason)
        if choice is None:
            return state, decisions
        decisions = [*decisions, OptionChosen(opponent, choice)]
        if choice == SHOOT:
            return self._pass(state, opponent, decisions)
        return self._pass(state, shooter, decisions)
