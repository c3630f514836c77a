"""The referee fold: questions, unknown facts, re-ruling, undo, matches, bad input."""

from __future__ import annotations

import pytest

from rules import InvalidInput, MatchEnded, MatchSetup, NewMatch, Referee, ShotAmended, Undone
from rules.decisions import (
    BallSpotted,
    BallStaysDown,
    MatchAbandoned,
    Noted,
    QuestionAnswered,
    QuestionAsked,
    RulingCorrected,
    ShooterContinues,
    ShotsUndone,
    TurnPassed,
)
from rules.games.pyramid import PyramidOptions
from rules.games.siberian_ten import SiberianOptions
from rules.games.ten_ball import TenBallOptions
from tests.rules.build import answer, new, play, shot


def broken():  # Ann broke and pocketed the 2; Ann to shoot
    ref = new()
    play(ref, first=1, drops=[(2, "fl")])
    return ref


# ------------------------------------------------------------ unknown identity
def test_one_unidentified_drop_in_the_called_pocket_is_presumed_the_called_ball():
    ref = broken()
    out = play(ref, call=(1, "fr"), first=1, drops=[(None, "fr")])
    assert BallStaysDown(1) in out and out[-1] == ShooterContinues(0)
    assert not ref.questions


def test_tb_13_the_called_pocket_presumption_is_noted_in_the_ruling_with_ball_and_pocket():
    ref = broken()
    out = play(ref, call=(1, "fr"), first=1, drops=[(None, "fr")])
    assert out[0] == Noted("called_presumed", about=(("ball", 1), ("pocket", "fr")))
    assert out[0].to_event() == {"decision": "Noted", "what": "called_presumed", "detail": "",
                                 "about": {"ball": 1, "pocket": "fr"}}


def test_tb_9_declaring_what_fell_in_the_called_pocket_undoes_the_presumption():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(None, "fr")])  # presumed the 1: Ann continues
    out = ref.feed(ShotAmended(shot(call=(1, "fr"), first=1, drops=[(8, "fr")])))  # it was the 8
    assert isinstance(out[0], RulingCorrected)
    assert not [d for d in out if isinstance(d, Noted) and d.what == "called_presumed"]
    assert BallStaysDown(8) in out and 1 in ref.state.on_table and 8 not in ref.state.on_table
    assert [q.topic for q in ref.questions] == ["shoot_or_hand_back"]  # TB-9: Bob chooses


def test_presumption_can_be_switched_off_and_the_drop_is_asked():
    ref = new(presume_called=False)
    play(ref, first=1, drops=[(2, "fl")])
    play(ref, call=(1, "fr"), first=1, drops=[(None, "fr")])
    (q,) = ref.questions
    assert q.kind == "identify" and 1 in q.choices and 2 not in q.choices


def test_other_unidentified_drops_are_asked_before_the_shot_is_ruled():
    ref = broken()
    out = play(ref, call=(1, "fr"), first=1, drops=[(None, "fr"), (None, "sl")])
    assert [type(d) for d in out] == [QuestionAsked]
    assert ref.snapshot()["status"] == "awaiting"
    assert ref.state.on_table == (1, 3, 4, 5, 6, 7, 8, 9, 10)  # nothing ruled yet
    out = answer(ref, 10)
    assert out[0] == QuestionAnswered(out[0].id, (10,))
    assert BallSpotted(10, "foot_spot") in out and out[-1] == ShooterContinues(0)


def test_without_a_cue_detector_the_cue_ball_is_a_possible_answer():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(1, "fr"), (None, "hl")], cue_sensed=False)
    (q,) = ref.questions
    assert "cue" in q.choices
    out = answer(ref, "cue")
    assert out[-1] == TurnPassed(1, "kitchen")


def test_two_drops_in_one_pocket_are_asked_as_one_question_with_two_answers():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(1, "fr"), (None, "sl"), (None, "sl")])
    (q,) = ref.questions
    assert q.count == 2 and ref.snapshot()["questions"][0]["count"] == 2
    with pytest.raises(InvalidInput, match="2 ball"):
        answer(ref, 3)
    with pytest.raises(InvalidInput, match="only once"):
        answer(ref, [3, 3])
    answer(ref, [3, 4])
    assert ref.state.on_table == (5, 6, 7, 8, 9, 10)


def test_a_ball_named_for_one_pocket_cannot_be_named_for_another():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(1, "fr"), (None, "sl"), (None, "hl")])
    first, second = ref.questions
    answer(ref, 5, second.id)
    with pytest.raises(InvalidInput, match="already named"):
        answer(ref, 5, first.id)
    answer(ref, 6, first.id)
    assert not ref.questions and {5, 6}.isdisjoint(ref.state.on_table)


