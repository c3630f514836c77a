"""What the table says, each payload numbered by one ``Stamper``: the events of the referee's
decisions (``shot_result`` first, then each decision's own), the state and the display when
something a subscriber could see changed, the status, the health, and the last ``stopped``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol

from controller.pipeline.livestats import RuledShot, live_stats
from controller.pipeline.messages import Message, Stamper, status_payload
from controller.pipeline.scoreboard import say, short_name, value_key
from controller.words import texts
from hardware.health import HealthRecord
from rules import Referee, Status
from rules.decisions import (
    BallCredited,
    BallSpotted,
    BallStaysDown,
    Decision,
    FoulCalled,
    GameDrawn,
    GameRestarted,
    GameWon,
    MatchAbandoned,
    MatchDrawn,
    MatchStarted,
    MatchWon,
    OptionChosen,
    PointsMoved,
    QuestionAsked,
    RulingCorrected,
    ShooterContinues,
    ShotsUndone,
    TurnPassed,
    WarningIssued,
)

#: How many letters of a name ``B/display`` shows.
DISPLAY_NAME_CHARS = 6

_RULING = (BallCredited, BallStaysDown, BallSpotted, FoulCalled, PointsMoved, TurnPassed,
           ShooterContinues, OptionChosen, GameWon, GameDrawn, GameRestarted, RulingCorrected)


class HealthView(Protocol):
    """What the table reads of sensor health to publish it (``hardware.health.HealthMonitor``)."""

    def snapshot(self) -> dict[str, object]: ...

    def summary(self) -> dict[str, object]: ...


def prompt(referee: Referee, question: dict[str, Any], language: str) -> str:
    """Returns a question's text (its snapshot form) in ``language``."""
    return texts.prompt(question, [p.name for p in referee.state.players], language)


class Publisher:
    """The table's voice (see the module docstring): ``language`` of its words, ``health``
    read when it publishes health. Messages wait in ``press`` until the table takes them."""

    def __init__(self, language: str, health: HealthView | None) -> None:
        self.press = Stamper()
        self.language = language
        self._health = health
        self._status_health: dict[str, object] | None = None  # the summary last in B/status
        self._last_state: dict[str, Any] | None = None
        self._last_match_id: str | None = None
        #: The table's time when the match began (``match_t0`` in the state): pages time the
        #: match on the table's clock, never on their own.
        self.match_t0: float | None = None
        #: The table's time of each shot of the match, in order (``played``): the times of
        #: shots undone stay until a shot takes their place, as a redo gives them back.
        self._shot_times: list[float] = []
        #: The match's players' roster ids as the console picked them (None: none given;
        #: ``player_ids`` in ``match_started`` and the state).
        self.player_ids: list[str | None] | None = None
        #: The tournament match the match is, ``{"id", "match"}`` (None: none; ``tournament``
        #: in ``match_started``, ``match_over`` and the state).
        self.tournament: dict[str, str] | None = None

    def fork(self) -> Publisher:
        """Returns a copy to try an input on: what it says is not said here."""
        other = copy.copy(self)  # what it said last, as here: replaced there, never changed
        other.press = self.press.fork()
        return other

    def played(self, shots: int, t: float) -> None:
        """Notes ``t``, the table's time, as the time of the match's ``shots``-th shot, just
        played (in the place of any shot undone there, and of those after it)."""
        self._shot_times = [*self._shot_times[:shots - 1], t]  # a new list: forks share the old

    def stats(self, referee: Referee) -> dict[str, Any] | None:
        """Returns the state's ``stats``: the match's live statistics (``livestats``), None
        with no match."""
        state = referee.state
        if state.setup is None or self.match_t0 is None:
            return None
        shots = [RuledShot(shooter, decisions, self._shot_times[i])
                 for i, (shooter, decisions) in enumerate(referee.ruled())]
        return live_stats(shots, players=state.n_players, t0=self.match_t0,
                          to_shoot=state.to_shoot,
                          over=state.status is Status.MATCH_OVER).to_json()

    def take(self) -> list[Message]:
        """Returns what was said since the last take, in order."""
        return self.press.take()

    def snapshot(self, referee: Referee, match_id: str | None, t: float) -> dict[str, Any]:
        """Returns the state payload now (a seq taken)."""
        return {**self.press.stamp(t), "match_id": match_id, "match_t0": self.match_t0,
                **self._ids(), "language": self.language,
                **texts.with_prompts(referee.snapshot(), self.language),
                "stats": self.stats(referee)}

    def _ids(self) -> dict[str, Any]:
        """Returns what the match's set-up named beside the referee's: ``player_ids`` and
        ``tournament``, each only when given (a match without them publishes as before)."""
        return {**({} if self.player_ids is None else {"player_ids": self.player_ids}),
                **self._cup()}

    def _cup(self) -> dict[str, Any]:
        return {} if self.tournament is None else {"tournament": self.tournament}

    def decided(self, t: float, decisions: list[Decision], referee: Referee,
                match_id: str | None) -> None:
        """Says the events of these decisions, then the state and the display."""
        state = referee.state
        ruling = [d for d in decisions if isinstance(d, _RULING)]
        if ruling:
            corrected = any(isinstance(d, RulingCorrected) for d in ruling)
            self.press.event("shot_result", {
                "shot": state.shot,
                "corrected": corrected,
                "decisions": [d.to_event() for d in decisions
                              if not isinstance(d, QuestionAsked)],
                "to_shoot": state.to_shoot,
                "ball_in_hand": str(state.ball_in_hand),
            }, t, ends_shot=not corrected)
        for d in decisions:
            kind, data = _event_of(d, referee, match_id, self.language)
            if kind == "match_started":
                data.update(self._ids())
            elif kind == "match_over":
                data.update(self._cup())
            if kind:
                self.press.event(kind, data, t)
        self.state(t, referee, match_id)

    def state(self, t: float, referee: Referee, match_id: str | None, force: bool = False) -> None:
        """Says the state and the display if anything a subscriber could see changed (or
        ``force``)."""
        snap = {**texts.with_prompts(referee.snapshot(), self.language),
                "stats": self.stats(referee)}
        if not force and snap == self._last_state and match_id == self._last_match_id:
            return
        self._last_state, self._last_match_id = snap, match_id
        self.press.retained("state", {"match_id": match_id, "match_t0": self.match_t0,
                                      **self._ids(), "language": self.language, **snap}, t)
        self.press.retained("display", display(snap, self.language), t)

    def everything(self, t: float, referee: Referee, match_id: str | None) -> None:
        """Says status, state, display (and health): after a start or a reconnect."""
        health = self._health
        self._status(t, None if health is None else health.summary())
        self.state(t, referee, match_id, force=True)
        if health is not None:
            self._health_now(health, t)

    def health_events(self, records: Sequence[HealthRecord], t: float) -> None:
        """Says an event for each of sensor health's records."""
        for rec in records:
            self.press.event(rec.event_type, rec.to_json(), t)

    def health(self, t: float) -> None:
        """Says ``B/health``, and ``B/status`` when the health summary changed."""
        health = self._health
        if health is None:
            return
        self._health_now(health, t)
        summary = health.summary()
        if summary != self._status_health:  # a sensor's fault, a link down (journal)
            self._status(t, summary)

    def stopped(self, t: float) -> None:
        """Says the last message of a clean stop: ``B/status`` ``stopped``."""
        self.press.retained("status", status_payload("stopped"), t)

    def _status(self, t: float, health: dict[str, object] | None) -> None:
        self._status_health = health
        self.press.retained("status", status_payload("online", health), t)

    def _health_now(self, health: HealthView, t: float) -> None:
        self.press.retained("health", {**health.snapshot(), "summary": health.summary()}, t)


