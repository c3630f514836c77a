"""What a game module provides, and the helpers every game shares.

A game is a small class wiring plain rule functions, selected from ``GAMES`` by name:
``rack`` sets up a new game, ``check_call`` validates a call before the shot, ``rule`` turns
one resolved shot into the next state and the decisions that led there. Questions go
through the ``Asker``: ``ask`` returns the answer when one was given, else None, and the
referee holds the shot open until every question is answered.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from rules.decisions import Decision, InHand
from rules.errors import InvalidInput
from rules.facts import CUE, UNKNOWN, Ball, Call, Foul, Known, Pocket, Rail, ShotKind, ShotRecord
from rules.options import MatchOptions, parse_options
from rules.spec import GameSpec
from rules.state import MatchState, PlayerState, Question, QuestionKey, QuestionKind, Status, Topic
from vocabulary import SAME_RAIL


def cushion_of(rail: Rail) -> Rail:
    """Returns the cushion a rail segment is part of, named by one of its segments: a long
    rail's two halves are one cushion."""
    return min(rail, SAME_RAIL.get(rail, rail))


def cushions_touched(record: ShotRecord, *, before_too: bool = False) -> Known[int]:
    """Returns how many different cushions the balls touched after the first contact (with
    ``before_too``, before it as well): the count a referee declared, else the sensors' hits
    counted by cushion; UNKNOWN when neither is known."""
    if record.cushion_count is not UNKNOWN:
        return record.cushion_count
    if record.cushions is UNKNOWN:
        return UNKNOWN
    rails = record.cushions + (record.cushions_before if before_too else ())
    return len({cushion_of(r) for r in rails})


class Asker:
    """Asks the questions of one shot, in the order the rules apply them.

    A question is its identity (``Question.key``: kind, topic, player, what it is about); an
    answer given to it is found again only by that identity, so a shot ruled anew (a late
    drop, a declared fact) never takes an answer given to a different question. Each identity
    keeps the handle it was first asked under (``q-<shot>-<n>``, ``ids``); a new question gets
    the next number. ``consumed`` records which answers the ruling took. ``presumed``
    answers (canonical) are those of questions nobody is asked (``rules.moot``); they keep
    their handle, so the questions after them keep theirs.
    """

    def __init__(self, shot: int, answers: Mapping[QuestionKey, Any],
                 ids: Mapping[QuestionKey, str] | None = None,
                 presumed: Mapping[QuestionKey, Any] | None = None) -> None:
        self._shot = shot
        self._answers = answers
        self._presumed = presumed or {}
        self.ids: dict[QuestionKey, str] = dict(ids or {})
        self.open: list[Question] = []
        self.consumed: dict[QuestionKey, Any] = {}

    def ask(self, kind: QuestionKind, player: int, topic: Topic, choices: tuple[Any, ...],
            count: int = 1, **about: Any) -> Any | None:
        """Returns the answer given to this question (if it still fits its choices), else
        None with the question left open."""
        params = tuple(sorted(about.items()))
        key: QuestionKey = (kind, topic, player, params, count)
        qid = self.ids.setdefault(key, f"q-{self._shot}-{len(self.ids)}")
        question = Question(qid, kind, player, topic, params, choices, count)
        if key in self._answers:
            try:
                value = normalise_answer(question, self._answers[key])
            except InvalidInput:
                pass  # the same question with other choices now (a ball left the table): ask
            else:
                self.consumed[key] = value
                return value
        if key in self._presumed:  # nobody is asked: nobody's answer is consumed
            return self._presumed[key]
        self.open.append(question)
        return None

    def option(self, player: int, topic: Topic, choices: tuple[str, ...],
               **about: Any) -> str | None:
        """Returns the option chosen, None while asking."""
        answer: str | None = self.ask(QuestionKind.OPTION, player, topic, choices, **about)
        return answer

    def confirm(self, player: int, topic: Topic, **about: Any) -> bool | None:
        """Returns yes or no, None while asking."""
        answer: bool | None = self.ask(QuestionKind.CONFIRM, player, topic, (True, False),
                                       **about)
        return answer

    def pick_ball(self, player: int, topic: Topic, choices: tuple[int, ...],
                  **about: Any) -> int | None:
        """Returns the ball picked, None while asking."""
        answer: int | None = self.ask(QuestionKind.PICK_BALL, player, topic, choices, **about)
        return answer

    @property
    def pending(self) -> bool:
        return bool(self.open)

    def mark(self) -> tuple[int, dict[QuestionKey, Any]]:
        """Returns where the asking is now, for ``rewind``."""
        return len(self.open), dict(self.consumed)

    def rewind(self, mark: tuple[int, dict[QuestionKey, Any]]) -> None:
        """Forgets the questions asked and answers taken since ``mark`` (the drops are asked
        about again; the questions keep their handles)."""
        del self.open[mark[0]:]
        self.consumed = dict(mark[1])