def test_the_last_possible_ball_needs_no_question():
    ref = new()
    play(ref, first=1, drops=[(b, "fl") for b in range(1, 10)])
    play(ref, call=(10, "fr"), first=10, drops=[(None, "sr")])  # only the 10 is left
    assert [q.kind for q in ref.questions] == ["option"]  # TB-9, no identify question
    assert ref.state.on_table == (10,) and ref.state.winner is None  # wrong pocket: spotted


def test_a_misread_identity_is_asked_not_believed():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(2, "sl"), (1, "fr")])  # the 2 is already down
    (q,) = ref.questions
    assert q.kind == "identify" and 2 not in q.choices


# ------------------------------------------------------------ answering
def test_answer_to_no_question_is_refused_and_changes_nothing():
    ref = broken()
    before = ref.snapshot()
    with pytest.raises(InvalidInput, match="no open question"):
        answer(ref, "shoot")
    assert ref.snapshot() == before


def test_wrong_answer_is_refused_with_the_choices():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(4, "fr")])
    with pytest.raises(InvalidInput, match="shoot"):
        answer(ref, "maybe")
    with pytest.raises(InvalidInput, match="not an open question"):
        answer(ref, "shoot", "q-99-0")
    assert len(ref.questions) == 1


def test_a_list_or_mapping_answer_to_a_yes_no_question_is_refused_not_a_crash():
    # found by benchmarks.leaks: the service's table task died of a TypeError (unhashable)
    from dataclasses import replace

    from rules import Pocket

    ref = broken()
    play(ref, replace(shot(call=(1, "fl"), first=1, cushions=("h",)),
                      blind_pockets=(Pocket.FOOT_LEFT,)))
    (q,) = ref.questions
    assert q.kind == "confirm"
    before = ref.snapshot()
    for bad in ([1], [], {"yes": 1}, None, 1.5):
        with pytest.raises(InvalidInput, match="true or false"):
            answer(ref, bad)
    assert ref.snapshot() == before and len(ref.questions) == 1


def test_no_shot_while_a_question_is_open():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(4, "fr")])
    with pytest.raises(InvalidInput, match="answer it first"):
        play(ref, call=(1, "fr"), first=1)
    with pytest.raises(InvalidInput, match="answer it first"):
        ref.check_call(())


# ------------------------------------------------------------ re-ruling
def test_a_late_drop_re_rules_the_shot():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, cushions=("f",))
    assert ref.state.to_shoot == 1
    out = ref.feed(ShotAmended(shot(call=(1, "fr"), first=1, drops=[(1, "fr")])))
    assert isinstance(out[0], RulingCorrected) and out[-1] == ShooterContinues(0)
    assert ref.state.to_shoot == 0 and 1 not in ref.state.on_table


def test_amending_keeps_answers_that_still_fit():
    ref = broken()
    play(ref, call=(1, "fr"), first=1, drops=[(4, "fr")])
    answer(ref, "shoot")
    ref.feed(ShotAmended(shot(call=(1, "fr"), first=1, drops=[(4, "fr")], fouls=())))
    assert not ref.questions and ref.state.to_shoot == 1


def test_amend_with_no_shot_is_refused():
    with pytest.raises(InvalidInput):
        new().feed(ShotAmended(shot()))


# ------------------------------------------------------------ undo
def test_undo_restores_exactly_the_earlier_state():
    ref = broken()
    snapshots = [ref.snapshot()]
    for kw in [dict(call=(1, "fr"), first=1, drops=[(1, "fr")]),
               dict(call=(3, "fl"), first=3, drops=[("cue", "hl")]),
               dict(call=(3, "fl"), first=3, drops=[(3, "fl")])]:
        play(ref, **kw)
        snapshots.append(ref.snapshot())
    out = ref.feed(Undone(2))
    assert out == [ShotsUndone(2, 2)]
    assert ref.snapshot() == snapshots[1]
    ref.feed(Undone(1))
    assert ref.snapshot() == snapshots[0]


def test_undo_takes_back_a_shot_with_an_open_question():
    ref = broken()
    before = ref.snapshot()
    play(ref, call=(1, "fr"), first=1, drops=[(4, "fr")])
    ref.feed(Undone(1))
    assert ref.snapshot() == before


def test_undo_past_the_start_is_refused():
    ref = broken()
    with pytest.raises(InvalidInput, match="only 1"):
        ref.feed(Undone(2))
    with pytest.raises(InvalidInput):
        ref.feed(Undone(0))


