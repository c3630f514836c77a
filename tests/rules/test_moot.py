"""Ask only what can change the ruling (issue 27, ``rules.moot``): a question whose every
answer rules the shot the same is not asked; the ruling notes it (``not_asked``)."""

from __future__ import annotations

import dataclasses

from rules import OBJECT, Pocket
from rules.decisions import BallSpotted, GameWon, Noted, Spot, TurnPassed
from rules.facts import Foul
from tests.rules.build import answer, new, play, shot

ANN, BOB = 0, 1


def not_asked(decisions):
    """Returns the questions not asked: (topic, what about), the answer taken left out."""
    return [(d.detail, {k: v for k, v in d.about if k != "answer"}) for d in decisions
            if isinstance(d, Noted) and d.what == "not_asked"]


def test_pyramid_which_ball_fell_is_not_asked_when_it_is_spotted_whatever_it_is():
    ref = new("pyramid", presume_called=False)
    # the 7 called in fl; nothing fell there; a ball of no known number fell in sr
    out = play(ref, call=(7, "fl"), first=7, drops=[(None, "sr")])
    assert not ref.questions
    assert not_asked(out) == [("which_balls", {"pocket": "sr"})]
    assert BallSpotted(OBJECT, Spot.FOOT_SPOT) in out and out[-1] == TurnPassed(BOB)
    assert ref.state.on_table == tuple(range(1, 16))


def test_pyramid_which_ball_fell_is_asked_when_the_shot_scores():
    ref = new("pyramid", presume_called=False)
    play(ref, call=(7, "fl"), first=7, drops=[(None, "fl")])
    (q,) = ref.questions  # the points hang on the number
    assert (q.kind, q.topic) == ("identify", "which_balls")


def test_a_broken_beam_is_not_asked_about_when_the_shot_is_replayed_whatever_fell():
    ref = new("siberian-ten", interference="replay")
    play(ref, first=1, cushions=("f", "lh"))  # a legal break, nothing down: Bob
    record = dataclasses.replace(shot(call=(3, "fl"), first=3, special="interference"),
                                 blind_pockets=(Pocket("sr"),))
    out = play(ref, record)
    assert not ref.questions and not_asked(out) == [("ball_fell", {"pocket": "sr"})]


def test_a_broken_beam_is_asked_about_when_a_ball_there_would_count():
    ref = new("siberian-ten")
    play(ref, first=1, cushions=("f", "lh"))
    record = dataclasses.replace(shot(call=(3, "sr"), first=3, cushions=("f", "lh")),
                                 blind_pockets=(Pocket("sr"),))
    play(ref, record)
    (q,) = ref.questions
    assert (q.kind, q.topic, q.params) == ("confirm", "ball_fell", {"pocket": "sr"})
    out = answer(ref, True)  # the called pocket: a drop there is presumed the 3 (noted)
    assert Noted("called_presumed", about=(("ball", 3), ("pocket", "sr"))) in out


def test_ten_ball_which_ball_came_first_is_not_asked_after_a_declared_wrong_ball():
    ref = new("ten-ball", presume_legal_contact=False)
    play(ref, first=1, drops=[(2, "fl")], cushions=("f", "lf", "rf", "h"))  # Ann continues
    out = play(ref, call=(1, "fl"), fouls=("wrong_ball_first",))
    assert not ref.questions and not_asked(out) == [("first_contact", {"ball": 1})]
    assert [d.fouls for d in out if hasattr(d, "fouls")] == [(Foul.WRONG_BALL_FIRST,)]


def test_the_penalty_ball_is_asked_for_while_which_one_can_matter():
    ref = new("siberian-ten")
    play(ref, first=1, drops=[(b, "fl") for b in range(1, 6)])  # Ann 5, continues
    out = play(ref, call=(6, "fl"), first=None)  # Ann misses: Bob takes any ball, 1:5
    assert ref.questions  # Bob's ball does not end the game: which one is asked
    answer(ref, 6)
    answer(ref, "hand_back")  # Ann shoots again
    out = play(ref, call=(7, "fl"), first=None)  # Ann misses again: Bob 2, no end
    assert ref.questions
    assert not any(isinstance(d, GameWon) for d in out)


# Issue 41, item 13: whether a question with one outcome but for a ball set out again is a
# question. The pyramid's seed lists the spotting among its penalties («При игре в пирамиду
# предусмотрены штрафы: а) 5 очков … б) выставление шара, положенного в лузу, на стол»; the
# called ball that fell on a scratch «не засчитывается и выставляется на третью точку стола»):
# a ball set out again is a ruling, so «did a ball fall?» is asked where only that hangs on it.
def test_pp_8_did_a_ball_fall_is_asked_when_only_its_spotting_hangs_on_it():
    ref = new("pyramid")
    record = dataclasses.replace(shot(call=(7, "sr"), first=7, drops=[("cue", "hl")]),
                                 blind_pockets=(Pocket("sr"),))
    play(ref, record)  # a scratch: 5 points to Bob whatever fell in the blind pocket
    (q,) = ref.questions
    assert (q.kind, q.topic, q.params) == ("confirm", "ball_fell", {"pocket": "sr"})
    out = answer(ref, True)
    assert BallSpotted(7, Spot.FOOT_SPOT) in out  # the only difference an answer makes


def test_st_14_the_centre_line_is_not_asked_when_the_opponents_durak_ends_the_game_either_way():
    ref = new("siberian-ten")
    play(ref, first=1, drops=[(b, "fl") for b in range(1, 6)])  # Ann 5, continues
    play(ref, call=(6, "fl"), first=6, drops=[(6, "fr"), (7, "fr"), (8, "fr")],
         cushions=("f", "lh"))  # the called 6 in another pocket: all three for Bob (ST-8)
    assert [p.score for p in ref.state.players] == [5, 3] and ref.state.to_shoot == BOB
    # Bob's «дурак» (the 10, uncalled) is Ann's sixth ball whether or not the one cushion
    # and the centre line made the two-cushion rule: a foul or not, Ann wins the game
    out = play(ref, call=(9, "fl"), first=9, drops=[(10, "sr")], cushions=("f",))
    assert not ref.questions and not_asked(out) == [("centre_line", {})]
    assert GameWon(ANN, 1, "six_balls") in out