_TRUE = {True, "true", "yes", "1"}
_FALSE = {False, "false", "no", "0"}


def _ball(value: Any) -> Ball:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, bool):
        raise InvalidInput(f"{value!r} is not a ball")
    if isinstance(value, int) or value == CUE:
        return value  # type: ignore[no-any-return]
    raise InvalidInput(f"{value!r} is not a ball (a number, or \"cue\")")


def normalise_answer(question: Question, answer: Any) -> Any:
    """Returns the answer in its canonical form. Raises InvalidInput when it does not fit."""
    choices = list(question.choices)
    if question.kind is QuestionKind.CONFIRM:
        if isinstance(answer, str):
            answer = answer.lower()
        elif not isinstance(answer, bool | int):  # a list or a mapping is not hashable
            raise InvalidInput(f"{question.id} asks for true or false, not {answer!r}")
        if answer in _TRUE and not (isinstance(answer, int) and answer not in (0, 1, True)):
            return True
        if answer in _FALSE:
            return False
        raise InvalidInput(f"{question.id} asks for true or false, not {answer!r}")
    if question.kind is QuestionKind.OPTION:
        if answer not in choices:
            raise InvalidInput(f"{question.id}: answer one of {choices}, not {answer!r}")
        return answer
    if question.kind is QuestionKind.PICK_BALL:
        ball = _ball(answer)
        if ball not in choices:
            raise InvalidInput(f"{question.id}: pick a ball on the table, one of {choices}")
        return ball
    # identify: one ball per drop
    items = answer if isinstance(answer, list | tuple) else [answer]
    balls = tuple(_ball(a) for a in items)
    if len(balls) != question.count:
        raise InvalidInput(f"{question.id}: name {question.count} ball(s), one per drop")
    if len(set(balls)) != len(balls):
        raise InvalidInput(f"{question.id}: a ball can fall only once")
    for b in balls:
        if b not in choices:
            raise InvalidInput(f"{question.id}: ball {b!r} could not have fallen; one of {choices}")
    return balls


@dataclass(frozen=True, slots=True)
class Shot:
    """A shot with every drop identified, as the game's rules see it."""

    record: ShotRecord
    shooter: int
    is_break: bool
    #: Object balls that fell, with their pockets, in the order they fell.
    pocketed: tuple[tuple[int, Pocket | None], ...]
    cue_pocketed: bool
    #: The cue ball's pocket, when it fell and the pocket is known.
    cue_pocket: Pocket | None = None
    #: What resolving the drops presumed (``Noted``), listed first in the shot's ruling.
    notes: tuple[Decision, ...] = ()
    #: Object balls that fell with no number known, by pocket (where the number changes
    #: nothing: ``Game.identity_needed``).
    unidentified: tuple[Pocket | None, ...] = ()

    @property
    def kind(self) -> ShotKind:
        return self.record.kind

    @property
    def calls(self) -> tuple[Call, ...]:
        return self.record.calls

    @property
    def balls_pocketed(self) -> tuple[int, ...]:
        return tuple(b for b, _ in self.pocketed)

    @property
    def objects_fell(self) -> bool:
        """Returns True when an object ball fell, its number known or not."""
        return bool(self.pocketed or self.unidentified)

    def fell_in(self, ball: Ball, pocket: Pocket) -> bool:
        """Returns True when ``ball`` (an object ball or the cue ball) fell in ``pocket``."""
        if ball == CUE:
            return self.cue_pocketed and self.cue_pocket == pocket
        return (ball, pocket) in self.pocketed

    @property
    def cue_off_table(self) -> bool:
        return CUE in self.record.off_table

    @property
    def balls_off_table(self) -> tuple[int, ...]:
        return tuple(b for b in self.record.off_table if isinstance(b, int))

    def declared(self, *fouls: Foul) -> bool:
        return any(f in self.record.fouls for f in fouls)


