"""Evidence the table already has (issue 27): a fitted click sensor in order that heard no
ball–ball click is evidence of a miss, noted; a declared first contact stands over it."""

from __future__ import annotations

import dataclasses

import pytest

from rules import UNKNOWN, Foul
from rules.decisions import FoulCalled, Noted
from tests.rules.build import new, play, shot


def unheard(**kw: object):
    return dataclasses.replace(shot(**kw), contact_unheard=True)


def fouls_of(decisions):
    return [d.fouls for d in decisions if isinstance(d, FoulCalled)]


@pytest.mark.parametrize(("game", "call"), [
    ("siberian-ten", (3, "fl")), ("pyramid", (7, "fl")), ("ten-ball", (1, "fl"))])
def test_a_click_sensor_that_heard_nothing_is_evidence_of_a_miss(game, call):
    ref = new(game)
    if game != "pyramid":  # the break, the breaker on (pyramid's first shot is any shot)
        play(ref, first=1, drops=[(2, "fl")], cushions=("f", "lf", "rf", "h"))
    out = play(ref, unheard(call=call, first=UNKNOWN, cushions=("f", "lh")))
    assert Noted("miss_unheard") in out and Foul.MISS in fouls_of(out)[0]
    assert Noted("contact_presumed") not in out


def test_a_declared_first_contact_stands_over_the_silence():
    ref = new("siberian-ten")
    play(ref, first=1, drops=[(2, "fl")])
    out = play(ref, unheard(call=(3, "fl"), first=3, cushions=("f", "lh")))
    assert not fouls_of(out) and Noted("miss_unheard") not in out


def test_a_ball_that_fell_shows_contact_whatever_the_click_sensor_heard():
    ref = new("siberian-ten")
    play(ref, first=1, drops=[(2, "fl")])
    out = play(ref, unheard(call=(3, "fl"), drops=[(3, "fl")]))
    assert not fouls_of(out) and Noted("miss_unheard") not in out
