"""Invariants of docs/rules.md over random play (hypothesis).

Random shot records (random calls, drops with and without identity, contacts, cushions,
declared fouls, balls off the table) and random valid answers, fed to a referee: the
invariants hold after every input, undo gives back the earlier state, and a replay of the
same inputs gives the same state.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    CUE,
    GAMES,
    UNKNOWN,
    Answered,
    Call,
    Drop,
    Foul,
    InvalidInput,
    MatchSetup,
    NewMatch,
    Pocket,
    Rail,
    Referee,
    ShotKind,
    ShotPlayed,
    ShotRecord,
    Undone,
)
from rules.decisions import FoulCalled, GameRestarted, GameWon, ShooterContinues, TurnPassed
from rules.facts import DECLARABLE_FOULS
from rules.state import Status

POCKETS = list(Pocket)


@st.composite
def records(draw: st.DrawFn, ref: Referee) -> ShotRecord:
    state = ref.state
    on_table = list(state.on_table) if state.status is not Status.GAME_OVER else list(
        GAMES[state.setup.game].balls)
    n_drops = draw(st.integers(0, min(3, len(on_table))))
    fallen = draw(st.permutations(on_table))[:n_drops]
    drops = [Drop(draw(st.sampled_from(POCKETS)), b if draw(st.booleans()) else None)
             for b in fallen]
    cue_sensed = draw(st.booleans())
    if draw(st.integers(0, 5)) == 0:
        drops.append(Drop(draw(st.sampled_from(POCKETS)), CUE if cue_sensed else None))
    calls: tuple[Call, ...] = ()
    if draw(st.booleans()) and on_table:
        calls = (Call(draw(st.sampled_from(on_table)), draw(st.sampled_from(POCKETS))),)
    kind = draw(st.sampled_from([ShotKind.NORMAL] * 6 + [ShotKind.SAFETY, ShotKind.PUSH_OUT]))
    try:
        ref.check_call(calls, kind)
    except InvalidInput:
        calls, kind = (), ShotKind.NORMAL
    lowest = min(on_table) if on_table else None
    first = draw(st.sampled_from([UNKNOWN, lowest, lowest, None, *on_table[:3]]))
    cushions = draw(st.one_of(st.just(UNKNOWN), st.lists(st.sampled_from(list(Rail)), max_size=3)
                              .map(tuple)))
    fouls = tuple(draw(st.lists(st.sampled_from(sorted(DECLARABLE_FOULS)), max_size=1)))
    off = tuple(draw(st.lists(st.sampled_from([*on_table, CUE]), max_size=1, unique=True)))
    return ShotRecord(calls=calls, kind=kind, drops=tuple(drops), cue_sensed=cue_sensed,
                      first_contact=first, cushions=cushions, off_table=off, fouls=fouls)


def valid_answer(draw: st.DrawFn, question: Any) -> Any:
    if question.kind == "identify":
        return draw(st.permutations(list(question.choices)))[: question.count]
    return draw(st.sampled_from(list(question.choices)))


def check_invariants(ref: Referee, game: str) -> None:
    state = ref.state
    balls = set(GAMES[game].balls)
    snap = ref.snapshot()
    # ball conservation: on the table or down, each exactly once; nothing invented
    assert len(set(state.on_table)) == len(state.on_table)
    assert set(state.on_table) <= balls
    assert list(state.on_table) == sorted(state.on_table)
    if state.status is Status.MATCH_OVER:
        assert state.to_shoot is None and state.winner is not None
    else:  # exactly one player to shoot next
        assert state.to_shoot in range(state.n_players)
    if state.status in (Status.IN_PLAY, Status.BREAK):
        assert state.on_table, "the lowest ball must be defined while the game runs"
        assert 10 in state.on_table  # the 10 only leaves the table by winning
    assert snap["status"] == ("awaiting" if ref.questions else str(state.status))
    for p in state.players:
        assert 0 <= p.consecutive_fouls <= 2 or state.status is not Status.IN_PLAY


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_tenball_random_play_keeps_the_invariants(data: st.DataObject) -> None:
    ref = Referee()
    setup = MatchSetup("ten-ball", ("Ann", "Bob"), race_to=data.draw(st.integers(1, 3)),
                       breaker=data.draw(st.integers(0, 1)))
    inputs: list[Any] = [NewMatch(setup)]
    ref.feed(inputs[0])
    streak = [0, 0]
    for _ in range(data.draw(st.integers(1, 40))):
        if ref.state.status is Status.MATCH_OVER:
            break
        if ref.questions:
            q = ref.questions[0]
            inp: Any = Answered(q.id, valid_answer(data.draw, q))
        else:
            inp = ShotPlayed(data.draw(records(ref)))
        before = ref.snapshot()
        if isinstance(inp, ShotPlayed):
            shooter = ref.state.to_shoot
        out = ref.feed(inp)
        inputs.append(inp)
        check_invariants(ref, "ten-ball")
        if isinstance(inp, ShotPlayed) and data.draw(st.integers(0, 9)) == 0:
            # undo gives back exactly the state before the shot, then play it again
            ref.feed(Undone(1))
            assert ref.snapshot() == before
            out = ref.feed(inp)
        # three consecutive fouls always end the game (a model kept by the test)
        if any(isinstance(d, GameRestarted) for d in out):
            streak = [0, 0]
        elif any(isinstance(d, FoulCalled) for d in out):
            streak[shooter] += 1
            if streak[shooter] == 3:
                won = [d for d in out if isinstance(d, GameWon)]
                assert won and won[0].player == 1 - shooter and won[0].reason == "three_fouls"
        elif any(isinstance(d, TurnPassed | ShooterContinues) for d in out):
            streak[shooter] = 0  # a shot ruled without a foul
        if any(isinstance(d, GameWon) for d in out):
            streak = [0, 0]
    # replaying the same inputs gives the same state
    again = Referee()
    for inp in inputs:
        again.feed(inp)
    assert again.snapshot() == ref.snapshot()


def test_no_foul_code_is_unknown_to_the_core() -> None:
    assert {f.value for f in DECLARABLE_FOULS} >= {
        "miss", "touched_ball", "butt_or_side", "moving_balls", "feet_off_floor", "push",
        "double_hit", "wrong_ball_first", "wrong_cue_ball", "direct_hit_in_kitchen",
        "cue_on_table", "out_of_turn", "slow_play", "bad_placement", "game_over_touch"}
    assert Foul.SCRATCH not in DECLARABLE_FOULS