def _event_of(d: Decision, referee: Referee, match_id: str | None,
              language: str) -> tuple[str | None, dict[str, Any]]:
    state = referee.state
    match d:
        case MatchStarted():
            return "match_started", {"match_id": match_id, "game": d.game,
                                     "players": list(d.players), "race_to": d.race_to,
                                     "breaker": d.breaker}
        case FoulCalled():
            return "foul", {"player": d.player, "fouls": [str(f) for f in d.fouls],
                            "shot": state.shot}
        case WarningIssued():
            return "warning", {"player": d.player, "reason": d.reason}
        case QuestionAsked():
            question = {k: v for k, v in d.to_event().items() if k != "decision"}
            if question.get("count") == 1:
                del question["count"]
            return "question", {**question, "prompt": prompt(referee, question, language)}
        case GameWon() | GameDrawn():
            return "game_over", {
                "game_no": d.game_no,
                "winner": d.player if isinstance(d, GameWon) else None,
                "draw": isinstance(d, GameDrawn),
                "reason": d.reason if isinstance(d, GameWon) else "draw",
                "games": [p.games for p in state.players],
            }
        case MatchWon() | MatchDrawn():
            return "match_over", {"winner": d.player if isinstance(d, MatchWon) else None,
                                  "games": [p.games for p in state.players]}
        case ShotsUndone():
            return "undo", {"shots": d.shots, "back_to_shot": d.back_to_shot}
        case MatchAbandoned():
            return "match_over", {"winner": None, "abandoned": True,
                                  "games": [p.games for p in state.players]}
    return None, {}


def display(snap: dict[str, Any], language: str = "en") -> dict[str, Any]:
    """Returns the short text for simple LED displays: ``{"text": ..., "lines": [...]}``, its
    words in ``language``."""
    players = snap["players"]
    if not players:
        return {"text": "", "lines": []}
    key = value_key(snap)
    names = [short_name(p, DISPLAY_NAME_CHARS) for p in players]
    values = [p[key] for p in players]
    marks = ["*" if snap["to_shoot"] == i else "" for i in range(len(players))]
    if len(players) == 2:
        text = f"{names[0]} {values[0]}:{values[1]} {names[1]}"
    else:
        text = " ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))
    lines = [f"{m}{n} {v}" for m, n, v in zip(marks, names, values, strict=True)]
    if snap["status"] in ("game_over", "match_over") and snap["winner"] is not None:
        lines.append(say("wins", language, name=names[snap["winner"]]))
    return {"text": text, "lines": lines}
