"""The referee: a match as a fold over its inputs, in the style of h11.

    ref = Referee()
    ref.feed(NewMatch(setup))        # -> [MatchStarted(...)]
    ref.feed(ShotPlayed(record))     # -> the shot's decisions, questions asked
    ref.feed(Answered("q-3-0", 7))   # -> what the answer decided
    ref.feed(ShotAmended(record))    # -> the last shot ruled anew (a late drop, a declared fact)
    ref.feed(Undone(1))              # -> back to the state before the last shot

Every shot keeps the state before it, its record and its answers, so a shot can be ruled anew
and undone exactly. Nothing here does I/O or reads a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rules.decisions import (
    Decision,
    GameDrawn,
    GameWon,
    InHand,
    MatchAbandoned,
    MatchStarted,
    MatchWon,
    Noted,
    QuestionAnswered,
    QuestionAsked,
    RulingCorrected,
    ShotsUndone,
)
from rules.drops import resolve
from rules.errors import InvalidInput
from rules.facts import CUE, Ball, Call, MatchSetup, ShotKind, ShotRecord
from rules.game import GAMES, Asker, Game, normalise_answer
from rules.moot import Ruled, Trials, presumption
from rules.options import options_json
from rules.spec import Declarable
from rules.state import MatchState, PlayerState, Question, QuestionKey, QuestionKind, Status, Topic


@dataclass(frozen=True, slots=True)
class NewMatch:
    setup: MatchSetup


@dataclass(frozen=True, slots=True)
class ShotPlayed:
    record: ShotRecord


@dataclass(frozen=True, slots=True)
class ShotAmended:
    """The last shot's record, corrected: it replaces the record the shot was ruled on."""

    record: ShotRecord


@dataclass(frozen=True, slots=True)
class Answered:
    """An answer; ``question`` None answers the oldest open question."""

    question: str | None
    answer: Any


@dataclass(frozen=True, slots=True)
class Undone:
    shots: int = 1


@dataclass(frozen=True, slots=True)
class MatchEnded:
    pass


Input = NewMatch | ShotPlayed | ShotAmended | Answered | Undone | MatchEnded


def _game_of(state: MatchState) -> Game:
    """Returns the game of the match in progress."""
    assert state.setup is not None
    return GAMES[state.setup.game]


def _racked_if_over(state: MatchState, game: Game) -> MatchState:
    """Returns ``state``, or the next game racked when this one is over."""
    if state.status is not Status.GAME_OVER:
        return state
    return game.rack(_next_game(state))