class Game(abc.ABC):
    """A game's rules. Subclasses are registered in ``GAMES`` by ``name``.

    A subclass sets ``spec`` (its ``GameSpec``); ``name``, the players, the balls, the
    options and the calls are read from it."""

    spec: ClassVar[GameSpec]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    balls: ClassVar[tuple[int, ...]]
    Options: ClassVar[type[MatchOptions]]
    #: How many balls one call may name.
    max_calls: ClassVar[int]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if isinstance(spec, GameSpec):
            cls.name, cls.balls, cls.Options = spec.id, spec.balls, spec.options
            cls.min_players, cls.max_players = spec.min_players, spec.max_players
            cls.max_calls = spec.max_calls

    def parse_options(self, raw: Mapping[str, object]) -> MatchOptions:
        """Returns the game's options from ``new_match``'s. Raises InvalidInput naming a bad one."""
        return parse_options(self.Options, raw)

    @abc.abstractmethod
    def rack(self, state: MatchState) -> MatchState:
        """Returns the state at the start of a game (``game_no`` and ``breaker`` already set)."""

    def new_rack(self, state: MatchState, *, breaker: int | None = None, extra: Any = None,
                 scores: tuple[int, ...] | None = None) -> MatchState:
        """Returns ``state`` set for a break: every ball of the game on the table, the breaker
        to shoot from the kitchen, each player's score (``scores``, else 0), balls and fouls of
        the last game cleared, games won kept; ``extra`` is the game's own state."""
        breaker = state.breaker if breaker is None else breaker
        start = scores or (0,) * state.n_players
        return replace(
            state,
            status=Status.BREAK,
            breaker=breaker,
            on_table=self.balls,
            unidentified=0,
            to_shoot=breaker,
            ball_in_hand=InHand.KITCHEN,
            winner=None,
            draw=False,
            players=tuple(PlayerState(p.name, score=start[i], games=p.games)
                          for i, p in enumerate(state.players)),
            extra=extra,
        )

    def check_call(self, state: MatchState, calls: tuple[Call, ...], kind: ShotKind) -> None:
        """Raises InvalidInput when the call cannot be made now. The default checks balls."""
        if len(calls) > self.max_calls:
            raise InvalidInput(f"{self.name} allows {self.max_calls} called ball(s) per shot")
        for call in calls:
            if call.ball != CUE and call.ball not in state.on_table:
                raise InvalidInput(f"ball {call.ball} is not on the table")
        if kind is not ShotKind.NORMAL and kind not in self.spec.shot_kinds:
            raise InvalidInput(f"{self.name} has no {kind} shot")

    def identity_needed(self, state: MatchState, record: ShotRecord,
                        pocket: Pocket | None) -> bool:
        """Returns whether the number of an object ball that fell in ``pocket`` (None: seen only
        by the ball return) can change the ruling. False: nobody is asked which ball it was,
        only whether it was the cue ball, and it is credited as ``OBJECT``. By default True."""
        return True

    def only_the_called_ball_matters(self, state: MatchState, record: ShotRecord,
                                     pocket: Pocket | None) -> bool:
        """Returns whether, for one drop in a pocket one call names, only "was it the called
        ball?" changes the ruling (any other object ball there counts the same): then that is
        asked (``called_ball``) rather than which ball it was. By default False."""
        return False

    def balls_in_play(self, state: MatchState) -> tuple[int, ...]:
        """Returns the object balls a drop on the coming shot can be: by default, those on the
        table (a game whose balls are set out anew, as in a shoot-out, returns those)."""
        return state.on_table

    @abc.abstractmethod
    def rule(self, state: MatchState, shot: Shot, ask: Asker) -> tuple[MatchState, list[Decision]]:
        """Returns the state after the shot and the decisions, in the order the rules apply.

        ``state`` already counts this shot. When a fact is missing, ask and return early;
        the shot is ruled again once it is answered.
        """

    def shootout_json(self, state: MatchState) -> Any:
        """Returns the snapshot's ``shootout`` field."""
        return None


GAMES: dict[str, Game] = {}


def register(game: type[Game]) -> type[Game]:
    """Class decorator adding a game to ``GAMES``. Raises InvalidInput when its id is taken."""
    if game.name in GAMES:
        raise InvalidInput(f"a game {game.name!r} is registered already")
    GAMES[game.name] = game()
    return game
