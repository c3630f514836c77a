"""Questions carry data; the controller words them in the table's language (issue 15, item 6)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from controller.service.config import ConfigError, validate
from controller.words import texts
from rules import Topic
from tests.tracekit import TraceBuilder

#: One question of every topic, with every parameter its text uses.
SAMPLES: dict[Topic, dict[str, Any]] = {
    Topic.BALL_FELL: {"pocket": "fl"},
    Topic.WHICH_BALLS: {"pocket": "fr"},
    Topic.CUE_BALL: {"pocket": "sl"},
    Topic.CALLED_BALL: {"ball": 3, "pocket": "hl"},
    Topic.WAS_CALLED: {"ball": 3, "pocket": "hl"},
    Topic.ANY_CALLED: {"fell": [[9, "fr"], [4, "sl"]], "clean": True},
    Topic.PLAYED_AS_CALLED: {"ball": 7, "pocket": "sr", "manner": "off the 4"},
    Topic.TWO_CUSHIONS: {},
    Topic.CENTRE_LINE: {},
    Topic.CUE_BALL_TWO_CUSHIONS: {},
    Topic.RAIL_AFTER_CONTACT: {},
    Topic.FOUR_BALLS_TO_CUSHIONS: {},
    Topic.INTERFERENCE: {},
    Topic.FIRST_CONTACT: {"ball": 2},
    Topic.CONTACT: {},
    Topic.PENALTY_BALL: {"to": 1},
    Topic.CUE_BALL_COUNTS: {"to": 0},
    Topic.SHOOT_OR_HAND_BACK: {"reason": "push_out"},
    Topic.ILLEGAL_BREAK: {},
    Topic.BREAKER: {"game": 2},
}


def question(topic: Topic, **extra: Any) -> dict[str, Any]:
    return {"id": "q-1-0", "kind": "confirm", "player": 1, "topic": str(topic),
            "about": SAMPLES[topic], "choices": [True, False], **extra}


def test_every_topic_has_an_english_and_a_russian_text_naming_its_parameters():
    assert set(SAMPLES) == set(Topic)
    for topic in Topic:
        en = texts.prompt(question(topic), ["Ann", "Bob"], "en")
        ru = texts.prompt(question(topic), ["Ann", "Bob"], "ru")
        assert en and ru and en != ru, topic
        orders = {Topic.PENALTY_BALL, Topic.CUE_BALL_COUNTS}  # asked as a request, not a question
        assert en.endswith("?") != (topic in orders) and ru.endswith("?") != (topic in orders)
        assert any("а" <= ch <= "я" for ch in ru.lower()), (topic, ru)
        for value in SAMPLES[topic].values():
            if isinstance(value, str | int) and not isinstance(value, bool) and value not in (0, 1):
                if value in ("push_out",):
                    continue  # a reason is worded, not shown as its code
                assert str(value) in en and str(value) in ru, (topic, value)


def test_player_names_and_reasons_are_worded():
    q = question(Topic.SHOOT_OR_HAND_BACK)
    assert texts.prompt(q, ["Ann", "Bob"], "en") == (
        "after the push-out: Bob, shoot or hand the shot back?")
    assert texts.prompt(q, ["Аня", "Боря"], "ru") == (
        "после пуш-аута: Боря бьёт сам или уступает удар?")  # issue 29: not «бить самому»
    credit = texts.prompt(question(Topic.CUE_BALL_COUNTS), ["Ann", "Bob"], "en")
    assert credit == "the cue ball counts: Bob, take a ball off the table for Ann"


def test_identify_asks_for_as_many_balls_as_fell_and_the_ball_return_has_its_words():
    q = question(Topic.WHICH_BALLS, count=2)
    assert texts.prompt(q, [], "en") == "which 2 balls fell in fr?"
    q = {**question(Topic.WHICH_BALLS), "about": {"pocket": None}}
    assert texts.prompt(q, [], "en") == "which ball fell into the ball return?"
    assert texts.prompt(q, [], "ru") == "какой шар упал в шароприёмник?"


def test_whether_one_of_several_drops_was_the_cue_ball_names_how_many():
    q = question(Topic.CUE_BALL, count=2)
    assert texts.prompt(q, [], "en") == "was one of the 2 balls that fell in sl the cue ball?"
    assert texts.prompt(q, [], "ru") == "был ли среди шаров, упавших в лузу sl (их 2), биток?"


def test_a_topic_without_text_is_shown_by_its_data_not_dropped():
    q = {"topic": "something_new", "about": {"pocket": "fl"}, "player": 0}
    assert texts.prompt(q, ["Ann"], "ru") == "something_new (pocket=fl)?"


def test_the_language_setting_is_en_or_ru():
    assert validate({}).language == "en"
    assert validate({"language": "ru"}).language == "ru"
    with pytest.raises(ConfigError, match="language"):
        validate({"language": "de"})


def _replayed(language: str | None) -> list[Message]:
    header = {"language": language} if language else {}
    trace = TraceBuilder(**header).new_match("siberian-ten").shot(cushions=["f"])
    out: list[Message] = []
    replay(trace.text().splitlines(), out.append, lambda bad: pytest.fail(str(bad)))
    return out


def test_st_14_a_russian_table_asks_in_russian_and_publishes_the_question_as_data():
    out = _replayed("ru")
    (event,) = [m.payload["data"] for m in out
                if m.topic == "event" and m.payload["type"] == "question"]
    assert event["topic"] == "centre_line" and event["kind"] == "confirm"
    assert event["about"] == {} and event["choices"] == [True, False] and event["player"] == 0
    assert event["prompt"] == ("шары коснулись одного борта: пересёк ли шар центральную "
                               "линию стола?")
    state = [m.payload for m in out if m.topic == "state"][-1]
    (listed,) = state["questions"]
    assert listed == {k: v for k, v in event.items()}


def test_st_14_an_english_table_by_default():
    out = _replayed(None)
    state = [m.payload for m in out if m.topic == "state"][-1]
    assert state["questions"][0]["prompt"] == (
        "one cushion was touched: did a ball cross the centre line?")
