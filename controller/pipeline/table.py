"""One table's pipeline: sensor events and requests in, MQTT messages out.

    sensor events ─► Fusion ─► shot records ─► Referee ─► decisions ─► events, state, display
    requests ──────► validation ─────────────────┘
    sensor health ─► Fusion (what a channel out of order counts), events, B/health, B/status

What each input does to the match is ``Play``'s (``play.py``: a shot ruled or held back, an
undo, a redo, a new match); a request is screened by the ``Desk`` and carried out by
``handlers``. No I/O, no clock and no callbacks: every input carries its time (its source's, or the
request's), ``advance(now)`` runs the timers, and every input method *returns* the messages
it caused, in order, numbered (``seq``) by the table. The live service's core
(``controller.service.core``) and ``replay`` drive the same object, through the same ``feed``. Each
``Message`` carries how it is to be published (``Role``, ``live``, ``ends_shot``), decided
here where it is made.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.pipeline.desk import Desk, error
from controller.pipeline.fusion import Fusion, FusionConfig
from controller.pipeline.handlers import handle
from controller.pipeline.history_pace import HistoryPace
from controller.pipeline.messages import Message as Message
from controller.pipeline.messages import Role as Role
from controller.pipeline.messages import status_payload as status_payload
from controller.pipeline.play import Play
from controller.pipeline.publisher import DISPLAY_NAME_CHARS as DISPLAY_NAME_CHARS
from controller.pipeline.publisher import HealthView as HealthView
from controller.pipeline.publisher import Publisher
from controller.pipeline.publisher import display as display
from controller.pipeline.requests import (
    CancelRequest,
    HistorySinceRequest,
    as_received,
    transaction_of,
)
from controller.pipeline.trace import HealthLine, RequestLine
from hardware.events import SensorEvent
from hardware.health import Health, HealthRecord
from rules import Referee


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
        self.now = 0.0
        self._pub = Publisher(language, health)
        #: The match in play: the referee, fusion, and what inputs do to them.
        self.play = Play(self._pub, fusion, match_id, matches)
        self._desk = Desk()
        #: Answers ``history_since(seq, limit, epoch)`` from the journal (the service sets it;
        #: raises LookupError for an epoch the journal is not); a read: neither recorded nor
        #: remembered under its transaction.
        self.history: Callable[[int, int, str | None], dict[str, Any]] | None = None
        #: How often each asker may have ``history_since`` answered.
        self.history_pace = HistoryPace()

    # -------------------------------------------------------------- reading
    @property
    def referee(self) -> Referee:
        """Returns the referee of the match in play."""
        return self.play.referee

    @property
    def fusion(self) -> Fusion:
        """Returns what makes shot records of the sensors' edges."""
        return self.play.fusion

    @property
    def match_id(self) -> str | None:
        """Returns the id of the match in play (None with none)."""
        return self.play.match_id

    @property
    def match_t0(self) -> float | None:
        """Returns the table's time when the match began (None with no match)."""
        return self._pub.match_t0

    @property
    def language(self) -> str:
        """Returns the language of the table's words (``controller.words.texts``)."""
        return self._pub.language

    @property
    def seq(self) -> int:
        """Returns the seq of the last message made (0 before the first)."""
        return self._pub.press.seq

    @property
    def matches(self) -> int:
        """Returns how many matches this table has started, those before a rebuild included."""
        return self.play.matches

    @property
    def next_deadline(self) -> float:
        """Returns when ``advance`` next has work (inf: nothing waits for the clock)."""
        return self.fusion.next_deadline

    def transactions(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Returns the remembered answers as the journal keeps them: ``(transaction, name,
        kept)`` (``Transactions.entries``)."""
        return self._desk.transactions.entries()

    def snapshot(self, t: float) -> dict[str, Any]:
        """Returns the state payload now (a seq taken)."""
        return self._pub.snapshot(self.referee, self.match_id, t)

    # -------------------------------------------------------------- restoring
    def resume_seq(self, seq: int) -> None:
        """Numbers the next message after ``seq`` (never goes back)."""
        self._pub.press.resume(seq)

    def remember(self, tx: str, name: str, kept: dict[str, Any]) -> None:
        """Remembers an answer given before a restart (a ``transactions()`` row), so its
        transaction still names its request."""
        self._desk.transactions.restore(tx, name, kept)

    # -------------------------------------------------------------- inputs
    def start(self, t: float) -> list[Message]:
        """Returns what a newly started table publishes: status, state, display (health)."""
        self.now = t
        return self.publish_all(t)

    def publish_all(self, t: float) -> list[Message]:
        """Returns status, state, display (and health): after a start or a reconnect."""
        self._pub.everything(t, self.referee, self.match_id)
        return self._take()

    def sensor(self, ev: SensorEvent) -> list[Message]:
        """Takes one sensor event (source-time order); returns what it caused. An event with
        ``at`` (it came late) goes to fusion at its own time: what it shows is ruled as if it
        had come on time, correcting a shot already ruled."""
        self.now = ev.t
        actions = self.fusion.sensor(ev if ev.at is None else dataclasses.replace(ev, t=ev.at))
        if actions:
            self.play.apply(actions)
            return self._take()
        return []

    def set_health(self, channel: str, state: Health, t: float) -> list[Message]:
        """A channel's health changed (its trace line: ``HealthLine``): a sensor out of order
        counts nothing, and for each shot the referee is asked what its beam would have said;
        returns the corrections of shots this takes back."""
        self.now = max(self.now, t)
        actions = self.fusion.set_health(channel, state, t)
        if actions:
            self.play.apply(actions)
        return self._take()

    def health(self, records: Sequence[HealthRecord], changed: Mapping[str, Health], t: float,
               *, publish: bool = False) -> list[Message]:
        """Sensor health's news: an event for each record, fusion told of each ``changed``
        channel (``set_health``), then ``B/health`` when there are records or ``publish``, and
        ``B/status`` when the health summary changed. Returns the messages."""
        self._pub.health_events(records, t)
        for channel, state in changed.items():
            actions = self.fusion.set_health(channel, state, t)
            if actions:
                self.play.apply(actions)
        if records or publish:
            self._pub.health(t)
        return self._take()

    def advance(self, now: float) -> list[Message]:
        """Runs the clock to ``now`` (provisional rulings fall due); returns what they caused."""
        if now >= self.fusion.next_deadline:
            self.now = now
            actions = self.fusion.advance(now)
            if actions:
                self.play.apply(actions)
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
        got = self._desk.screen(name, payload, wall)
        if isinstance(got, dict):
            return self._answer(name, got, t)
        if isinstance(got, HistorySinceRequest):  # a read: not recorded, not remembered
            if self.history is None:
                return self._answer(name, error(got.transaction, "this table keeps no history"), t)
            wait = self.history_pace.wait(got.transaction, t)
            if wait > 0:
                return self._answer(name, {**error(got.transaction, f"asked too often: ask again in"
                                                   f" {wait:.1f} s"),
                                           "data": {"retry_after_s": round(wait, 3)}}, t)
            try:
                data = self.history(got.seq, got.limit, got.epoch)
            except LookupError as exc:
                return self._answer(name, error(got.transaction, str(exc)), t)
            return self._answer(name, {"status": "ok", "transaction": got.transaction,
                                       "data": data}, t)
        line = {"t": round(t, 6), "request": name, "payload": as_received(got)}
        if isinstance(got, CancelRequest):  # the desk's own: what it remembers changes
            return self._answer(name, self._desk.carry_out(name, got, lambda: self._desk.cancel(got)),
                                t, line)
        return self._answer(name, self._desk.carry_out(name, got, lambda: handle(self.play, got, t)),
                            t, line)

    def refuse(self, name: str, payload: bytes | str | dict[str, Any], reason: str,
               t: float) -> Handled:
        """Answers a request that cannot be taken whatever it holds (``reason``), without
        looking further into it. Nothing is recorded or changed."""
        self.now = t
        return self._answer(name, error(transaction_of(payload), reason), t)

    # -------------------------------------------------------------- publishing
    def _take(self) -> list[Message]:
        return self._pub.take()

    def _answer(self, name: str, response: dict[str, Any], t: float,
                line: dict[str, Any] | None = None) -> Handled:
        self._pub.press.respond(name, response, t)
        return Handled(response, self._take(), line)

    def stopped(self, t: float) -> list[Message]:
        """Returns the last message of a clean stop: ``B/status`` ``stopped``."""
        self._pub.stopped(t)
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
