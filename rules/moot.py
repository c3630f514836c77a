"""Ask only what can change the ruling.

Before a shot's question is put to a person, the shot is ruled under each of its possible
answers (the fold is pure and cheap), following the questions each answer leads to. When
every answer leads to the same outcomes, the question is moot: nobody is asked, and the
ruling says so (``Noted("not_asked")``, with the question's topic and what it is about).
A moot question takes its first answer (the note names it: any other rules the same), except
"which ball fell?" where the game rules an object ball of no known number (``OBJECT``) as
every number: then the ruling names no number nobody gave.

An outcome is what a club sees of a ruling: the scores, games and fouls in a row, who shoots
and with the ball in hand where, the game's or the match's end (winner, draw), and, while the
game goes on, the fouls called, the balls set out again and where (spotting a ball is a
ruling: the pyramid's seed lists «выставление шара, положенного в лузу, на стол» among its
penalties), the balls on the table and the game's own state. Once the game is over, a foul
called or a ball spotted on its last shot changes nothing the scores do not already say (the
next game is racked anew): «did the cushions count?» is not asked when the opponent's
«дурак» ends the game either way. Which ball a player was credited is not in it where nothing
else differs (a penalty ball that ends the game). A search that would take more than
``MAX_TRIALS`` rulings, or a question with more than ``MAX_CHOICES`` possible answers, asks.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from rules.decisions import BallSpotted, Decision, FoulCalled
from rules.facts import OBJECT
from rules.state import MatchState, Question, QuestionKey, QuestionKind, Status

#: Rulings one question's search may try before it gives up and asks, each a pure ruling of
#: one shot: enough for a question whose nine answers each open another pocket's question
#: (a Ten-ball break that won the game with two balls of no known number down needs 61–82).
MAX_TRIALS = 100
#: A question with more possible answers than this is asked.
MAX_CHOICES = 24

Ruled = tuple[MatchState, list[Decision], tuple[Question, ...]]
#: Rules the shot with these answers given: its state after, decisions and open questions.
Trial = Callable[[Mapping[QuestionKey, Any]], Ruled]


class Trials:
    """Rules a shot under given answers, each set of answers once (``trial`` is pure)."""

    def __init__(self, trial: Trial) -> None:
        self._trial = trial
        self._seen: dict[frozenset[tuple[QuestionKey, Any]], Ruled] = {}
        self.left = 0

    def rule(self, given: Mapping[QuestionKey, Any]) -> Ruled | None:
        """Returns the ruling with ``given``; None when this search's budget is spent."""
        key = frozenset(given.items())
        if key in self._seen:
            return self._seen[key]
        self.left -= 1
        if self.left < 0:
            return None
        ruled = self._seen[key] = self._trial(given)
        return ruled


def answers_of(question: Question) -> list[Any] | None:
    """Returns every answer ``question`` can take, in its canonical form (an ``identify``
    names its balls in ascending order); None when there are more than ``MAX_CHOICES``."""
    if question.kind is QuestionKind.IDENTIFY:
        found: list[Any] = list(itertools.islice(
            itertools.combinations(question.choices, question.count), MAX_CHOICES + 1))
    else:
        found = list(question.choices)
    return found if len(found) <= MAX_CHOICES else None


def outcome(state: MatchState, decisions: list[Decision]) -> str:
    """Returns what a club sees of a ruling, as a comparable key."""
    players = tuple((p.score, p.games, p.consecutive_fouls) for p in state.players)
    seen: tuple[Any, ...] = (state.status, state.winner, state.draw, state.game_no, players,
                             state.to_shoot, state.ball_in_hand)
    if state.status in (Status.GAME_OVER, Status.MATCH_OVER):
        return repr(seen)  # what the fouls and spots left is in the scores; the table is racked anew
    fouls = tuple((d.player, d.fouls) for d in decisions if isinstance(d, FoulCalled))
    spots = tuple(sorted(str(d.spot) for d in decisions if isinstance(d, BallSpotted)))
    return repr((*seen, fouls, spots, state.on_table, state.unidentified, state.extra))


def presumption(trials: Trials, question: Question,
                given: Mapping[QuestionKey, Any]) -> tuple[bool, Any]:
    """Returns (True, the answer to take) when every answer to ``question`` (the other
    answers ``given``) leads to the same outcomes, following the questions each answer
    opens; (False, None) when one differs, or the search is too large to tell."""
    choices = answers_of(question)
    if not choices:
        return False, None
    trials.left = MAX_TRIALS
    first: frozenset[str] | None = None
    for choice in choices:
        reached = _reachable(trials, {**given, question.key: choice})
        if reached is None or first is not None and reached != first:
            return False, None
        first = reached
    if question.kind is QuestionKind.IDENTIFY:
        unnamed = (OBJECT,) * question.count
        if _reachable(trials, {**given, question.key: unnamed}) == first:
            return True, unnamed
    return True, choices[0]  # the note names it: any other rules the same


def _reachable(trials: Trials, given: Mapping[QuestionKey, Any]) -> frozenset[str] | None:
    """Returns the outcomes the shot can still have with ``given``, answering what it asks
    every way it can be answered; None when the budget runs out."""
    ruled = trials.rule(given)
    if ruled is None:
        return None
    state, decisions, open_q = ruled
    if not open_q:
        return frozenset({outcome(state, decisions)})
    question = open_q[0]
    choices = answers_of(question)
    if not choices or question.key in given:
        return None  # an answer that does not settle its question: ask
    found: set[str] = set()
    for choice in choices:
        reached = _reachable(trials, {**given, question.key: choice})
        if reached is None:
            return None
        found |= reached
    return frozenset(found)
