"""Siberian Ten invariants of docs/rules.md over random play (hypothesis).

Random shot records (calls of object balls and the cue ball, drops with and without identity,
contacts, cushions, the centre line, declared fouls, balls off the table, special positions,
"Игра") and random valid answers, fed to a referee. After every input: each of the ten object
balls is on the table or credited to exactly one player; scores only grow within a game and
count the credited balls; a game ends at six, or goes to the shoot-out exactly at 5:5 with no
object ball on the table; undo gives back the earlier state; a replay gives the same state.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rules import (
    CUE,
    OBJECT,
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
    Special,
    Undone,
)
from rules.decisions import GameRestarted, GameWon
from rules.games.siberian_ten import BULLET_BALL, GOAL, SiberianTen
from rules.state import Status
from tests.rules.build import play

ALL = list(range(1, 11))
POCKETS = list(Pocket)
FOULS = [Foul.MISS, Foul.TOUCHED_BALL, Foul.PUSH, Foul.FEET_OFF_FLOOR, Foul.DIRECT_HIT_IN_KITCHEN,
         Foul.BAD_BREAK, Foul.MOVING_BALLS]
SPECIALS = [Special.INTERFERENCE, Special.ON_RAIL, Special.RETURNED_FROM_FLOOR,
            Special.HANGING_BALL]


@st.composite
def records(draw: st.DrawFn, ref: Referee) -> ShotRecord:
    state = ref.state
    shootout = state.status is Status.SHOOTOUT
    if state.status is Status.GAME_OVER:
        on_table = ALL
    elif shootout:
        on_table = [BULLET_BALL]
    else:
        on_table = list(state.on_table)
    n_drops = draw(st.integers(0, min(4, len(on_table))))
    fallen = draw(st.permutations(on_table))[:n_drops]
    drops = [Drop(draw(st.sampled_from(POCKETS)), b if draw(st.booleans()) else None)
             for b in fallen]
    cue_sensed = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        drops.append(Drop(draw(st.sampled_from(POCKETS)), CUE if cue_sensed else None))
    targets: list[Any] = [*on_table, CUE]
    called = draw(st.lists(st.sampled_from(targets), max_size=2, unique=True))
    calls = tuple(Call(b, draw(st.sampled_from(POCKETS))) for b in called)
    if draw(st.booleans()):  # call what fell where it fell, often
        calls = tuple(Call(d.ball, d.pocket) for d in drops[:2]
                      if d.ball is not None and d.pocket is not None)
    kind = ShotKind.IGRA if draw(st.integers(0, 3)) == 0 else ShotKind.NORMAL
    try:
        ref.check_call(calls, kind)
    except InvalidInput:
        calls, kind = (), ShotKind.NORMAL  # always allowed
    first = draw(st.sampled_from([UNKNOWN, None, *on_table[:3], *on_table[:3]]))
    cushions = draw(st.one_of(st.just(UNKNOWN), st.lists(st.sampled_from(list(Rail)), max_size=3)
                              .map(tuple)))
    centre = draw(st.sampled_from([UNKNOWN, True, False]))
    fouls = tuple(draw(st.lists(st.sampled_from(FOULS), max_size=1))) if draw(
        st.integers(0, 3)) == 0 else ()
    off = tuple(draw(st.lists(st.sampled_from([*on_table, CUE]), max_size=1))) if draw(
        st.integers(0, 4)) == 0 else ()
    special = draw(st.sampled_from(SPECIALS)) if draw(st.integers(0, 12)) == 0 else None
    return ShotRecord(calls=calls, kind=kind, drops=tuple(drops), cue_sensed=cue_sensed,
                      first_contact=first, cushions=cushions, off_table=off, centre_line=centre,
                      fouls=fouls, special=special)


def valid_answer(draw: st.DrawFn, question: Any, named: set[Any]) -> Any:
    """A valid answer; ``named``: balls this shot's other identify answers already named."""
    if question.kind == "identify":
        free = [b for b in question.choices if b not in named]
        return draw(st.permutations(free))[: question.count]
    return draw(st.sampled_from(list(question.choices)))


def check_invariants(ref: Referee) -> None:
    state = ref.state
    scores = [p.score for p in state.players]
    # each object ball on the table or credited to exactly one player; nothing invented
    # (numbers where known; a ball of no known number is credited as OBJECT, and as many of
    # the numbers on the table are balls that fell: ``unidentified``)
    numbers = [b for p in state.players for b in p.balls if isinstance(b, int)]
    objects = sum(b == OBJECT for p in state.players for b in p.balls)
    together = numbers + list(state.on_table)
    assert len(set(together)) == len(together) and set(together) <= set(ALL)
    assert 0 <= state.unidentified < max(1, len(state.on_table))
    assert len(ALL) - len(numbers) - state.balls_left == objects
    assert list(state.on_table) == sorted(state.on_table)
    assert all(p.score == len(p.balls) for p in state.players)
    assert sum(1 for p in state.players for b in p.balls if b == CUE) <= 1
    if state.status is Status.MATCH_OVER:
        assert state.to_shoot is None and state.winner is not None
    else:
        assert state.to_shoot in (0, 1)
    if ref.questions:
        return
    if state.status in (Status.BREAK, Status.IN_PLAY):
        assert state.on_table and max(scores) < GOAL
    if state.status is Status.SHOOTOUT:
        assert scores == [5, 5] and state.on_table == ()
        assert ref.snapshot()["shootout"] is not None
    if state.status in (Status.GAME_OVER, Status.MATCH_OVER):
        assert state.winner is not None
        if state.extra.shootout is None:  # won at six
            assert scores[state.winner] >= GOAL > scores[1 - state.winner]
        else:
            assert scores == [5, 5] and state.on_table == ()


