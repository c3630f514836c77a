"""An answer belongs to its question's identity (kind, topic, what it is about), never to its
position among the questions of a shot (issue 15, item 1).

The three examples of the issue, then a property test: random shots, answers and amendments;
no ruling ever takes an answer that was given to a different question.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import (
    GAMES,
    Answered,
    InvalidInput,
    MatchSetup,
    NewMatch,
    Referee,
    ShotAmended,
    ShotPlayed,
)
from rules.decisions import BallCredited, QuestionAsked
from rules.game import normalise_answer
from rules.state import QuestionKind, Status, Topic
from tests.rules.build import answer, new, play, shot
from tests.rules.test_properties import records, valid_answer

ANN, BOB = 0, 1


def sib_after_break(**options: object) -> Referee:
    ref = new("siberian-ten", **options)
    play(ref, first=1, cushions=("f", "lh"))  # a legal break with nothing down: Bob shoots
    assert ref.state.to_shoot == BOB
    return ref


def test_st_14_a_centre_line_answer_is_not_taken_for_whether_a_late_drop_was_called():
    ref = sib_after_break()
    play(ref, first=3, cushions=("f",))  # no call, one cushion, nothing down
    (q,) = ref.questions
    assert (q.kind, q.topic) == (QuestionKind.CONFIRM, Topic.CENTRE_LINE)
    answer(ref, True)  # a ball crossed the centre line: legal, Ann to shoot
    assert ref.state.to_shoot == ANN
    out = ref.feed(ShotAmended(shot(first=3, cushions=("f",), drops=[(3, "fl")])))  # late drop
    assert not [d for d in out if isinstance(d, BallCredited)]
    (q,) = ref.questions
    assert (q.kind, q.topic, q.params) == (QuestionKind.CONFIRM, Topic.WAS_CALLED,
                                           {"ball": 3, "pocket": "fl"})
    answer(ref, False)  # not called: the 3 counts for Ann (ST-8), Ann shoots
    assert [p.balls for p in ref.state.players] == [(3,), ()]
    assert ref.state.to_shoot == ANN


def test_st_16_a_penalty_ball_is_not_taken_for_the_two_cushion_answer():
    ref = sib_after_break(cushions_unknown="ask")
    play(ref, first=3, fouls=("miss",))  # a declared miss: Ann takes a penalty ball
    q = ref.questions[0]
    assert (q.kind, q.topic) == (QuestionKind.PICK_BALL, Topic.PENALTY_BALL)
    answer(ref, 1)
    ref.feed(ShotAmended(shot(first=3)))  # the referee corrects it: contact, no miss
    (q,) = ref.questions
    assert (q.kind, q.topic) == (QuestionKind.CONFIRM, Topic.TWO_CUSHIONS)
    assert [p.score for p in ref.state.players] == [0, 0]
    answer(ref, False)  # ST-14: not two cushions, a foul after all
    # the penalty-ball question is asked again, and Ann's answer to it still stands
    assert [p.balls for p in ref.state.players] == [(1,), ()]
    assert [q.topic for q in ref.questions] == [Topic.SHOOT_OR_HAND_BACK]


def test_pp_6_a_contact_answer_is_not_taken_for_whether_a_late_drop_was_called():
    ref = new("pyramid", presume_contact=False)
    play(ref, cushions=("f",))
    (q,) = ref.questions
    assert (q.kind, q.topic) == (QuestionKind.CONFIRM, Topic.CONTACT)
    answer(ref, True)
    out = ref.feed(ShotAmended(shot(cushions=("f",), drops=[(9, "fr")])))  # the 9 drops late
    assert not [d for d in out if isinstance(d, BallCredited)]
    (q,) = ref.questions
    assert (q.kind, q.topic) == (QuestionKind.CONFIRM, Topic.ANY_CALLED)
    assert [p.score for p in ref.state.players] == [0, 0]


def test_a_question_keeps_its_id_across_a_re_ruling_and_a_new_question_gets_a_new_one():
    ref = sib_after_break()
    play(ref, first=3, cushions=("f",))
    (centre,) = ref.questions
    ref.feed(ShotAmended(shot(first=3, cushions=("f",), drops=[(3, "fl")])))
    (called,) = ref.questions
    assert called.id != centre.id
    try:  # the old handle no longer names an open question: refused, nothing changed
        ref.feed(Answered(centre.id, True))
        raise AssertionError("an answer to a question no longer open was taken")
    except InvalidInput:
        pass
    ref.feed(ShotAmended(shot(first=3, cushions=("f",))))  # the drop was a misreading
    assert ref.questions[0].id == centre.id


def test_an_answer_is_kept_for_the_same_question_after_a_re_ruling():
    ref = sib_after_break()
    play(ref, first=3, cushions=("f",))
    answer(ref, True)
    ref.feed(ShotAmended(shot(first=3, cushions=("f",), fouls=())))
    assert not ref.questions and ref.state.to_shoot == ANN


# ------------------------------------------------------------------ the property
def _consumed(ref: Referee) -> dict[Any, Any]:
    """Returns the answers the last ruling took, by question identity."""
    frame = ref._frames[-1]
    return dict(frame.consumed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(sorted(GAMES)))
def test_no_ruling_takes_an_answer_given_to_a_different_question(data: st.DataObject,
                                                                 game: str) -> None:
    ref = Referee()
    players = ("Ann", "Bob") if game != "pyramid" else ("Ann", "Bob", "Cat")
    options: dict[str, object] = {"presume_called": data.draw(st.booleans())}
    if game == "pyramid":
        options["presume_contact"] = data.draw(st.booleans())
    if game == "ten-ball":
        options["presume_legal_contact"] = data.draw(st.booleans())
    ref.feed(NewMatch(MatchSetup(game, players, race_to=2, options=options)))
    given_to: dict[Any, Any] = {}  # question identity → the answer given to it, on this shot
    shot_no = ref.state.shot
    for _ in range(data.draw(st.integers(1, 30))):
        if ref.state.status is Status.MATCH_OVER:
            break
        move = data.draw(st.integers(0, 3))
        if ref.questions and move:
            q = ref.questions[0]
            value = valid_answer(data.draw, q)
            try:
                ref.feed(Answered(q.id, value))
            except InvalidInput:
                continue  # a ball already named for another drop
            given_to[q.key] = normalise_answer(q, value)
        elif ref.shots and ref.state.shot == shot_no and move == 0:
            ref.feed(ShotAmended(data.draw(records(_before_last(ref)))))
        elif not ref.questions:
            ref.feed(ShotPlayed(data.draw(records(ref))))
            given_to, shot_no = {}, ref.state.shot
        else:
            continue
        for key, value in _consumed(ref).items():
            assert key in given_to and given_to[key] == value, (key, value, given_to)
        asked_ids = [q.id for q in ref.questions]
        assert len(set(asked_ids)) == len(asked_ids)


def _before_last(ref: Referee) -> Referee:
    """Returns a referee standing before the last shot (for drawing a record of that shot)."""
    other = Referee()
    other._start, other._frames = ref._start, list(ref._frames[:-1])
    return other


def test_question_asked_carries_data_not_prose():
    ref = sib_after_break()
    out = play(ref, first=3, cushions=("f",))
    (asked,) = [d for d in out if isinstance(d, QuestionAsked)]
    event = asked.to_event()
    assert event["topic"] == "centre_line" and event["about"] == {} and "prompt" not in event
