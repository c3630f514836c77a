"""One table's pipeline: sensor events and requests in, MQTT messages out.

    sensor events ─► Fusion ─► shot records ─► Referee ─► decisions ─► events, state, display
    requests ──────► validation ─────────────────┘
    sensor health ─► Fusion (what a channel out of order counts), events, B/health, B/status

No I/O, no clock and no callbacks: every input carries its time (its source's, or the
request's), ``advance(now)`` runs the timers, and every input method *returns* the messages
it caused, in order, numbered (``seq``) by the table. The live service's core
(``controller.service.core``) and ``replay`` drive the same object, through the same ``feed``. Each
``Message`` carries how it is to be published (``Role``, ``live``, ``ends_shot``), decided
here where it is made.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from controller.pipeline.fusion import Action, AmendShot, DropSeen, Fusion, FusionConfig, RuleShot
from controller.pipeline.requests import (
    AnswerRequest,
    BadRequest,
    CallRequest,
    DeclareRequest,
    EndMatchRequest,
    GetRequest,
    HistorySinceRequest,
    NewMatchRequest,
    RedoRequest,
    Request,
    ShotEndRequest,
    UndoRequest,
    as_received,
    body_of,
    parse_request,
    transaction_of,
)
from controller.pipeline.scoreboard import say, short_name, value_key
from controller.pipeline.trace import HealthLine, RequestLine
from controller.words import texts
from hardware.events import SensorEvent
from hardware.health import Health, HealthRecord
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


class Role(enum.StrEnum):
    """What a message is to its subscribers, which says how long it may wait to be delivered."""

    RETAINED = "retained"  # status, state, display, health: the latest replaces the older
    EVENT = "event"  # B/event: expires after ``mqtt.event_expiry_s``
    RESPONSE = "response"  # B/response/<name>: also to the request's response topic (MQTT 5)


@dataclass(frozen=True, slots=True)
class Message:
    """One MQTT publication; ``topic`` is relative to the table's base topic.

    ``live``: news of the sensors, not a ruling (``ball_pocketed``): it may be published once
    its input is written, before the sync. ``ends_shot``: the first ruling of a shot (sensor
    health counts a shot of play).
    """

    topic: str
    payload: dict[str, Any]
    retain: bool = False
    qos: int = 1
    role: Role = Role.RETAINED
    live: bool = False
    ends_shot: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"topic": self.topic, "retain": self.retain, "qos": self.qos, "payload": self.payload}


StatusState = Literal["online", "offline", "stopped"]


def status_payload(state: StatusState, health: Mapping[str, object] | None = None) -> dict[str, Any]:
    """Returns the body of ``B/status`` (without ``v``/``seq``/``ts``): the service's state, its
    version and, when known, the health summary."""
    out: dict[str, Any] = {"state": state, "version": VERSION}
    if health is not None:
        out["health"] = dict(health)
    return out


class HealthView(Protocol):
    """What the table reads of sensor health to publish it (``hardware.health.HealthMonitor``)."""

    def snapshot(self) -> dict[str, object]: ...

    def summary(self) -> dict[str, object]: ...


@dataclass(frozen=True, slots=True)
class Handled:
    """What one request did: its ``response``, the ``messages`` it caused (the response
    among them), and ``line``, its trace line, when it reached the referee (None when it
    was refused or was a transaction already answered: nothing to record)."""

    response: dict[str, Any]
    messages: list[Message]
    line: dict[str, Any] | None


class Table:
    """The pipeline of one table (see the module docstring).

    ``match_id`` names the n-th match; ``matches`` is how many came before (a rebuilt
    table); ``health`` is read when the table publishes its health.
    """

    def __init__(
        self,
        *,
        fusion: FusionConfig | None = None,
        match_id: Callable[[int], str] = lambda n: f"m-{n}",
        matches: int = 0,
        health: HealthView | None = None,
        language: str = "en",
    ) -> None:
        self.referee = Referee()
        #: The language of the questions' ``prompt`` (``controller.words.texts``).
        self.language = language
        self.fusion = Fusion(fusion)
        self.match_id: str | None = None
        self.now = 0.0
        self._seq = 0
        self._matches = matches
        self._match_id = match_id
        self._health = health
        self._status_health: dict[str, object] | None = None  # the summary last in B/status
        self._out: list[Message] = []
        self._deferred: list[ShotRecord] = []
        # the referee as it was before each undo, newest last, with what the undo left (redo)
        self._undone: list[tuple[Referee, tuple[object, ...]]] = []
        self._last_state: dict[str, Any] | None = None
        self._last_match_id: str | None = None
        #: Answers ``history_since(seq, limit)`` from the journal (the service sets it); a read:
        #: neither recorded nor remembered under its transaction.
        self.history: Callable[[int, int], dict[str, Any]] | None = None
        # transaction -> (request name, body_of the request or None if unknown, response)
        self._answers: OrderedDict[str, tuple[str, str | None, dict[str, Any]]] = OrderedDict()

    # -------------------------------------------------------------- reading
    @property
    def seq(self) -> int:
        """Returns the seq of the last message made (0 before the first)."""
        return self._seq

    @property
    def matches(self) -> int:
        """Returns how many matches this table has started, those before a rebuild included."""
        return self._matches

    @property
    def next_deadline(self) -> float:
        """Returns when ``advance`` next has work (inf: nothing waits for the clock)."""
        return self.fusion.next_deadline

    def transactions(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Returns the remembered answers, oldest first: ``(transaction, name, response)``."""
        return [(tx, name, response) for tx, (name, _, response) in self._answers.items()]

    def snapshot(self, t: float) -> dict[str, Any]:
        """Returns the state payload now (a seq taken)."""
        return {**self._stamp(t), "match_id": self.match_id, "language": self.language,
                **texts.with_prompts(self.referee.snapshot(), self.language)}

    def prompt(self, question: dict[str, Any]) -> str:
        """Returns a question's text (its snapshot form) in the table's language."""
        players = [p.name for p in self.referee.state.players]
        return texts.prompt(question, players, self.language)

    # -------------------------------------------------------------- restoring
    def resume_seq(self, seq: int) -> None:
        """Numbers the next message after ``seq`` (never goes back)."""
        self._seq = max(self._seq, seq)

    def remember(self, tx: str, name: str, response: dict[str, Any]) -> None:
        """Remembers an answer given before a restart, so its transaction is applied once."""
        self._answers[tx] = (name, None, response)
        self._answers.move_to_end(tx)
        while len(self._answers) > TRANSACTIONS_KEPT:
            self._answers.popitem(last=False)

    # -------------------------------------------------------------- inputs
    def start(self, t: float) -> list[Message]:
        """Returns what a newly started table publishes: status, state, display (health)."""
        self.now = t
        return self.publish_all(t)

    def publish_all(self, t: float) -> list[Message]:
        """Returns status, state, display (and health): after a start or a reconnect."""
        self._publish_all(t)
        return self._take()

    def sensor(self, ev: SensorEvent) -> list[Message]:
        """Takes one sensor event (source-time order); returns what it caused. An event with
        ``at`` (it came late) goes to fusion at its own time: what it shows is ruled as if it
        had come on time, correcting a shot already ruled."""
        self.now = ev.t
        actions = self.fusion.sensor(ev if ev.at is None else dataclasses.replace(ev, t=ev.at))
        if actions:
            self._apply(actions)
            return self._take()
        return []

    def set_health(self, channel: str, state: Health, t: float) -> list[Message]:
        """A channel's health changed (its trace line: ``HealthLine``): a sensor out of order
        counts nothing, and for each shot the referee is asked what its beam would have said;
        returns the corrections of shots this takes back."""
        self.now = max(self.now, t)
        actions = self.fusion.set_health(channel, state, t)
        if actions:
            self._apply(actions)
        return self._take()

    def health(self, records: Sequence[HealthRecord], changed: Mapping[str, Health], t: float,
               *, publish: bool = False) -> list[Message]:
        """Sensor health's news: an event for each record, fusion told of each ``changed``
        channel (``set_health``), then ``B/health`` when there are records or ``publish``, and
        ``B/status`` when the health summary changed. Returns the messages."""
        for rec in records:
            self._event(rec.event_type, rec.to_json(), t)
        for channel, state in changed.items():
            actions = self.fusion.set_health(channel, state, t)
            if actions:
                self._apply(actions)
        health = self._health
        if health is not None and (records or publish):
            self._publish_health(health, t)
            summary = health.summary()
            if summary != self._status_health:  # a sensor's fault, a link down (journal)
                self._publish_status(t, summary)
        return self._take()

    def advance(self, now: float) -> list[Message]:
        """Runs the clock to ``now`` (provisional rulings fall due); returns what they caused."""
        if now >= self.fusion.next_deadline:
            self.now = now
            actions = self.fusion.advance(now)
            if actions:
                self._apply(actions)
                return self._take()
        return []

    def settle(self, limit: float = 3600.0) -> list[Message]:
        """Runs the clock on until every shot that can settle by itself has settled; returns
        what that caused."""
        out: list[Message] = []
        end = self.now + limit
        while self.fusion.next_deadline <= end:
            out += self.advance(self.fusion.next_deadline)
        return out

    def request(self, name: str, payload: bytes | str | dict[str, Any], t: float,
                wall: float | None = None) -> Handled:
        """Handles one request: its effects, and its response (also among the messages).

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
                return self._answer(seen_name, dict(response), t)  # applied once, answered again
            other = "a different request" if seen_name == name else f"a {seen_name} request"
            return self._answer(name, {"status": "error", "transaction": tx, "error": (
                f"transaction {tx!r} was already used for {other}; nothing was done"
                " (a new request needs a new transaction)")}, t)
        if req is None:
            return self._answer(name, {"status": "error", "transaction": tx, "error": invalid}, t)
        if wall is not None and req.deadline is not None and wall > req.deadline:
            return self._answer(name, {"status": "error", "transaction": tx, "error": (
                f"deadline: the request expired {wall - req.deadline:.1f} s before it reached"
                " the table; nothing was done")}, t)
        if isinstance(req, HistorySinceRequest):
            if self.history is None:
                return self._answer(name, {"status": "error", "transaction": tx,
                                           "error": "this table keeps no history"}, t)
            return self._answer(name, {"status": "ok", "transaction": tx,
                                       "data": self.history(req.seq, req.limit)}, t)
        line = {"t": round(t, 6), "request": name, "payload": as_received(req)}
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
        return self._answer(name, response, t, line)

    def refuse(self, name: str, payload: bytes | str | dict[str, Any], reason: str,
               t: float) -> Handled:
        """Answers a request that cannot be taken whatever it holds (``reason``), without
        looking further into it. Nothing is recorded or changed."""
        self.now = t
        return self._answer(name, {"status": "error", "transaction": transaction_of(payload),
                                   "error": reason}, t)

    # -------------------------------------------------------------- requests
    def _handle(self, req: Request, t: float) -> Any:
        match req:
            case NewMatchRequest():
                return self._new_match(req, t)
            case CallRequest():
                return self._call(req, t)
            case DeclareRequest():
                return self._declare(req, t)
            case ShotEndRequest():
                if not self.fusion.open_shot:  # nothing reached a sensor: an empty shot
                    self._ready_for_a_shot()
                self._apply(self.fusion.shot_end(t))
                return {"shot": self.referee.state.shot}
            case AnswerRequest():
                decisions = self.referee.feed(Answered(req.question, req.answer))
                self._after(t, decisions)
                self._retry(t)
                return {"questions": [q.id for q in self.referee.questions]}
            case UndoRequest():
                if req.shots > self.referee.shots:
                    raise InvalidInput(f"only {self.referee.shots} shot(s) of this match can be undone")
                before = self.referee.fork()
                self.fusion.forget()
                self._deferred.clear()
                self._after(t, self.referee.feed(Undone(req.shots)))
                self._undone.append((before, self._redo_mark()))
                return {"shot": self.referee.state.shot}
            case RedoRequest():
                return self._redo(t)
            case EndMatchRequest():
                decisions = self.referee.feed(MatchEnded())
                self.fusion.forget()
                self._deferred.clear()
                self._after(t, decisions)
                self.match_id = None
                return None
            case GetRequest():
                self._publish_all(t)
                return None
        raise BadRequest(f"unhandled request {req!r}")

    def _redo_mark(self) -> tuple[object, ...]:
        """Returns what says nothing was played, answered or corrected since an undo: the
        referee's state and open questions, which every such input replaces."""
        return (self.referee.state, self.referee.questions, self.match_id)

    def _redo(self, t: float) -> Any:
        """Gives back the referee as it was before the last undo; refused once anything else
        has changed the match since (the undone shots are then gone for good)."""
        while self._undone:
            before, mark = self._undone[-1]
            now = self._redo_mark()
            if all(a is b for a, b in zip(mark, now, strict=True)):
                break
            self._undone.clear()
        if not self._undone:
            raise InvalidInput("nothing to redo: no undo since the last shot, answer or correction")
        self._undone.pop()
        self.referee = before
        self.fusion.forget()
        self._deferred.clear()
        self._event("redo", {"shot": self.referee.state.shot}, t)
        self._publish_state(t)
        return {"shot": self.referee.state.shot}

    def _new_match(self, req: NewMatchRequest, t: float) -> Any:
        setup = MatchSetup(req.game, tuple(req.players), req.race_to, req.breaker, dict(req.options))
        decisions = self.referee.feed(NewMatch(setup))
        self.fusion.forget()
        self._deferred.clear()
        self._matches += 1
        self.match_id = self._match_id(self._matches)
        self._after(t, decisions)
        return {"match_id": self.match_id}

    def _ready_for_a_shot(self) -> None:
        """Raises InvalidInput when no shot can be played now: no match, the match over, a
        question open."""
        state = self.referee.state
        if state.setup is None:
            raise InvalidInput("no match is in progress: start one with new_match")
        if state.status is Status.MATCH_OVER:
            raise InvalidInput("the match is over: start a new one with new_match")
        if self.referee.questions:
            q = self.referee.questions[0]
            raise InvalidInput(f"question {q.id} is open ({self.prompt(q.to_json())}): "
                               "answer it first")

    def _call(self, req: CallRequest, t: float) -> Any:
        calls = tuple(Call(c.ball, Pocket(c.pocket)) for c in req.calls)
        kind = ShotKind(req.kind)
        self._ready_for_a_shot()
        if self.fusion.open_shot and not req.amend:
            # the call ends the shot in progress: the call is judged after its ruling, and a
            # refused call must change nothing, so it is judged on a copy first
            trial = self._trial()
            trial._apply(trial.fusion.shot_end(t))
            if not trial.referee.questions:
                trial.referee.check_call(calls, kind)
            self._apply(self.fusion.shot_end(t))
        self.referee.check_call(calls, kind)
        self._apply(self.fusion.call(t, calls, kind, req.manner, amend=req.amend))
        return {"calls": [c.model_dump() for c in req.calls], "kind": req.kind}

    def _trial(self) -> Table:
        """Returns a copy of the table to try an input on: what it makes is dropped, and
        nothing done to it changes this table."""
        trial = copy.copy(self)
        trial.referee = self.referee.fork()
        trial.fusion = copy.deepcopy(self.fusion)
        trial._deferred = list(self._deferred)
        trial._out = []
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
        # with no shot yet, the facts wait for the first (a shot_end rules it if nothing
        # reached a sensor)
        self._apply(self.fusion.declare(t, facts, self._shot_named(req.shot)))
        return {"facts": sorted(facts)} | ({} if req.shot is None else {"shot": req.shot})

    def _shot_named(self, shot: int | None) -> str | None:
        """Returns which shot a declare's ``shot`` names for fusion: ``"next"`` (the shot in
        play, or to come), ``"last"`` (the one just ruled, no shot being in play), or None
        when unnamed. Raises InvalidInput for any other shot."""
        if shot is None:
            return None
        ruled = self.referee.state.shot
        if shot == ruled + 1:
            return "next"
        if shot == ruled and ruled > 0 and not self.fusion.open_shot:
            return "last"
        now = (f"shot {ruled + 1} is in play" if self.fusion.open_shot
               else f"shot {ruled} was the last ruled, shot {ruled + 1} is to come")
        raise InvalidInput(f"shot {shot} cannot take facts now ({now}); nothing was done")

    # -------------------------------------------------------------- pipeline
    def _apply(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, DropSeen):
                self._event("ball_pocketed", {
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
                    self._after(action.t, self.referee.feed(ShotAmended(action.record)))

    def _rule(self, record: ShotRecord, t: float) -> None:
        try:
            decisions = self.referee.feed(ShotPlayed(record))
        except InvalidInput as exc:
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
            corrected = any(isinstance(d, RulingCorrected) for d in ruling)
            self._event("shot_result", {
                "shot": state.shot,
                "corrected": corrected,
                "decisions": [d.to_event() for d in decisions
                              if not isinstance(d, QuestionAsked)],
                "to_shoot": state.to_shoot,
                "ball_in_hand": str(state.ball_in_hand),
            }, t, ends_shot=not corrected)
        for d in decisions:
            kind, data = _event_of(d, self)
            if kind:
                self._event(kind, data, t)
        self._publish_state(t)

    # -------------------------------------------------------------- publishing
    def _take(self) -> list[Message]:
        out, self._out = self._out, []
        return out

    def _stamp(self, t: float) -> dict[str, Any]:
        self._seq += 1
        return {"v": 1, "seq": self._seq, "ts": round(t, 6)}

    def _event(self, kind: str, data: dict[str, Any], t: float, *, live: bool = False,
               ends_shot: bool = False) -> None:
        self._out.append(Message("event", {**self._stamp(t), "type": kind, "data": data},
                                 role=Role.EVENT, live=live, ends_shot=ends_shot))

    def _respond(self, name: str, response: dict[str, Any], t: float) -> None:
        self._out.append(Message(f"response/{name}", {**self._stamp(t), **response},
                                 role=Role.RESPONSE))

    def _answer(self, name: str, response: dict[str, Any], t: float,
                line: dict[str, Any] | None = None) -> Handled:
        self._respond(name, response, t)
        return Handled(response, self._take(), line)

    def _publish_state(self, t: float, force: bool = False) -> None:
        snap = texts.with_prompts(self.referee.snapshot(), self.language)
        if not force and snap == self._last_state and self.match_id == self._last_match_id:
            return  # nothing a subscriber could see has changed
        self._last_state, self._last_match_id = snap, self.match_id
        self._out.append(Message("state", {**self._stamp(t), "match_id": self.match_id,
                                           "language": self.language, **snap}, retain=True))
        self._out.append(Message("display", {**self._stamp(t), **display(snap, self.language)},
                                 retain=True))

    def _publish_status(self, t: float, health: dict[str, object] | None) -> None:
        self._status_health = health
        self._out.append(Message("status", {**self._stamp(t), **status_payload("online", health)},
                                 retain=True))

    def _publish_health(self, health: HealthView, t: float) -> None:
        self._out.append(Message("health", {**self._stamp(t), **health.snapshot(),
                                            "summary": health.summary()}, retain=True))

    def _publish_all(self, t: float) -> None:
        health = self._health
        self._publish_status(t, None if health is None else health.summary())
        self._publish_state(t, force=True)
        if health is not None:
            self._publish_health(health, t)

    def stopped(self, t: float) -> list[Message]:
        """Returns the last message of a clean stop: ``B/status`` ``stopped``."""
        self._out.append(Message("status", {**self._stamp(t), **status_payload("stopped")},
                                 retain=True))
        return self._take()


TraceInput = SensorEvent | RequestLine | HealthLine


def feed(table: Table, item: TraceInput) -> list[Message]:
    """Feeds one recorded input to a table as it reached the live table: the clock first runs
    up to the input's time. Returns the messages it caused. (``replay`` and the service's
    rebuild from its journal both feed this way, so a replay rules as the table did.)"""
    if type(item) is SensorEvent:
        return table.sensor(item)  # fusion runs its own clock up to a sensor event
    out = table.advance(item.t)
    if isinstance(item, HealthLine):
        return out + table.set_health(item.channel, item.state, item.t)
    assert isinstance(item, RequestLine)
    return out + table.request(item.name, item.payload, item.t).messages


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