@dataclass(slots=True)
class _Frame:
    """One shot: the state before it, its record, the answers given to its questions (by
    question identity), the handles of its questions, and its ruling."""

    before: MatchState
    record: ShotRecord
    answers: dict[QuestionKey, Any]
    ids: dict[QuestionKey, str]
    after: MatchState
    decisions: list[Decision]
    open: tuple[Question, ...]
    #: The answers this ruling took, by question identity.
    consumed: dict[QuestionKey, Any]
    #: The answers taken for questions nobody was asked (``rules.moot``): they stand while
    #: the shot's other questions are answered, and are found anew when its record changes.
    presumed: dict[QuestionKey, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Referee:
    """Holds one table's match and rules every input fed to it."""

    _start: MatchState = field(default_factory=MatchState)
    _frames: list[_Frame] = field(default_factory=list)

    # ------------------------------------------------------------------ reading
    @property
    def state(self) -> MatchState:
        """Returns the current state (after the last shot, as far as it is ruled)."""
        return self._frames[-1].after if self._frames else self._start

    @property
    def questions(self) -> tuple[Question, ...]:
        """Returns the open questions, in the order they must be answered."""
        return self._frames[-1].open if self._frames else ()

    @property
    def game(self) -> Game | None:
        setup = self.state.setup
        return GAMES[setup.game] if setup else None

    @property
    def shots(self) -> int:
        """Returns how many shots of this match can be undone."""
        return len(self._frames)

    def ruled(self) -> list[tuple[int, list[Decision]]]:
        """Returns the match's shots in order as ruled now, each as (its shooter, its
        decisions): empty decisions for a shot held for an answer."""
        out = []
        for frame in self._frames:
            shooter = _racked_if_over(frame.before, _game_of(frame.before)).to_shoot
            assert shooter is not None  # a shot is only played with someone to shoot
            out.append((shooter, frame.decisions))
        return out

    def snapshot(self) -> dict[str, Any]:
        """Returns the state snapshot of interfaces §3, less ``v``, ``seq``, ``ts``, ``match_id``."""
        s = self.state
        game = self.game
        open_q = self.questions
        status = Status.AWAITING if open_q else s.status
        return {
            "game": s.setup.game if s.setup else None,
            "options": options_json(s.options) if s.setup is not None else {},
            "race_to": s.setup.race_to if s.setup else None,
            "game_no": s.game_no,
            "players": [
                {"name": p.name, "score": p.score, "games": p.games,
                 "consecutive_fouls": p.consecutive_fouls}
                for p in s.players
            ],
            "status": str(status),
            "to_shoot": s.to_shoot,
            "ball_in_hand": str(s.ball_in_hand),
            "on_table": list(s.on_table),
            "unidentified": s.unidentified,
            "balls_left": s.balls_left,
            "shot": s.shot,
            "questions": [q.to_json() for q in open_q],
            "winner": s.winner,
            "draw": s.draw,
            "shootout": game.shootout_json(s) if game else None,
        }

    def fork(self) -> Referee:
        """Returns a referee in this one's state, to try inputs on: what it is fed leaves
        this one as it is (a shot's frame is replaced, never changed in place, so the two
        share them)."""
        return Referee(self._start, list(self._frames))

    # ------------------------------------------------------------------ checks
    def check_call(self, calls: tuple[Call, ...], kind: ShotKind = ShotKind.NORMAL) -> None:
        """Raises InvalidInput when this call cannot be made for the coming shot."""
        state = self._ready_for_shot()
        game = _game_of(state)
        game.check_call(_racked_if_over(state, game), calls, kind)

    def check_ball(self, ball: Ball, *, cue_allowed: bool = True) -> None:
        """Raises InvalidInput unless ``ball`` is in play in this game (on the table, or fell
        on the last shot)."""
        state = self.state
        if state.setup is None:
            raise InvalidInput("no match is in progress")
        game = _game_of(state)
        if ball == CUE:
            if cue_allowed:
                return
            raise InvalidInput("the cue ball cannot be named here")
        if not isinstance(ball, int) or isinstance(ball, bool) or ball not in game.balls:
            raise InvalidInput(f"{ball!r} is not a ball of {game.name} ({min(game.balls)}–"
                               f"{max(game.balls)} or \"cue\")")

    def check_forfeit(self, player: int) -> None:
        """Raises InvalidInput unless ``player`` may be penalised for unsportsmanlike conduct
        in this game: a player of the match, in a game whose rules have the penalty (TB-14)."""
        state = self.state
        if state.setup is None:
            raise InvalidInput("no match is in progress")
        game = _game_of(state)
        if not game.spec.declares(Declarable.UNSPORTSMANLIKE):
            raise InvalidInput(f"{game.name} has no penalty for unsportsmanlike conduct; "
                               "Ten-ball has (TB-14)")
        if not 0 <= player < state.n_players:
            raise InvalidInput(f"player must be a player index from 0 to {state.n_players - 1}")

    # ------------------------------------------------------------------ feeding
    def feed(self, event: Input) -> list[Decision]:
        """Applies one input and returns the decisions it caused.

        Raises InvalidInput, with the state unchanged, for an input that cannot be taken.
        """
        match event:
            case ShotPlayed(record):
                return self._shot(record)
            case Answered(question, answer):
                return self._answer(question, answer)
            case ShotAmended(record):
                return self._amend(record)
            case Undone(shots):
                return self._undo(shots)
            case NewMatch(setup):
                return self._new_match(setup)
            case MatchEnded():
                if self.state.setup is None:
                    raise InvalidInput("no match is in progress")
                self._start, self._frames = MatchState(), []
                return [MatchAbandoned()]
        raise InvalidInput(f"not an input of the referee: {event!r}")

    def _new_match(self, setup: MatchSetup) -> list[Decision]:
        if setup.game not in GAMES:
            raise InvalidInput(f"unknown game {setup.game!r}; one of {sorted(GAMES)}")
        game = GAMES[setup.game]
        n = len(setup.players)
        if not game.min_players <= n <= game.max_players:
            span = (f"{game.min_players}" if game.min_players == game.max_players
                    else f"{game.min_players}–{game.max_players}")
            raise InvalidInput(f"{game.name} is played by {span} players, not {n}")
        if any(not name.strip() for name in setup.players):
            raise InvalidInput("every player needs a name")
        if isinstance(setup.race_to, bool) or not 1 <= setup.race_to <= 99:
            raise InvalidInput(f"race_to must be a number of games from 1 to 99, not {setup.race_to!r}")
        if isinstance(setup.breaker, bool) or not 0 <= setup.breaker < n:
            raise InvalidInput(f"breaker must be a player index from 0 to {n - 1}")
        options = game.parse_options(setup.options)
        state = MatchState(
            setup=setup,
            options=options,
            game_no=1,
            breaker=setup.breaker,
            players=tuple(PlayerState(name) for name in setup.players),
        )
        self._start, self._frames = game.rack(state), []
        return [MatchStarted(setup.game, tuple(setup.players), setup.race_to, setup.breaker)]

    def _shot(self, record: ShotRecord) -> list[Decision]:
        state = self._ready_for_shot()
        frame = self._rule(state, record, {}, {})
        self._frames.append(frame)
        return frame.decisions + [_asked(q) for q in frame.open]

    def _answer(self, question_id: str | None, answer: Any) -> list[Decision]:
        open_q = self.questions
        if not open_q:
            raise InvalidInput("there is no open question to answer")
        if question_id is None:
            question = open_q[0]
        else:
            found = [q for q in open_q if q.id == question_id]
            if not found:
                ids = ", ".join(q.id for q in open_q)
                raise InvalidInput(f"{question_id} is not an open question (open: {ids})")
            question = found[0]
        value = normalise_answer(question, answer)
        frame = self._frames[-1]
        if question.kind is QuestionKind.IDENTIFY:
            taken = {b for key, a in frame.consumed.items()
                     if key != question.key and key[0] is QuestionKind.IDENTIFY for b in a}
            again = [b for b in value if b in taken]
            if again:
                raise InvalidInput(f"ball {again[0]!r} was already named for another drop")
        answers = {**frame.answers, question.key: value}
        new = self._rule(frame.before, frame.record, answers, frame.ids, frame.presumed)
        self._frames[-1] = new
        return [QuestionAnswered(question.id, value)] + _difference(frame, new)

    def _amend(self, record: ShotRecord) -> list[Decision]:
        if not self._frames:
            raise InvalidInput("no shot has been played to correct")
        frame = self._frames[-1]
        new = self._rule(frame.before, record, frame.answers, frame.ids)
        self._frames[-1] = new
        return _difference(frame, new)

    def _undo(self, shots: int) -> list[Decision]:
        if isinstance(shots, bool) or not isinstance(shots, int) or shots < 1:
            raise InvalidInput("undo takes a number of shots, 1 or more")
        if shots > len(self._frames):
            raise InvalidInput(f"only {len(self._frames)} shot(s) of this match can be undone")
        del self._frames[-shots:]
        return [ShotsUndone(shots, self.state.shot)]

    # ------------------------------------------------------------------ ruling
    def _ready_for_shot(self) -> MatchState:
        state = self.state
        if state.setup is None:
            raise InvalidInput("no match is in progress: start one with new_match")
        if state.status is Status.MATCH_OVER:
            raise InvalidInput("the match is over: start a new one with new_match")
        if self.questions:
            q = self.questions[0]
            raise InvalidInput(f"question {q.describe()} is open: answer it first")
        return state

    @staticmethod
    def _rule(before: MatchState, record: ShotRecord, answers: dict[QuestionKey, Any],
              ids: dict[QuestionKey, str],
              presumed_before: Mapping[QuestionKey, Any] | None = None) -> _Frame:
        """Returns the shot ruled with ``answers``. A question whose every answer rules the
        shot the same is not asked (``rules.moot``): the ruling takes an answer and notes it,
        first in the shot's decisions (``not_asked``); ``presumed_before``, those taken by
        the shot's ruling before this answer, stand."""
        presumed: dict[QuestionKey, Any] = {
            k: v for k, v in (presumed_before or {}).items() if k not in answers}
        notes: list[Decision] = [_not_asked(*item) for item in presumed.items()]

        def trial(given: Mapping[QuestionKey, Any]) -> Ruled:
            tried = _rule_once(before, record, answers, ids, given)
            return tried.after, tried.decisions, tried.open

        trials = Trials(trial)
        frame = _rule_once(before, record, answers, ids, presumed)
        while frame.open and len(presumed) < MAX_PRESUMED:
            question = frame.open[0]  # the one a person answers next; the others after it
            needless, value = presumption(trials, question, presumed)
            if not needless:
                break
            presumed[question.key] = value
            notes.append(_not_asked(question.key, value))
            frame = _rule_once(before, record, answers, ids, presumed)
        frame.decisions = [*notes, *frame.decisions]
        frame.presumed = presumed
        return frame


def _not_asked(key: QuestionKey, value: Any) -> Noted:
    """Returns the note of a question nobody was asked, the answer taken with it."""
    _, topic, _, about, _ = key
    return Noted("not_asked", str(topic), about=(*about, ("answer", value)))


#: Questions one shot may leave unasked (each a search of ``rules.moot``).
MAX_PRESUMED = 8


def _rule_once(before: MatchState, record: ShotRecord, answers: Mapping[QuestionKey, Any],
               ids: Mapping[QuestionKey, str], presumed: Mapping[QuestionKey, Any]) -> _Frame:
    """Returns the shot ruled with ``answers`` and the ``presumed`` answers of questions
    nobody is asked."""
    assert before.setup is not None
    game = GAMES[before.setup.game]
    state = _racked_if_over(before, game)
    state = replace(state, shot=state.shot + 1)
    ask = Asker(state.shot, answers, ids, presumed)
    shot = resolve(game, state, record, ask)
    given = dict(answers)
    if shot is None:  # a drop is not identified yet: ask, hold the shot
        return _Frame(before, record, given, ask.ids, state, [], tuple(ask.open),
                      ask.consumed)
    after, decisions = game.rule(state, shot, ask)
    decisions = [*shot.notes, *decisions]
    after, decisions = _settle_game(after, decisions, ask)
    return _Frame(before, record, given, ask.ids, after, decisions, tuple(ask.open),
                  ask.consumed)


def _asked(q: Question) -> QuestionAsked:
    return QuestionAsked(q.id, str(q.kind), q.player, str(q.topic), q.about, q.choices, q.count)


def _difference(old: _Frame, new: _Frame) -> list[Decision]:
    """Returns what a re-ruled shot adds: the new decisions, or a correction and all of them."""
    n = len(old.decisions)
    if new.decisions[:n] == old.decisions:
        out = list(new.decisions[n:])
    else:
        out = [RulingCorrected(new.after.shot), *new.decisions]
    out += [_asked(q) for q in new.open if q not in old.open]
    return out


def _next_game(state: MatchState) -> MatchState:
    """Returns the state set for the next game of the match: its number and its breaker."""
    n = state.n_players
    order = state.options.break_order
    last = state.results[-1] if state.results else None
    if order == "lot" and state.status is Status.GAME_OVER and state.to_shoot is not None:
        breaker = state.to_shoot  # the lot drawn for this game, answered at the game's end
    elif order == "winner" and last is not None:
        breaker = last
    elif order == "loser" and last is not None and n == 2:
        breaker = 1 - last
    else:
        breaker = state.next_player(state.breaker)
    return replace(state, game_no=state.game_no + 1, breaker=breaker)


def _settle_game(state: MatchState, decisions: list[Decision],
                 ask: Asker) -> tuple[MatchState, list[Decision]]:
    """Returns the state after a game's end is counted in the match (games won, match over)."""
    ended = next((d for d in decisions if isinstance(d, GameWon | GameDrawn)), None)
    if ended is None:
        return state, decisions
    assert state.setup is not None
    race_to, race_game = state.setup.race_to, state.setup.game
    decisions = list(decisions)
    if isinstance(ended, GameWon):
        winner = ended.player
        state = state.with_player(winner, games=state.players[winner].games + 1)
        state = replace(state, results=state.results + (winner,), winner=winner, draw=False)
        awarded = any(isinstance(d, MatchWon) for d in decisions)  # the match itself (TB-14)
        if awarded or state.players[winner].games >= race_to:
            if not awarded:
                decisions.append(MatchWon(winner))
            return replace(state, status=Status.MATCH_OVER, to_shoot=None,
                           ball_in_hand=InHand.NONE), decisions
    else:
        state = replace(state, results=state.results + (None,), winner=None, draw=True)
    if state.options.break_order == "lot":  # ST-3: the players draw lots; the referee says
        names = [p.name for p in state.players]
        choices = tuple(names) if len(set(names)) == len(names) else tuple(
            str(i) for i in range(len(names)))
        drawn = ask.option(state.winner if state.winner is not None else 0, Topic.BREAKER,
                           choices, game=state.game_no + 1)
        if drawn is not None:
            state = replace(state, status=Status.GAME_OVER, to_shoot=choices.index(drawn))
    nxt = _next_game(state)
    # the game's rack names who breaks (a game may fix the breaker, e.g. a handicap giver)
    first = GAMES[race_game].rack(nxt).to_shoot
    return replace(state, status=Status.GAME_OVER, to_shoot=first,
                   ball_in_hand=InHand.KITCHEN), decisions
