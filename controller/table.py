"""One table's pipeline: sensor events and requests in, MQTT messages out.

    sensor events ─► Fusion ─► shot records ─► Referee ─► decisions ─► events, state, display
    requests ──────► validation ─────────────────┘

No I/O and no clock of its own: every input carries its source time, and ``advance(now)``
runs the timers. The live service and ``replay`` drive the same object; the service adds
MQTT, the journal and the backends around it. Every input that reaches the pipeline is
also handed to ``record`` (a trace line), so any session can be replayed.
"""

from __future__ import annotations

import copy
import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller import texts
from controller.fusion import Action, AmendShot, DropSeen, Fusion, FusionConfig, RuleShot
from controller.requests import (
    AnswerRequest,
    BadRequest,
    CallRequest,
    DeclareRequest,
    EndMatchRequest,
    GetRequest,
    NewMatchRequest,
    ShotEndRequest,
    UndoRequest,
    as_received,
    body_of,
    parse_request,
    transaction_of,
)
from controller.scoreboard import short_name, value_key
from hardware.events import SensorEvent
from rules import (
    Answered,
    Call,
    InvalidInput,
    MatchEnded,
    MatchSetup,
    NewMatch,
    Pocket,
    Referee,
    ShotAmended,
    ShotKind,
    ShotPlayed,
    ShotRecord,
    Status,
    Undone,
)
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
from vocabulary import VERSION

log = logging.getLogger(__name__)

TRANSACTIONS_KEPT = 1024
#: How many letters of a name ``B/display`` shows.
DISPLAY_NAME_CHARS = 6

_RULING = (BallCredited, BallStaysDown, BallSpotted, FoulCalled, PointsMoved, TurnPassed,
           ShooterContinues, OptionChosen, GameWon, GameDrawn, GameRestarted, RulingCorrected)


@dataclass(frozen=True, slots=True)
class Message:
    """One MQTT publication; ``topic`` is relative to the table's base topic."""

    topic: str
    payload: dict[str, Any]
    retain: bool = False
    qos: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "retain": self.retain, "qos": self.qos, "payload": self.payload}


