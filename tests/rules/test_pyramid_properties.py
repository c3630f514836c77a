"""Point pyramid invariants of docs/rules.md over random play (hypothesis), 2–4 players.

Random shot records (calls with and without a manner, drops with and without identity, the
cue ball down or off the table, contacts, declared fouls, balls off the table), random
options and handicaps, and random valid answers, fed to a referee. After every input: the
scores add up to the points off the table plus the handicaps, whatever the fouls; every ball
is on the table or credited to exactly one player; exactly one player is to shoot; nobody in
play has reached the target. Undo gives back the earlier state, and a replay of the same
inputs gives the same state.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rules import (
    CUE,
    UNKNOWN,
    Answered,
    Call,
    Drop,
    InvalidInput,
    MatchSetup,
    NewMatch,
    Pocket,
    Referee,
    ShotKind,
    ShotPlayed,
    ShotRecord,
    Undone,
)
from rules.decisions import PointsMoved
from rules.facts import DECLARABLE_FOULS
from rules.state import Status

POCKETS = list(Pocket)
BALLS = range(1, 16)
# PP-3, PP-4, written out from the rules: the balls worth 10 more, and the winning points.
TEN_MORE = {2: {1}, 3: {1, 2}, 4: {1, 2, 3}}
TARGET = {2: 71, 3: 51, 4: 41}
LAST_BALL = 10


def value(ball: int, n: int) -> int:
    return ball + (10 if ball in TEN_MORE[n] else 0)


@st.composite
def records(draw: st.DrawFn, ref: Referee) -> ShotRecord:
    state = ref.state
    on_table = list(state.on_table) if state.status is not Status.GAME_OVER else list(BALLS)
    calls: tuple[Call, ...] = ()
    if draw(st.integers(0, 4)) > 0:
        calls = (Call(draw(st.sampled_from(on_table)), draw(st.sampled_from(POCKETS))),)
    kind = draw(st.sampled_from([ShotKind.NORMAL] * 8 + [ShotKind.SAFETY, ShotKind.PUSH_OUT]))
    try:
        ref.check_call(calls, kind)
    except InvalidInput:
        calls, kind = (), ShotKind.NORMAL
    n_drops = draw(st.integers(0, min(5, len(on_table))))
    fallen = draw(st.permutations(on_table))[:n_drops]
    if calls and fallen and draw(st.booleans()):  # often the called ball goes in as called
        called = calls[0].ball
        fallen = [called, *(b for b in fallen if b != called)][:n_drops]
    drops = []
    for i, ball in enumerate(fallen):
        as_called = calls and i == 0 and ball == calls[0].ball and draw(st.booleans())
        pocket = calls[0].pocket if as_called else draw(st.sampled_from(POCKETS))
        drops.append(Drop(pocket, ball if draw(st.booleans()) else None))
    cue_sensed = draw(st.booleans())
    if draw(st.integers(0, 6)) == 0:
        drops.append(Drop(draw(st.sampled_from(POCKETS)), CUE if cue_sensed else None))
    first = draw(st.sampled_from([UNKNOWN, UNKNOWN, None, *on_table[:3]]))
    fouls = tuple(draw(st.lists(st.sampled_from(sorted(DECLARABLE_FOULS)), max_size=1))
                  if draw(st.integers(0, 3)) == 0 else ())
    off = tuple(draw(st.lists(st.sampled_from([*on_table, CUE]), max_size=1, unique=True))
                if draw(st.integers(0, 5)) == 0 else ())
    manner = draw(st.sampled_from([None, "off the 4", "a double"]))
    return ShotRecord(calls=calls, kind=kind, manner=manner, drops=tuple(drops),
                      cue_sensed=cue_sensed, first_contact=first, off_table=off, fouls=fouls)


def valid_answer(draw: st.DrawFn, question: Any, named: set[Any]) -> Any:
    if question.kind == "identify":  # a ball named for one pocket cannot fall in another
        free = [b for b in question.choices if b not in named]
        return draw(st.permutations(free))[: question.count]
    return draw(st.sampled_from(list(question.choices)))


def check_invariants(ref: Referee, n: int, handicap: tuple[int, ...]) -> None:
    state = ref.state
    snap = ref.snapshot()
    credited = [b for p in state.players for b in p.balls]
    # ball accounting: every ball on the table or credited to one player, exactly once
    assert len(credited) == len(set(credited))
    assert sorted([*state.on_table, *credited]) == list(BALLS)
    assert list(state.on_table) == sorted(state.on_table)
    # the points: what left the table, plus the handicaps, whatever the fouls (PP-3, PP-8)
    off = sum(value(b, n) for b in credited) + (LAST_BALL if not state.on_table else 0)
    assert sum(p["score"] for p in snap["players"]) == off + sum(handicap)
    if state.status is Status.MATCH_OVER:
        assert state.to_shoot is None and state.winner is not None
    else:  # exactly one player to shoot next
        assert state.to_shoot in range(n)
    if state.status in (Status.IN_PLAY, Status.BREAK):  # PP-4: a win ends the game at once
        assert all(p.score < TARGET[n] for p in state.players) and state.on_table
    if state.status in (Status.GAME_OVER, Status.MATCH_OVER):
        if state.draw:
            assert not state.on_table
            assert all(p.score == TARGET[n] - 1 for p in state.players)
        else:
            assert state.winner is not None and state.players[state.winner].score >= TARGET[n]
    assert snap["status"] == ("awaiting" if ref.questions else str(state.status))


@pytest.mark.parametrize("n", [2, 3, 4])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pyramid_random_play_keeps_the_invariants(n: int, data: st.DataObject) -> None:
    handicap = tuple(data.draw(st.lists(st.sampled_from([0, 0, 5, 10, 20, 35]), max_size=n)))
    options = {
        "call_mode": data.draw(st.sampled_from(["ball_pocket", "clean"])),
        "missing_call": data.draw(st.sampled_from(["ask", "count", "no_count"])),
        "presume_called": data.draw(st.booleans()),
        "presume_contact": data.draw(st.booleans()),
        "penalise_touched_ball": data.draw(st.booleans()),
        "penalty_to": data.draw(st.sampled_from(["next", "each"])),
        "handicap": list(handicap),
    }
    setup = MatchSetup("pyramid", tuple(f"P{i}" for i in range(n)),
                       race_to=data.draw(st.integers(1, 2)),
                       breaker=data.draw(st.integers(0, n - 1)), options=options)
    ref = Referee()
    inputs: list[Any] = [NewMatch(setup)]
    ref.feed(inputs[0])
    named: set[Any] = set()
    for _ in range(data.draw(st.integers(1, 40))):
        if ref.state.status is Status.MATCH_OVER:
            break
        if ref.questions:
            q = ref.questions[0]
            inp: Any = Answered(q.id, valid_answer(data.draw, q, named))
            if q.kind == "identify":
                named |= set(inp.answer)
        else:
            inp = ShotPlayed(data.draw(records(ref)))
            named = set()
            shooter = ref.state.to_shoot
        before = ref.snapshot()
        out = ref.feed(inp)
        inputs.append(inp)
        check_invariants(ref, n, handicap)
        for d in out:
            event(type(d).__name__)
        # PP-8: 5 points, from the shooter to the next player in turn (or to each other)
        moved = [(d.offender, d.to, d.points) for d in out if isinstance(d, PointsMoved)]
        if moved and options["penalty_to"] == "each":
            assert moved == [(shooter, (shooter + k) % n, 5) for k in range(1, n)]
        elif moved:
            assert moved == [(shooter, (shooter + 1) % n, 5)]
        if isinstance(inp, ShotPlayed) and data.draw(st.integers(0, 9)) == 0:
            # undo gives back exactly the state before the shot, then play it again
            ref.feed(Undone(1))
            assert ref.snapshot() == before
            ref.feed(inp)
    # replaying the same inputs gives the same state
    again = Referee()
    for inp in inputs:
        again.feed(inp)
    assert again.snapshot() == ref.snapshot()
    assert again.questions == ref.questions
