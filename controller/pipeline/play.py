"""The match in play at one table: the referee, fusion, and what each kind of input does to
them (issue 37: the request handlers no longer reach into the table's private members).

    fusion's actions ─► apply ─► the referee rules each shot ─► decided: events, state, display
                          └─ held back while a question is open (retry, once it is answered)
    new_match · answer · undo · redo · end_match ─► the referee, fed; the match's own records

``Table`` owns one and feeds it; ``handlers`` check a request and call it. A ``fork`` is a copy
to try an input on: what it makes is dropped.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import Any

from controller.pipeline.fusion import Action, AmendShot, DropSeen, Fusion, FusionConfig, RuleShot
from controller.pipeline.publisher import Publisher
from rules import (
    Answered,
    InvalidInput,
    MatchEnded,
    MatchSetup,
    NewMatch,
    Referee,
    ShotAmended,
    ShotPlayed,
    ShotRecord,
    Status,
    Undone,
)
from rules.decisions import Decision

log = logging.getLogger(__name__)


class Play:
    """One table's match in play (see the module docstring): ``referee`` and ``fusion``, the
    ``match_id`` (the n-th match named by ``name_match(n)``; ``matches`` how many began, those
    before a rebuild included); it publishes through ``pub``. A new table's play starts from
    nothing; ``fork`` passes its own as it is now (``referee``, ``fusion``, ``match_id``, the
    shots ``deferred`` and the referees ``undone``)."""

    def __init__(self, pub: Publisher, fusion: FusionConfig | Fusion | None,
                 name_match: Callable[[int], str], matches: int, *,
                 referee: Referee | None = None, match_id: str | None = None,
                 deferred: list[ShotRecord] | None = None,
                 undone: list[tuple[Referee, tuple[object, ...]]] | None = None) -> None:
        self.referee = Referee() if referee is None else referee
        self.fusion = fusion if isinstance(fusion, Fusion) else Fusion(fusion)
        self.match_id = match_id
        self.matches = matches
        self._name_match = name_match
        self._pub = pub
        # the shots played while a question was open, ruled once it is answered
        self._deferred: list[ShotRecord] = [] if deferred is None else deferred
        # the referee as it was before each undo, newest last, with what the undo left (redo)
        self._undone: list[tuple[Referee, tuple[object, ...]]] = [] if undone is None else undone

    @property
    def language(self) -> str:
        """Returns the language of the table's words."""
        return self._pub.language

    @property
    def held_back(self) -> int:
        """Returns how many shots wait for an open question's answer before they are ruled."""
        return len(self._deferred)

    def fork(self) -> Play:
        """Returns a copy to try an input on: what it makes is dropped, and nothing done to it
        changes this one."""
        return Play(self._pub.fork(), copy.deepcopy(self.fusion), self._name_match, self.matches,
                    referee=self.referee.fork(), match_id=self.match_id,
                    deferred=list(self._deferred), undone=self._undone)

    # -------------------------------------------------------------- shots
    def apply(self, actions: list[Action]) -> None:
        """Carries out fusion's actions in order: a drop seen published at once, a shot
        ruled (held back while a question is open or a shot before it waits), a correction of
        the shot just ruled (or of the last held back)."""
        for action in actions:
            if isinstance(action, DropSeen):
                self._pub.press.event("ball_pocketed", {
                    "pocket": action.pocket, "ball": action.ball,
                    "shot": self.referee.state.shot + (0 if action.late else 1)}, action.t,
                    live=True)
            elif isinstance(action, RuleShot):
                if self.referee.state.setup is None or self.referee.state.status is Status.MATCH_OVER:
                    continue  # play with no match in progress: nothing to rule
                if self.referee.questions or self._deferred:
                    self._deferred.append(action.record)
                    continue
                self._rule(action.record, action.t)
            elif isinstance(action, AmendShot):
                if self._deferred:
                    self._deferred[-1] = action.record
                elif self.referee.shots:
                    self.decided(action.t, self.referee.feed(ShotAmended(action.record)))

    def _rule(self, record: ShotRecord, t: float) -> None:
        try:
            decisions = self.referee.feed(ShotPlayed(record))
        except InvalidInput as exc:
            log.warning("shot not ruled: %s", exc)
            return
        self._pub.played(self.referee.shots, t)
        self.decided(t, decisions)

    def decided(self, t: float, decisions: list[Decision]) -> None:
        """Publishes the events of these decisions, then the state and the display."""
        self._pub.decided(t, decisions, self.referee, self.match_id)

    def forget(self) -> None:
        """Drops the play in progress: fusion's open shot and the shots held back."""
        self.fusion.forget()
        self._deferred.clear()

    # -------------------------------------------------------------- what requests do
    def new_match(self, setup: MatchSetup, player_ids: list[str | None] | None, t: float,
                  tournament: dict[str, str] | None = None) -> str:
        """Begins a match (whatever was in play dropped), of ``tournament`` (its ``id`` and
        ``match``) if given; returns its id."""
        decisions = self.referee.feed(NewMatch(setup))
        self.forget()
        self.matches += 1
        self.match_id = self._name_match(self.matches)
        self._pub.match_t0 = round(t, 6)
        self._pub.player_ids = player_ids
        self._pub.tournament = tournament
        self.decided(t, decisions)
        return self.match_id

    def answer(self, question: str | None, answer: Any, t: float) -> None:
        """Answers an open question; the shots held back for it are ruled once none is open."""
        self.decided(t, self.referee.feed(Answered(question, answer)))
        while self._deferred and not self.referee.questions:
            self._rule(self._deferred.pop(0), t)

    def undo(self, shots: int, t: float) -> None:
        """Takes back the last ``shots`` shots (the play in progress dropped); a redo gives
        them back while nothing else has changed the match."""
        if shots > self.referee.shots:
            raise InvalidInput(f"only {self.referee.shots} shot(s) of this match can be undone")
        before = self.referee.fork()
        self.forget()
        self.decided(t, self.referee.feed(Undone(shots)))
        self._undone.append((before, self._redo_mark()))

    def redo(self, t: float) -> None:
        """Gives back the referee as it was before the last undo; refused once anything else
        has changed the match since (the undone shots are then gone for good)."""
        while self._undone:
            before, mark = self._undone[-1]
            if all(a is b for a, b in zip(mark, self._redo_mark(), strict=True)):
                break
            self._undone.clear()
        if not self._undone:
            raise InvalidInput("nothing to redo: no undo since the last shot, answer or correction")
        self._undone.pop()
        self.referee = before
        self.forget()
        self._pub.press.event("redo", {"shot": self.referee.state.shot}, t)
        self._pub.state(t, self.referee, self.match_id)

    def _redo_mark(self) -> tuple[object, ...]:
        """Returns what says nothing was played, answered or corrected since an undo: the
        referee's state and open questions, which every such input replaces."""
        return (self.referee.state, self.referee.questions, self.match_id)

    def end_match(self, t: float) -> None:
        """Abandons the match."""
        decisions = self.referee.feed(MatchEnded())
        self.forget()
        self.decided(t, decisions)
        self.match_id = self._pub.match_t0 = None

    def republish(self, t: float) -> None:
        """Publishes status, state and display (and health) again."""
        self._pub.everything(t, self.referee, self.match_id)
