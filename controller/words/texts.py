"""The words of the referee core's questions, in the table's language (``language`` setting).

The core asks in data (``rules.state.Question``: kind, topic, what it is about); here a
question, as listed in the state snapshot, becomes its ``prompt``:

    prompt({"kind": "confirm", "topic": "centre_line", "player": 1, "about": {}, ...},
           ["Ann", "Bob"], "ru")
    -> "шары коснулись одного борта: пересёк ли шар центральную линию стола?"

The Russian words are the games' own, from the original rules (борт, биток, луза, заказ,
разбой, дом, пуш-аут). Pockets are named by their ids (``fr``), as on the table drawing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from rules import Topic

Language = Literal["en", "ru"]
LANGUAGES: Final = ("en", "ru")

#: Per language: a template per topic (``<topic>.many``: for more than one ball), then the
#: words the templates are made of. Fields: the question's ``about``, ``player`` and ``to``
#: (names), ``count``, ``where`` (the pocket or the ball return), ``fell``, ``clean``, ``reason``.
WORDS: Final[dict[str, dict[str, str]]] = {
    "en": {
        Topic.BALL_FELL: "the {pocket} pocket's sensor is out of order: did a ball fall in {pocket}?",
        Topic.WHICH_BALLS: "which ball fell {where}?",
        f"{Topic.WHICH_BALLS}.many": "which {count} balls fell {where}?",
        Topic.CUE_BALL: "was the ball that fell in {pocket} the cue ball?",
        f"{Topic.CUE_BALL}.many": "was one of the {count} balls that fell in {pocket} the cue ball?",
        Topic.CALLED_BALL: "was the ball that fell in {pocket} the called {ball}?",
        Topic.WAS_CALLED: "no call was recorded: was the {ball} in {pocket} the called shot?",
        Topic.ANY_CALLED: "no call was recorded: was a ball that fell ({fell}) called in that "
                          "pocket{clean}?",
        Topic.PLAYED_AS_CALLED: "the {ball} fell in {pocket}: was it played as called ({manner})?",
        Topic.TWO_CUSHIONS: "did the balls touch two cushions after contact (a ball crossing the "
                            "centre line counts as one)?",
        Topic.CENTRE_LINE: "one cushion was touched: did a ball cross the centre line?",
        Topic.CUE_BALL_TWO_CUSHIONS: "did the cue ball itself touch two cushions after the "
                                     "contact?",
        Topic.RAIL_AFTER_CONTACT: "did a ball reach a cushion after the contact?",
        Topic.FOUR_BALLS_TO_CUSHIONS: "on the break, did at least four object balls reach a "
                                      "cushion?",
        Topic.INTERFERENCE: "the shot was interfered with: {player}, restore the position "
                            "(restore) or play on as the balls lie (as_lies)?",
        Topic.FIRST_CONTACT: "did the cue ball hit the {ball} first?",
        Topic.CONTACT: "did the cue ball touch a ball?",
        Topic.PENALTY_BALL: "foul: {player}, take a ball off the table",
        Topic.CUE_BALL_COUNTS: "the cue ball counts: {player}, take a ball off the table for {to}",
        Topic.SHOOT_OR_HAND_BACK: "{reason}: {player}, shoot or hand the shot back?",
        Topic.ILLEGAL_BREAK: "illegal break: {player}, have it broken again (rebreak), break "
                             "yourself (break), or accept and shoot (accept)?",
        Topic.BREAKER: "game {game}, the break drawn by lot: who breaks?",
        "where.pocket": "in {pocket}",
        "where.return": "into the ball return",
        "fell": "the {ball} in {pocket}",
        "clean": ", with its manner, and played as called",
        "reason.foul": "foul",
        "reason.push_out": "after the push-out",
        "reason.safety": "a ball fell on the safety",
        "reason.missed_call": "the called ball missed its pocket",
    },
    "ru": {
        Topic.BALL_FELL: "датчик лузы {pocket} не работает: упал ли шар в лузу {pocket}?",
        Topic.WHICH_BALLS: "какой шар упал {where}?",
        f"{Topic.WHICH_BALLS}.many": "какие шары (их {count}) упали {where}?",
        Topic.CUE_BALL: "шар, упавший в лузу {pocket}, — биток?",
        f"{Topic.CUE_BALL}.many": "был ли среди шаров, упавших в лузу {pocket} (их {count}), биток?",
        Topic.CALLED_BALL: "шар, упавший в лузу {pocket}, — заказанный шар {ball}?",
        Topic.WAS_CALLED: "заказ не записан: был ли заказан шар {ball} в лузу {pocket}?",
        Topic.ANY_CALLED: "заказ не записан: был ли один из забитых шаров ({fell}) заказан в эту "
                          "лузу{clean}?",
        Topic.PLAYED_AS_CALLED: "шар {ball} упал в лузу {pocket}: сыгран ли он как заказан "
                                "({manner})?",
        Topic.TWO_CUSHIONS: "коснулись ли шары после соударения двух бортов (пересечение "
                            "центральной линии равнозначно касанию борта)?",
        Topic.CENTRE_LINE: "шары коснулись одного борта: пересёк ли шар центральную линию стола?",
        Topic.CUE_BALL_TWO_CUSHIONS: "сделал ли сам биток после удара по прицельному шару два "
                                     "борта?",
        Topic.RAIL_AFTER_CONTACT: "довёл ли какой-либо шар до борта после соударения шаров?",
        Topic.FOUR_BALLS_TO_CUSHIONS: "при разбое: были ли доведены до бортов по меньшей мере "
                                      "четыре прицельных шара?",
        Topic.INTERFERENCE: "удару помешали: {player}, восстановить положение шаров (restore) "
                            "или играть из сложившейся позиции (as_lies)?",
        Topic.FIRST_CONTACT: "попал ли биток первым в шар {ball}?",
        Topic.CONTACT: "коснулся ли биток какого-либо шара?",
        Topic.PENALTY_BALL: "штраф: {player}, снимите с поля один шар по желанию",
        Topic.CUE_BALL_COUNTS: "биток засчитан: {player}, снимите с поля один шар по желанию в "
                               "зачёт {to}",
        Topic.SHOOT_OR_HAND_BACK: "{reason}: {player}, бить самому или уступить удар?",
        Topic.ILLEGAL_BREAK: "разбой с нарушением: {player}, потребовать повторить разбой "
                             "(rebreak), самому произвести разбой (break) или принять разбой и "
                             "продолжить игру (accept)?",
        Topic.BREAKER: "партия {game}, разбой по жребию: кто разбивает?",
        "where.pocket": "в лузу {pocket}",
        "where.return": "в шароприёмник",
        "fell": "{ball} в {pocket}",
        "clean": " по чистому назначению и сыгран как заказан",
        "reason.foul": "нарушение правил",
        "reason.push_out": "после пуш-аута",
        "reason.safety": "при защитном ударе упал шар",
        "reason.missed_call": "заказной шар не забит в заказанную лузу",
    },
}


class _Fields(dict[str, Any]):
    """Template fields; a parameter the question lacks is shown as ``?``."""

    def __missing__(self, key: str) -> str:
        return "?"


def prompt(question: Mapping[str, Any], players: Sequence[str], language: str = "en") -> str:
    """Returns the question (as listed in the snapshot) worded in ``language`` (English for a
    language without words); a topic with no words yet is shown by its data, never dropped."""
    words = WORDS.get(language, WORDS["en"])
    topic = str(question.get("topic"))
    about = dict(question.get("about") or {})
    if topic not in words:
        shown = ", ".join(f"{k}={v}" for k, v in about.items())
        return f"{topic}{' (' + shown + ')' if shown else ''}?"

    def name(index: Any) -> str:
        ok = isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(players)
        return players[index] if ok else str(index)

    count = int(question.get("count", 1))
    fields = _Fields({k: v for k, v in about.items() if v is not None})
    pocket = about.get("pocket")
    fields.update(
        player=name(question.get("player")),
        to=name(about.get("to")),
        count=count,
        where=words["where.pocket"].format(pocket=pocket) if pocket else words["where.return"],
        fell=", ".join(words["fell"].format(ball=b, pocket=p) for b, p in about.get("fell", ())),
        clean=words["clean"] if about.get("clean") else "",
        reason=words.get(f"reason.{about.get('reason')}", str(about.get("reason"))),
    )
    many = f"{topic}.many"
    return words[many if count != 1 and many in words else topic].format_map(fields)


def with_prompts(snapshot: dict[str, Any], language: str) -> dict[str, Any]:
    """Returns the state snapshot with each open question's ``prompt`` in ``language``."""
    questions = snapshot.get("questions") or []
    if not questions:
        return snapshot
    players = [p["name"] for p in snapshot.get("players", ())]
    return {**snapshot, "questions": [{**q, "prompt": prompt(q, players, language)}
                                      for q in questions]}