def run(data: st.DataObject, ref: Referee, inputs: list[Any], steps: int) -> None:
    named: set[Any] = set()
    for _ in range(steps):
        if ref.state.status is Status.MATCH_OVER:
            break
        if ref.questions:
            q = ref.questions[data.draw(st.integers(0, len(ref.questions) - 1))]
            value = valid_answer(data.draw, q, named)
            if q.kind == "identify":
                named |= set(value)
            inp: Any = Answered(q.id, value)
        else:
            named = set()
            inp = ShotPlayed(data.draw(records(ref)))
        before_state = ref.state
        before = ref.snapshot()
        out = ref.feed(inp)
        inputs.append(inp)
        check_invariants(ref)
        after = ref.state
        for d in out:
            event(type(d).__name__)  # what random play reached (--hypothesis-show-statistics)
        # scores only grow within a game (a restarted break had nothing credited)
        if after.game_no == before_state.game_no and not any(
                isinstance(d, GameRestarted) for d in out):
            assert all(a.score >= b.score for a, b in zip(after.players, before_state.players,
                                                          strict=True))
        if any(isinstance(d, GameRestarted) for d in out):
            assert all(p.score == 0 for p in before_state.players)
        if any(isinstance(d, GameWon) for d in out):
            assert after.status in (Status.GAME_OVER, Status.MATCH_OVER)
        if isinstance(inp, ShotPlayed) and data.draw(st.integers(0, 7)) == 0:
            ref.feed(Undone(1))  # undo gives back exactly the state before the shot
            assert ref.snapshot() == before
            ref.feed(inp)


def replayed(inputs: list[Any]) -> Referee:
    again = Referee()
    for inp in inputs:
        again.feed(inp)
    return again


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_siberian_random_play_keeps_the_invariants(data: st.DataObject) -> None:
    options: dict[str, object] = data.draw(st.fixed_dictionaries({}, optional={
        "called": st.booleans(),
        "handicap": st.integers(0, 3),
        "handicap_giver": st.integers(0, 1),
        "centre_line_unknown": st.sampled_from(["ask", "crossed", "not_crossed"]),
        "cushions_unknown": st.sampled_from(["ask", "legal"]),
        "missing_call": st.sampled_from(["ask", "count", "no_count"]),
        "presume_called": st.booleans(),
        "after_foul": st.sampled_from(["kitchen", "as_lies"]),
        "kitchen_penalty": st.booleans(),
        "ball_off_table": st.sampled_from(["opponent", "penalty"]),
        "igra_foul": st.sampled_from(["turn_passes", "loses"]),
        "two_cushions_when": st.sampled_from(["nothing_played", "nothing_fell"]),
        "interference": st.sampled_from(["ask", "replay"]),
    }))
    setup = MatchSetup("siberian-ten", ("Ann", "Bob"), race_to=data.draw(st.integers(1, 3)),
                       breaker=data.draw(st.integers(0, 1)), options=options)
    ref = Referee()
    inputs: list[Any] = [NewMatch(setup)]
    ref.feed(inputs[0])
    check_invariants(ref)
    run(data, ref, inputs, data.draw(st.integers(1, 60)))
    assert replayed(inputs).snapshot() == ref.snapshot()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_siberian_random_shootout_stays_five_all_until_a_winner(
        data: st.DataObject) -> None:
    ref = Referee()
    inputs: list[Any] = [NewMatch(MatchSetup("siberian-ten", ("Ann", "Bob")))]
    ref.feed(inputs[0])
    for record in (  # Ann breaks in five; her next shot puts five in the wrong pocket: 5:5
        ShotRecord(drops=tuple(Drop(Pocket.FOOT_LEFT, b) for b in range(1, 6)), cue_sensed=True),
        ShotRecord(calls=(Call(6, Pocket.FOOT_LEFT),), cue_sensed=True, cushion_count=2,
                   drops=tuple(Drop(Pocket.FOOT_RIGHT, b) for b in range(6, 11))),
    ):
        play(ref, record)
        inputs.append(ShotPlayed(record))
    assert ref.state.status is Status.SHOOTOUT
    run(data, ref, inputs, 120)
    assert [p.score for p in ref.state.players] == [5, 5]  # bullets never touch the score
    if ref.state.status is Status.MATCH_OVER:
        assert ref.state.winner in (0, 1) and ref.snapshot()["shootout"] is not None
    assert replayed(inputs).snapshot() == ref.snapshot()


def test_siberian_is_registered() -> None:
    from rules import GAMES

    assert isinstance(GAMES["siberian-ten"], SiberianTen)