class Table:
    """The pipeline of one table. ``publish`` receives every message, in order."""

    def __init__(
        self,
        publish: Callable[[Message], None],
        *,
        fusion: FusionConfig | None = None,
        match_id: Callable[[int], str] = lambda n: f"m-{n}",
        record: Callable[[dict[str, Any]], None] | None = None,
        seq: int = 0,
        health: Callable[[], dict[str, Any]] | None = None,
        language: str = "en",
    ) -> None:
        self.referee = Referee()
        #: The language of the questions' ``prompt`` (``controller.texts``).
        self.language = language
        self.fusion = Fusion(fusion)
        self.seq = seq
        self.match_id: str | None = None
        self.matches = 0
        self.now = 0.0
        self.ignored_shots = 0
        self._publish = publish
        self._match_id = match_id
        self._record = record
        self._health = health
        self._deferred: list[ShotRecord] = []
        self._last_state: dict[str, Any] | None = None
        self._last_match_id: str | None = None
        # transaction -> (request name, body_of the request or None if unknown, response)
        self._answers: OrderedDict[str, tuple[str, str | None, dict[str, Any]]] = OrderedDict()

    # -------------------------------------------------------------- inputs
    def start(self, t: float) -> None:
        """Publishes what a newly started table publishes: status, state, display."""
        self.now = t
        self.publish_all(t)

    def sensor(self, ev: SensorEvent) -> None:
        """Takes one sensor event (source-time order)."""
        if self._record is not None:
            self._record(ev.to_json())
        self.now = ev.t
        actions = self.fusion.sensor(ev)
        if actions:
            self._apply(ev.t, actions)

    def set_usable(self, channel: str, usable: bool) -> None:
        """Sensor health changed: a beam that is out of order stops counting drops, and for
        each shot the referee is asked whether a ball fell in its pocket."""
        if self._record is not None:
            self._record({"t": round(self.now, 6), "health": channel, "usable": usable})
        actions = self.fusion.set_usable(channel, usable, self.now)
        if actions:
            self._apply(self.now, actions)

    def advance(self, now: float) -> None:
        """Runs the clock to ``now`` (provisional rulings fall due)."""
        if now >= self.fusion.next_deadline:
            self.now = now
            actions = self.fusion.advance(now)
            if actions:
                self._apply(now, actions)

    def settle(self, limit: float = 3600.0) -> None:
        """Runs the clock on until every shot that can settle by itself has settled."""
        end = self.now + limit
        while self.fusion.next_deadline <= end:
            self.advance(self.fusion.next_deadline)

    def request(self, name: str, payload: bytes | str | dict[str, Any], t: float,
                wall: float | None = None) -> dict[str, Any]:
        """Handles one request; publishes its effects and its response, and returns the response.

        ``wall`` is the wall clock's time (Unix seconds) as the request reached the table: a
        request whose ``deadline`` has passed is refused (not checked without ``wall``, as
        when the journal or a trace is replayed). A transaction names one request: the same
        one again is answered as before and not applied again; another request (name or
        body) under it is refused. A refused request changes nothing and is not recorded.
        """
        self.now = t
        tx = transaction_of(payload)
        try:
            req = parse_request(name, payload)
        except BadRequest as exc:
            req, invalid = None, str(exc)
        if tx is not None and tx in self._answers:
            seen_name, seen_body, response = self._answers[tx]
            if seen_name == name and req is not None and seen_body in (None, body_of(req)):
                self._respond(seen_name, dict(response), t)  # applied once, answered again
                return response
            other = "a different request" if seen_name == name else f"a {seen_name} request"
            return self._respond(name, {"status": "error", "transaction": tx, "error": (
                f"transaction {tx!r} was already used for {other}; nothing was done"
                " (a new request needs a new transaction)")}, t)
        if req is None:
            return self._respond(name, {"status": "error", "transaction": tx, "error": invalid}, t)
        if wall is not None and req.deadline is not None and wall > req.deadline:
            return self._respond(name, {"status": "error", "transaction": tx, "error": (
                f"deadline: the request expired {wall - req.deadline:.1f} s before it reached"
                " the table; nothing was done")}, t)
        if self._record is not None:
            self._record({"t": round(t, 6), "request": name, "payload": as_received(req)})
        try:
            data = self._handle(req, t)
            response = {"status": "ok", "transaction": tx, "data": data}
        except (InvalidInput, BadRequest, LookupError) as exc:
            response = {"status": "error", "transaction": tx, "error": str(exc).strip("'\"")}
        except Exception as exc:  # a fault of ours: this request's error, not the table's end
            log.exception("request %s failed", name)
            response = {"status": "error", "transaction": tx,
                        "error": f"the table could not carry out this request ({type(exc).__name__})"}
        if tx is not None:
            self._answers[tx] = (name, body_of(req), response)
            while len(self._answers) > TRANSACTIONS_KEPT:
                self._answers.popitem(last=False)
        return self._respond(name, response, t)

    def refuse(self, name: str, payload: bytes | str | dict[str, Any], reason: str,
               t: float) -> dict[str, Any]:
        """Answers a request that cannot be taken whatever it holds (``reason``), without
        looking further into it; returns the response. Nothing is recorded or changed."""
        self.now = t
        return self._respond(name, {"status": "error", "transaction": transaction_of(payload),
                                    "error": reason}, t)

    # -------------------------------------------------------------- requests
    def _handle(self, req: Any, t: float) -> Any:
        match req:
            case NewMatchRequest():
                return self._new_match(req, t)
            case CallRequest():
                return self._call(req, t)
            case DeclareRequest():
                return self._declare(req, t)
            case ShotEndRequest():
                self._apply(t, self.fusion.shot_end(t), force=True)
                return {"shot": self.referee.state.shot}
            case AnswerRequest():
                decisions = self.referee.feed(Answered(req.question, req.answer))
                self._after(t, decisions)
                self._retry(t)
                return {"questions": [q.id for q in self.referee.questions]}
            case UndoRequest():
                if req.shots > self.referee.shots:
                    raise InvalidInput(f"only {self.referee.shots} shot(s) of this match can be undone")
                self.fusion.forget()
                self._deferred.clear()
                self._after(t, self.referee.feed(Undone(req.shots)))
                return {"shot": self.referee.state.shot}
            case EndMatchRequest():
                decisions = self.referee.feed(MatchEnded())
                self.fusion.forget()
                self._deferred.clear()
                self._after(t, decisions)
                self.match_id = None
                return None
            case GetRequest():
                self.publish_all(t)
                return None
        raise BadRequest(f"unhandled request {req!r}")

    def _new_match(self, req: NewMatchRequest, t: float) -> Any:
        setup = MatchSetup(req.game, tuple(req.players), req.race_to, req.breaker, dict(req.options))
        decisions = self.referee.feed(NewMatch(setup))
        self.fusion.forget()
        self._deferred.clear()
        self.matches += 1
        self.match_id = self._match_id(self.matches)
        self._after(t, decisions)
        return {"match_id": self.match_id}

    def _call(self, req: CallRequest, t: float) -> Any:
        calls = tuple(Call(c.ball, Pocket(c.pocket)) for c in req.calls)
        kind = ShotKind(req.kind)
        if self.referee.state.setup is None:
            raise InvalidInput("no match is in progress: start one with new_match")
        if self.referee.questions:
            q = self.referee.questions[0]
            raise InvalidInput(f"question {q.id} is open ({self.prompt(q.to_json())}): "
                               "answer it first")
        if self.fusion.open_shot and not req.amend:
            # the call ends the shot in progress: the call is judged after its ruling, and a
            # refused call must change nothing, so it is judged on a copy first
            trial = self._trial()
            trial._apply(t, trial.fusion.shot_end(t), force=True)
            if not trial.referee.questions:
                trial.referee.check_call(calls, kind)
            self._apply(t, self.fusion.shot_end(t), force=True)
        self.referee.check_call(calls, kind)
        self._apply(t, self.fusion.call(t, calls, kind, req.manner, amend=req.amend))
        return {"calls": [c.model_dump() for c in req.calls], "kind": req.kind}

    def _trial(self) -> Table:
        """Returns a copy of the table to try an input on: it publishes and records nothing,
        and nothing done to it changes this table."""
        trial = copy.copy(self)
        trial.referee = self.referee.fork()
        trial.fusion = copy.deepcopy(self.fusion)
        trial._deferred = list(self._deferred)
        trial._publish = lambda message: None
        trial._record = None
        return trial

    def _declare(self, req: DeclareRequest, t: float) -> Any:
        facts = req.facts()
        if not facts:
            raise BadRequest("declare names no fact")
        for ball in [*facts.get("off_table", ()), *(b for b, _ in facts.get("pocketed", ()))]:
            self.referee.check_ball(ball)
        if facts.get("first_contact") is not None:
            self.referee.check_ball(facts["first_contact"], cue_allowed=False)
        if "unsportsmanlike" in facts:
            self.referee.check_forfeit(facts["unsportsmanlike"]["player"])
        if self.referee.state.setup is None:
            raise InvalidInput("no match is in progress")
        if not self.fusion.open_shot and not self.referee.shots and not self._deferred:
            raise InvalidInput("no shot has been played to declare facts about")
        self._apply(t, self.fusion.declare(t, facts))
        return {"facts": sorted(facts)}

    # -------------------------------------------------------------- pipeline
    def _apply(self, t: float, actions: list[Action], force: bool = False) -> None:
        for action in actions:
            if isinstance(action, DropSeen):
                self._event("ball_pocketed", {
                    "pocket": action.pocket, "ball": action.ball,
                    "shot": self.referee.state.shot + (0 if action.late else 1)}, action.t)
            elif isinstance(action, RuleShot):
                if self.referee.state.setup is None or self.referee.state.status is Status.MATCH_OVER:
                    self.ignored_shots += 1
                    continue
                if self.referee.questions or self._deferred:
                    self._deferred.append(action.record)
                    continue
                self._rule(action.record, action.t)
            elif isinstance(action, AmendShot):
                if self._deferred:
                    self._deferred[-1] = action.record
                elif self.referee.shots:
                    self._after(action.t, self.referee.feed(ShotAmended(action.record)))

    def _rule(self, record: ShotRecord, t: float) -> None:
        try:
            decisions = self.referee.feed(ShotPlayed(record))
        except InvalidInput as exc:
            self.ignored_shots += 1
            log.warning("shot not ruled: %s", exc)
            return
        self._after(t, decisions)

    def _retry(self, t: float) -> None:
        while self._deferred and not self.referee.questions:
            self._rule(self._deferred.pop(0), t)

    def _after(self, t: float, decisions: list[Decision]) -> None:
        """Publishes the events of these decisions, then the state and the display."""
        state = self.referee.state
        ruling = [d for d in decisions if isinstance(d, _RULING)]
        if ruling:
            self._event("shot_result", {
                "shot": state.shot,
                "corrected": any(isinstance(d, RulingCorrected) for d in ruling),
                "decisions": [d.to_event() for d in decisions
                              if not isinstance(d, QuestionAsked)],
                "to_shoot": state.to_shoot,
                "ball_in_hand": str(state.ball_in_hand),
            }, t)
        for d in decisions:
            kind, data = _event_of(d, self)
            if kind:
                self._event(kind, data, t)
        self._publish_state(t)

    # -------------------------------------------------------------- the service's hooks
    def stamp(self, t: float) -> dict[str, Any]:
        """Returns ``{"v", "seq", "ts"}`` for a message the service publishes itself (seq taken)."""
        return self._next(t)

    def transactions(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Returns the remembered answers, oldest first: ``(transaction, name, response)``."""
        return [(tx, name, response) for tx, (name, _, response) in self._answers.items()]

    def remember(self, tx: str, name: str, response: dict[str, Any]) -> None:
        """Remembers an answer given before a restart, so its transaction is applied once."""
        self._answers[tx] = (name, None, response)
        self._answers.move_to_end(tx)
        while len(self._answers) > TRANSACTIONS_KEPT:
            self._answers.popitem(last=False)

    # -------------------------------------------------------------- publishing
    def _next(self, t: float) -> dict[str, Any]:
        self.seq += 1
        return {"v": 1, "seq": self.seq, "ts": round(t, 6)}

    def _event(self, kind: str, data: dict[str, Any], t: float) -> None:
        self._publish(Message("event", {**self._next(t), "type": kind, "data": data}))

    def _respond(self, name: str, response: dict[str, Any], t: float) -> dict[str, Any]:
        self._publish(Message(f"response/{name}", {**self._next(t), **response}))
        return response

    def prompt(self, question: dict[str, Any]) -> str:
        """Returns a question's text (its snapshot form) in the table's language."""
        players = [p.name for p in self.referee.state.players]
        return texts.prompt(question, players, self.language)

    def snapshot(self, t: float) -> dict[str, Any]:
        return {**self._next(t), "match_id": self.match_id,
                **texts.with_prompts(self.referee.snapshot(), self.language)}

    def _publish_state(self, t: float, force: bool = False) -> None:
        snap = texts.with_prompts(self.referee.snapshot(), self.language)
        if not force and snap == self._last_state and self.match_id == self._last_match_id:
            return  # nothing a subscriber could see has changed
        self._last_state, self._last_match_id = snap, self.match_id
        self._publish(Message("state", {**self._next(t), "match_id": self.match_id, **snap},
                              retain=True))
        self._publish(Message("display", {**self._next(t), **display(snap)}, retain=True))

    def publish_all(self, t: float) -> None:
        """Publishes status, state, display (and health): after a start or a reconnect."""
        status: dict[str, Any] = {"state": "online", "version": VERSION}
        if self._health is not None:
            health = self._health()
            status["health"] = health.get("summary", "ok")
        self._publish(Message("status", {**self._next(t), **status}, retain=True))
        self._publish_state(t, force=True)
        if self._health is not None:
            self._publish(Message("health", {**self._next(t), **self._health()}, retain=True))


def _event_of(d: Decision, table: Table) -> tuple[str | None, dict[str, Any]]:
    state = table.referee.state
    match d:
        case MatchStarted():
            return "match_started", {"match_id": table.match_id, "game": d.game,
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
            return "question", {**question, "prompt": table.prompt(question)}
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


def display(snap: dict[str, Any]) -> dict[str, Any]:
    """Returns the short text for simple LED displays: ``{"text": ..., "lines": [...]}``."""
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
        lines.append(f"{names[snap['winner']]} WINS")
    return {"text": text, "lines": lines}
