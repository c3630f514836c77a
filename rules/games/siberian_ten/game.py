"""Siberian Ten's rules (the package's docstring): a small class wiring the plain functions of
``fouls`` (what the shot was), ``credits`` (whose balls) and ``shootout`` (its own fold)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.decisions import (
    Decision,
    FoulCalled,
    GameRestarted,
    GameWon,
    InHand,
    Noted,
    OptionChosen,
    ShooterContinues,
    Spot,
    TurnPassed,
)
from rules.errors import InvalidInput
from rules.facts import CUE, Call, Foul, Pocket, ShotKind, ShotRecord, Special
from rules.game import Asker, Game, Shot, register
from rules.games.siberian_ten import shootout
from rules.games.siberian_ten.credits import (
    count,
    credit,
    ends,
    fallen,
    jumped,
    off_table,
    pick,
    spotted,
    winner,
)
from rules.games.siberian_ten.fouls import (
    VOIDING,
    applicable,
    calls_of,
    facts_fouls,
    missed,
    two_cushions,
)
from rules.games.siberian_ten.options import options_of
from rules.games.siberian_ten.records import SiberianExtra
from rules.games.siberian_ten.spec import SPEC
from rules.state import MatchState, Status, Topic

SHOOT, HAND_BACK = "shoot", "hand_back"
REBREAK, BREAK, ACCEPT = "rebreak", "break", "accept"
RESTORE, AS_LIES = "restore", "as_lies"

Ruled = tuple[MatchState, list[Decision]]


@register
class SiberianTen(Game):
    spec = SPEC

    # ------------------------------------------------------------------ the game's frame
    def rack(self, state: MatchState) -> MatchState:
        options = options_of(state)
        breaker = options.handicap_giver if options.handicap else state.breaker  # ST-19
        return self._rack(state, breaker)

    def _rack(self, state: MatchState, breaker: int) -> MatchState:
        # ST-2: all ten balls racked, the breaker's cue ball in the kitchen (ST-4).
        return self.new_rack(state, breaker=breaker,
                             extra=SiberianExtra(handicap_left=options_of(state).handicap))

    def identity_needed(self, state: MatchState, record: ShotRecord,
                        pocket: Pocket | None) -> bool:
        # Any object ball counts the same on the break, in uncalled play, on a bullet, and
        # (called play) in a pocket nobody called; with no call recorded, the missing-call
        # question names the ball.
        if state.status in (Status.BREAK, Status.SHOOTOUT) or not options_of(state).called:
            return False
        if not record.calls:
            return options_of(state).missing_call != "no_count"
        # a called cue ball: whether it fell matters, not which object ball fell beside it
        return any(c.pocket == pocket and c.ball != CUE for c in record.calls)

    def only_the_called_ball_matters(self, state: MatchState, record: ShotRecord,
                                     pocket: Pocket | None) -> bool:
        # called play: any ball but the called one counts for the opponent (ST-6…ST-8)
        return (options_of(state).called and bool(record.calls)
                and state.status not in (Status.BREAK, Status.SHOOTOUT))

    def balls_in_play(self, state: MatchState) -> tuple[int, ...]:
        if state.status is Status.SHOOTOUT:
            return (shootout.BULLET_BALL,)
        return state.on_table

    def shootout_json(self, state: MatchState) -> Any:
        extra = state.extra
        if isinstance(extra, SiberianExtra) and extra.shootout is not None:
            return extra.shootout.to_json()
        return None

    def check_call(self, state: MatchState, calls: tuple[Call, ...], kind: ShotKind) -> None:
        if state.status is Status.SHOOTOUT:
            shootout.check_call(state, calls, kind)
            return
        if kind is ShotKind.IGRA:
            raise InvalidInput("\"Igra\" is declared only in the shoot-out")
        if kind is not ShotKind.NORMAL:
            raise InvalidInput(f"Siberian Ten has no {kind} shot")
        if calls and state.status is Status.BREAK:
            raise InvalidInput("no call on the break: every ball that falls counts")
        if calls and not options_of(state).called:
            raise InvalidInput("uncalled play: no call is made")
        if len(calls) > self.max_calls:
            raise InvalidInput(f"{self.name} allows {self.max_calls} called balls per shot")
        if len({c.ball for c in calls}) != len(calls):
            raise InvalidInput("a ball can be called only once per shot")
        for call in calls:
            if call.ball != CUE and call.ball not in state.on_table:
                raise InvalidInput(f"ball {call.ball} is not on the table")

    # ------------------------------------------------------------------ one shot
    def rule(self, state: MatchState, shot: Shot, ask: Asker) -> Ruled:
        if state.status is Status.SHOOTOUT:
            return shootout.rule(state, shot, ask)
        after, decisions = self._rule(state, shot, ask)
        # ST-12 reads who fouled last: the other then plays from hand after it
        fouled = next((shot.shooter for d in decisions
                       if isinstance(d, FoulCalled) and d.player == shot.shooter), None)
        if isinstance(after.extra, SiberianExtra) and after.extra.fouled != fouled:
            after = replace(after, extra=replace(after.extra, fouled=fouled))
        return after, decisions

    def _rule(self, state: MatchState, shot: Shot, ask: Asker) -> Ruled:
        special = shot.record.special
        decisions: list[Decision] = []
        if special is Special.INTERFERENCE:  # ST-18 в)
            return interference(state, shot, ask)
        if special is Special.HANGING_BALL:  # ST-18 г)
            decisions = spotted(shot, Spot.FOOT_SPOT)
            state = replace(state, ball_in_hand=InHand.KITCHEN)
            return state, [*decisions, ShooterContinues(shot.shooter, InHand.KITCHEN)]
        if special is Special.RETURNED_FROM_FLOOR:  # ST-18 а): nothing counts, turn passes
            decisions = spotted(shot, Spot.FOOT_RAIL)
            return self._next(state, shot, decisions, state.next_player(shot.shooter),
                              InHand.NONE)
        if special is Special.ON_RAIL:  # ST-18 б): pocketed balls count, turn passes
            calls = calls_of(state, shot, ask)
            if calls is None:
                return state, decisions
            every = shot.is_break or not options_of(state).called
            counted = count(state, shot, None if every else calls, decisions, ask)
            if counted is None:
                return state, decisions
            return self._next(counted[0], shot, decisions, state.next_player(shot.shooter),
                              InHand.KITCHEN if shot.cue_pocketed else InHand.NONE)
        if special is not None:
            decisions.append(Noted("special_ignored", str(special)))
        if shot.is_break:
            return self._break(state, shot, ask, decisions)
        return self._play(state, shot, ask, decisions)

    def _break(self, state: MatchState, shot: Shot, ask: Asker,
               decisions: list[Decision]) -> Ruled:
        """ST-4, ST-5: everything that falls counts for the breaker; with nothing down the
        two-cushion rule holds or the opponent chooses."""
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        record = shot.record
        anything = shot.objects_fell or shot.cue_pocketed
        miss = missed(state, shot, ask, decisions)
        if miss is None:
            return state, decisions
        fouls = applicable(state, shot, facts_fouls(state, shot, anything, miss), decisions)
        fouls = [f for f in fouls if f is not Foul.BAD_BREAK]
        if fouls:
            return self._foul(state, shot, fouls, decisions, ask)
        if anything:
            counted = count(state, shot, None, decisions, ask)
            if counted is None:
                return state, decisions
            state, continues = jumped(state, shot, decisions, *counted)
            in_hand = InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table else InHand.NONE
            return self._next(state, shot, decisions, shooter if continues else opponent, in_hand)
        if Foul.BAD_BREAK in record.fouls:
            legal: bool | None = False
        else:
            # ST-5: the break section states the rule in its full wording, after the contact
            legal = two_cushions(state, shot, ask, decisions, "after_contact")
            if legal is None:
                return state, decisions
        if legal:
            state, _ = jumped(state, shot, decisions, state, False)
            return self._next(state, shot, decisions, opponent, InHand.NONE)
        why = Foul.BAD_BREAK if Foul.BAD_BREAK in record.fouls else Foul.TWO_CUSHION
        decisions.append(FoulCalled(shooter, (why,)))
        choice = ask.option(opponent, Topic.ILLEGAL_BREAK, (REBREAK, BREAK, ACCEPT))
        if choice is None:
            return replace(state, to_shoot=opponent), decisions
        decisions.append(OptionChosen(opponent, choice))
        if choice == ACCEPT:
            state, _ = jumped(state, shot, decisions, state, False)
            return self._next(state, shot, decisions, opponent, InHand.NONE)
        breaker = shooter if choice == REBREAK else opponent
        return self._rack(state, breaker), [*decisions, GameRestarted(state.game_no, breaker,
                                                                      choice)]

    def _play(self, state: MatchState, shot: Shot, ask: Asker, decisions: list[Decision]) -> Ruled:
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        calls = calls_of(state, shot, ask)
        if calls is None:
            return state, decisions
        if options_of(state).called:
            legal_pot = bool(calls) and any(shot.fell_in(c.ball, c.pocket) for c in calls)
        else:
            legal_pot = shot.objects_fell
        miss = missed(state, shot, ask, decisions)
        if miss is None:
            return state, decisions
        fouls = applicable(state, shot, facts_fouls(state, shot, legal_pot, miss), decisions)
        if options_of(state).two_cushions_when == "nothing_played":
            applies = not legal_pot
        else:
            applies = not shot.objects_fell and not shot.cue_pocketed
        if not fouls and applies:  # ST-14
            legal = two_cushions(state, shot, ask, decisions, options_of(state).two_cushions)
            if legal is None:
                return state, decisions
            if not legal:
                fouls.append(Foul.TWO_CUSHION)
        if fouls:
            return self._foul(state, shot, fouls, decisions, ask)
        counted = count(state, shot, calls if options_of(state).called else None,
                              decisions, ask)
        if counted is None:
            return state, decisions
        state, continues = jumped(state, shot, decisions, *counted)
        in_hand = InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table else InHand.NONE
        return self._next(state, shot, decisions, shooter if continues else opponent, in_hand)

    def _foul(self, state: MatchState, shot: Shot, fouls: list[Foul],
              decisions: list[Decision], ask: Asker) -> Ruled:
        """ST-15…ST-17 (and ST-12 alone without a penalty ball, by default)."""
        options = options_of(state)
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        decisions.append(FoulCalled(shooter, tuple(fouls)))
        voided = any(f in VOIDING for f in fouls)
        if voided:  # ST-17
            decisions += spotted(shot, Spot.FOOT_RAIL)
        else:  # ST-16
            for ball in fallen(shot):
                state = credit(state, opponent, ball, decisions, by=shooter)
        state = off_table(state, shot, decisions)  # ST-10
        kitchen_only = fouls == [Foul.DIRECT_HIT_IN_KITCHEN] and not options.kitchen_penalty
        if kitchen_only:  # ST-12: the opponent plays on from the kitchen
            return self._next(state, shot, decisions, opponent, InHand.KITCHEN)
        scratch = shot.cue_pocketed or shot.cue_off_table
        in_hand = InHand.KITCHEN if options.after_foul == "kitchen" or scratch else InHand.NONE
        if ends(state):
            return self._next(state, shot, decisions, opponent, in_hand)
        # ST-16: the penalty ball, the opponent's choice (the table is not empty: see _ends)
        picked = pick(state, opponent, ask, Topic.PENALTY_BALL, to=opponent)
        if picked is None:
            # Which ball does not change whether the game ends here; if it does, ask no more.
            if ends(credit(state, opponent, state.on_table[0], [])):
                return replace(state, to_shoot=opponent), decisions
        else:
            state = credit(state, opponent, picked, decisions)
            if ends(state):
                return self._next(state, shot, decisions, opponent, in_hand)
        choice = ask.option(opponent, Topic.SHOOT_OR_HAND_BACK, (SHOOT, HAND_BACK),
                            reason="foul")
        if choice is None or picked is None:
            return replace(state, status=Status.IN_PLAY, to_shoot=opponent,
                           ball_in_hand=in_hand), decisions
        decisions.append(OptionChosen(opponent, choice))
        to = opponent if choice == SHOOT else shooter
        return self._next(state, shot, decisions, to, in_hand)

    def _next(self, state: MatchState, shot: Shot, decisions: list[Decision], to: int,
              in_hand: InHand) -> Ruled:
        """Ends the game at six (ST-3), starts the shoot-out on an empty table (ST-20), or gives
        the next shot to ``to``."""
        won = winner(state)
        if won is not None:
            return replace(state, status=Status.GAME_OVER), [
                *decisions, GameWon(won, state.game_no, "six_balls")]
        if not state.on_table:  # 5:5: ten balls credited, nobody at six (ST-20)
            return shootout.start(state, shot, decisions)
        state = replace(state, status=Status.IN_PLAY, to_shoot=to, ball_in_hand=in_hand)
        if to == shot.shooter and not any(isinstance(d, OptionChosen) for d in decisions):
            return state, [*decisions, ShooterContinues(to, in_hand)]
        return state, [*decisions, TurnPassed(to, in_hand)]


def interference(state: MatchState, shot: Shot, ask: Asker) -> Ruled:
    """ST-18 в): the shot is replayed; the position is restored, or, with the
    ``interference`` option 'ask', as the injured player (the shooter) chooses."""
    shooter = shot.shooter
    if options_of(state).interference == "replay":
        return state, [Noted("replayed", "interference"),
                       ShooterContinues(shooter, state.ball_in_hand)]
    choice = ask.option(shooter, Topic.INTERFERENCE, (RESTORE, AS_LIES))
    if choice is None:
        return state, []
    decisions: list[Decision] = [OptionChosen(shooter, choice),
                                 Noted("replayed", "interference")]
    if choice == RESTORE:
        return state, [*decisions, ShooterContinues(shooter, state.ball_in_hand)]
    decisions += spotted(shot, Spot.FOOT_SPOT)
    in_hand = InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table else InHand.NONE
    state = replace(state, ball_in_hand=in_hand)
    return state, [*decisions, ShooterContinues(shooter, in_hand)]