def test_undo_across_a_game_boundary():
    ref = new(race_to=2)
    before = ref.snapshot()
    for _ in range(3):  # Ann, Bob, Ann win on their breaks
        play(ref, first=1, drops=[(10, "fl")])
    assert ref.snapshot()["status"] == "match_over" and ref.state.winner == 0
    ref.feed(Undone(3))
    assert ref.snapshot() == before


# ------------------------------------------------------------ matches
def test_new_match_validation_names_what_is_wrong():
    ref = Referee()
    cases = [
        (MatchSetup("snooker", ("A", "B")), "unknown game"),
        (MatchSetup("ten-ball", ("A", "B"), race_to=0), "race_to"),
        (MatchSetup("ten-ball", ("A", "B"), breaker=2), "breaker"),
        (MatchSetup("ten-ball", ("A", " ")), "name"),
        (MatchSetup("ten-ball", ("A", "B"), options={"bogus": 1}), "unknown option 'bogus'"),
        (MatchSetup("ten-ball", ("A", "B"), options={"ten_on_break": "x"}), "one of"),
        (MatchSetup("ten-ball", ("A", "B"), options={"three_fouls": "yes"}), "must be bool"),
    ]
    for setup, reason in cases:
        with pytest.raises(InvalidInput, match=reason):
            ref.feed(NewMatch(setup))
    assert ref.snapshot()["status"] == "idle"


def test_end_match_returns_to_idle():
    ref = broken()
    assert ref.feed(MatchEnded()) == [MatchAbandoned()]
    assert ref.snapshot()["status"] == "idle" and ref.snapshot()["players"] == []
    with pytest.raises(InvalidInput, match="no match"):
        play(ref, first=1)


def test_snapshot_has_exactly_the_fields_of_the_state_topic():
    # interfaces §3, less v / seq / ts / match_id which the controller adds
    expected = {"game", "options", "race_to", "game_no", "players", "status", "to_shoot",
                "ball_in_hand", "on_table", "unidentified", "balls_left", "shot", "questions",
                "winner", "draw", "shootout"}
    assert set(new().snapshot()) == expected
    assert set(Referee().snapshot()) == expected
    assert set(new().snapshot()["players"][0]) == {"name", "score", "games", "consecutive_fouls"}


def test_more_drops_than_balls_that_could_fall_names_only_those_balls():
    ref = new()
    play(ref, first=1, drops=[(b, "fl") for b in range(1, 9)])  # 9 and 10 are left
    play(ref, call=(9, "fr"), first=9, drops=[(None, "sl")] * 3)  # a beam saw three
    # only the 9 and the 10 could have fallen: nobody is asked, the third block was noise
    assert [q.kind for q in ref.questions] == ["option"]  # TB-9: not in the called pocket
    assert ref.state.on_table == (10,)  # the 10 fell uncalled: spotted


def test_a_blind_pocket_is_asked_about_never_guessed():
    from dataclasses import replace

    from rules import Pocket

    ref = broken()
    play(ref, replace(shot(call=(1, "fl"), first=1, cushions=("h",)),
                      blind_pockets=(Pocket.FOOT_LEFT,)))
    (q,) = ref.questions
    assert (q.kind, q.topic, q.params) == ("confirm", "ball_fell", {"pocket": "fl"})
    answer(ref, True)  # a ball did fall there: the presumption names the called ball
    assert 1 not in ref.state.on_table and ref.state.to_shoot == 0


def test_a_blind_pocket_answered_no_means_nothing_fell_there():
    from dataclasses import replace

    from rules import Pocket

    ref = broken()
    play(ref, replace(shot(call=(1, "fl"), first=1, cushions=("h",)),
                      blind_pockets=(Pocket.FOOT_LEFT,)))
    answer(ref, False)
    assert 1 in ref.state.on_table and ref.state.to_shoot == 1



@pytest.mark.parametrize(("game", "cls"), [("ten-ball", TenBallOptions),
                                           ("siberian-ten", SiberianOptions),
                                           ("pyramid", PyramidOptions)])
def test_the_match_state_holds_each_games_own_typed_options(game, cls):
    state = new(game).state
    assert type(state.options) is cls and state.options_as(cls) is state.options
    other = TenBallOptions if cls is not TenBallOptions else PyramidOptions
    with pytest.raises(TypeError, match=f"not {other.__name__}"):
        state.options_as(other)
    assert Referee().snapshot()["options"] == {}  # no match: no options shown
