"""The evening's live referee: a tablet's console that reads each table's questions and answers
them from what really happened on the table.

The world (``tests.evening.world``) plays a simulated match whose referee's answers are not
handed to the table: each answer line of the simulator's trace becomes a *pause* (``paced``),
a ``get`` request under a transaction of the world's own at the answer's time — the table runs
its clock to there and asks what it asks — after which the players wait until no question is
open at the table (``wait_answered``), as players wait for the referee. The simulator notes
the truth of each question it was asked (``TruthSimulator``: the shot's drops, which ball and
which pocket, and what the referee saw that no sensor sees — the centre line, a contact — or
the player chose), keyed by the answer line it wrote.

``Referee`` is the person at the tablet: it logs in as ``referee`` on the browsers' broker
(through the shipped bridge), reads each table's ``state`` (its open questions, as data:
kind, topic, about, choices), finds the truth of the shot the world is pausing after (by where
the table's world log stands), answers with the request/transaction protocol a console uses
(an ``answer`` under a transaction; unanswered in its time, a ``cancel`` of it, sent again
until the table says which came first), and notes every question for the checker: a question
whose true answer is not among its choices breaks the invariant "a question always offers the
true answer".
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiomqtt

from controller.sim.backend import regulars
from controller.sim.simulator import Simulator
from tests.deploy.venue import password

if TYPE_CHECKING:
    from controller.service.shell import Service
    from tests.evening.world import Seat

Lines = list[dict[str, Any]]
#: An answer line's truth: the question's key fields, the shot's drops, the balls already
#: named in the shot, and the simulator's referee's answer.
Entry = dict[str, Any]
#: The prefix of the world's own transactions (the pauses).
PAUSE = "world-pause-"
#: How long the referee waits for an answer's response before it cancels (seconds).
ANSWER_WITHIN_S = 5.0
#: The topics answered from the shot's drops; every other one from what the referee saw.
DROP_TOPICS = ("which_balls", "ball_fell", "cue_ball")


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def key_of(question: dict[str, Any]) -> tuple[Any, ...]:
    """Returns what a question is (its kind, topic, player, about and count), as data."""
    return (question.get("kind"), question.get("topic"), question.get("player"),
            json.dumps(question.get("about") or {}, sort_keys=True), question.get("count", 1))


class TruthSimulator(Simulator):
    """The simulator, noting the truth of each question it answers (``truths``: by the index
    of the answer line it writes next)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.truths: dict[int, Entry] = {}

    def _truthful(self, q: Any) -> Any:
        named = sorted(self._named, key=str)
        answer = super()._truthful(q)
        self.truths[len(self.lines)] = {
            **_json(q.to_json()), "drops": _json(self._last.drops), "named": _json(named),
            "answer": _json(answer), "on_table": sorted(self.table.referee.state.on_table)}
        return answer


def simulated(seat: Seat) -> list[tuple[Lines, dict[int, Entry]]]:
    """Returns a seat's evening: each match's trace (its answers turned into pauses) and the
    truth of each answer line."""
    out = []
    for n in range(seat.matches):
        sim = TruthSimulator(seat.game, seat.seed + n, False, seat.players, seat.race_to)
        out.append((paced(regulars(sim.play(400)), n), sim.truths))
    return out


#: The match's seconds after its last line when the world pauses once more, at its end: the
#: last shot's quiet window is over by then (the table rules it, and asks what it asks,
#: before the evening counts the match played).
END_S = 10.0


def paced(lines: Lines, match: int) -> Lines:
    """Returns a trace with each ``answer`` line replaced by the world's pause at its time,
    and a last pause ``END_S`` after its last line."""
    out = [{"t": x["t"], "request": "get", "payload": {"transaction": f"{PAUSE}{match}-{i}"}}
           if x.get("request") == "answer" else x for i, x in enumerate(lines)]
    end = max((float(x["t"]) for x in out if "t" in x), default=0.0) + END_S
    return [*out, {"t": end, "request": "get", "payload": {"transaction": f"{PAUSE}{match}-end"}}]


def is_pause(line: dict[str, Any]) -> bool:
    return str((line.get("payload") or {}).get("transaction", "")).startswith(PAUSE)


async def wait_answered(service: Service, handed: dict[str, float], line: dict[str, Any],
                        poll: float = 0.02) -> float:
    """Waits until the table took the pause ``line`` (its clock run to the pause's time) and
    no question is open at the table: the players wait for the referee. Returns how much later
    the rest of the match is played, in the match's seconds: the host's seconds from the
    pause's time (``handed["at"]``: the backend's stamp, on the service's clock; later than
    it when the backend ran late) until now, times the service's speed, so that no line after
    the pause is stamped before the table's clock."""
    started = handed.get("at", service.host_clock())
    tx = line["payload"]["transaction"]
    while not any(t == tx for t, _, _ in service.core.table.transactions()):
        await asyncio.sleep(poll)
    while service.core.table.referee.questions:
        await asyncio.sleep(poll)
    return (service.host_clock() - started) * service.core.time.speed


# ---------------------------------------------------------------------- the referee's judgement
@dataclass
class Asked:
    """One question as the referee read it, and what it answered."""

    t: float
    table: str
    question: str
    topic: str
    answer: Any
    #: the truth of the question was found (the world paused after the shot it is about)
    known: bool
    #: the true answer is among the question's choices
    offered: bool
    detail: str = ""


def judge(question: dict[str, Any], entry: Entry | None) -> tuple[Any, bool, str]:
    """Returns the answer to ``question`` from its truth ``entry`` (None: not known), whether
    the true answer is offered, and what is wrong when it is not."""
    choices = list(question.get("choices") or [])
    topic = question.get("topic")
    count = int(question.get("count", 1))
    if entry is None:
        return (choices[:count] if count > 1 else (choices or [None])[0]), True, ""
    about = question.get("about") or {}
    drops = [(b, p) for b, p in entry["drops"]]
    if topic == "which_balls":
        true = [b for b, p in drops if p == about.get("pocket") and b not in entry["named"]]
        offered = [b for b in true if b in choices]
        if len(offered) < count:
            return entry["answer"], False, (f"which ball fell in {about.get('pocket')}: "
                                            f"{true} fell, {choices} offered")
        return (offered[:count] if count > 1 else offered[0]), True, ""
    if topic == "ball_fell":
        truth: Any = any(p == about.get("pocket") for _, p in drops)
    elif topic == "cue_ball":
        truth = any(b == "cue" and p == about.get("pocket") for b, p in drops)
    else:
        truth = entry["answer"]
    if truth not in choices:
        return entry["answer"], False, f"{topic} {about}: the truth {truth!r} not in {choices}"
    return truth, True, ""


def same_balls(entry: Entry, on_table: list[Any]) -> bool:
    """Whether the table has the balls on it that the simulated one had when it asked, but
    for the shot's own drops (which an earlier answer of the shot may have taken off)."""
    fell = {b for b, _ in entry["drops"]}
    return set(entry["on_table"]) - fell == set(on_table) - fell


def another(question: dict[str, Any], answer: Any, wrong: list[Any]) -> Any:
    """Returns ``answer``, or when the table refused it, the first of the question's choices
    (one ball a drop: a run of them) it did not refuse; None when it refused them all."""
    if answer not in wrong:
        return answer
    choices = list(question.get("choices") or [])
    count = int(question.get("count", 1))
    tries = ([choices[n:n + count] for n in range(len(choices) - count + 1)] if count > 1
             else choices)
    return next((a for a in tries if a not in wrong), None)


def pause_entries(evening: list[tuple[Lines, dict[int, Entry]]], m: int, i: int) -> list[Entry]:
    """Returns the truths of the pauses the world stands before at line ``i`` of match ``m``:
    the first run of pauses from there (the sensor lines before it may not be logged yet)."""
    if m >= len(evening):
        return []
    lines, truths = evening[m]
    out: list[Entry] = []
    for n in range(i, len(lines)):
        if n in truths:
            out.append(truths[n])
        elif out or lines[n].get("request") == "call":
            break
    return out


# ---------------------------------------------------------------------- the tablet
@dataclass
class Referee:
    """The referee's tablet on the browsers' broker (see the module docstring)."""

    port: int
    venue: str
    seats: list[Seat]
    data: Callable[[str], Path]
    clock: Callable[[], float] = time.monotonic
    asked: list[Asked] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    cancels: int = 0
    sent: int = 0
    _evenings: dict[str, list[tuple[Lines, dict[int, Entry]]]] = field(default_factory=dict)
    _decided: dict[tuple[str, str, str, tuple[Any, ...]], Any] = field(default_factory=dict)
    _pending: dict[str, tuple[str, str, Any, float]] = field(default_factory=dict)
    _states: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: the answers the table refused, by (table, question id): the next try is another
    _wrong: dict[tuple[str, str], list[Any]] = field(default_factory=dict)
    _n: int = 0
    _again: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._evenings = {seat.table: simulated(seat) for seat in self.seats}

    def _where(self, table: str) -> tuple[int, int]:
        from tests.evening.world import resume, world_log
        lines = [lines for lines, _ in self._evenings[table]]
        return resume(lines, world_log(self.data(table), table))

    def decide(self, table: str, question: dict[str, Any]) -> Any:
        """Returns the answer to ``question`` at ``table`` (decided once, then kept)."""
        decided = (table, str(question.get("match")), str(question.get("id")), key_of(question))
        if decided in self._decided:
            return self._decided[decided]
        m, i = self._where(table)
        # the truth of the question the simulated table asked: the same question (its id and
        # what it asks) with the same balls on the table (a table that went another way, after
        # an undo or a junk request taken, asks of another match)
        entry = next((e for e in pause_entries(self._evenings[table], m, i)
                      if e["id"] == question.get("id") and key_of(e) == key_of(question)
                      and same_balls(e, question.get("on_table") or [])), None)
        answer, offered, detail = judge(question, entry)
        self.asked.append(Asked(self.clock(), table, str(question.get("id")),
                                str(question.get("topic")), answer, entry is not None, offered,
                                detail))
        self._decided[decided] = answer
        return answer

    async def run(self) -> None:
        """Answers every table's questions until cancelled, reconnecting as a tablet does."""
        while True:
            try:
                async with aiomqtt.Client("127.0.0.1", self.port, transport="websockets",
                                          username="referee", password=password("referee"),
                                          identifier="web-evening-referee", keepalive=5,
                                          timeout=10.0) as client:
                    # what is pending stays pending: cancelled once overdue (a console sends
                    # its cancels again after a reconnection)
                    await client.subscribe(f"billiards/{self.venue}/+/state", qos=1)
                    await client.subscribe(f"billiards/{self.venue}/+/response/+", qos=1)
                    async with asyncio.TaskGroup() as group:
                        group.create_task(self._overdue(client), name="referee-overdue")
                        async for message in client.messages:
                            await self._heard(client, str(message.topic), bytes(message.payload))
                            for table in self._again:
                                for question in self._states.get(table, []):
                                    await self._answer(client, table, question)
                            self._again.clear()
            except (aiomqtt.MqttError, TimeoutError, ExceptionGroup):
                await asyncio.sleep(0.5)

    async def _heard(self, client: aiomqtt.Client, topic: str, payload: bytes) -> None:
        parts = topic.split("/")
        try:
            body = json.loads(payload)
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        table = parts[2]
        if parts[3] == "response":
            self._responded(parts[4], body)
        elif table in self._evenings:
            # a question's id is its match's (q-<shot>-<n>): the match's id goes with it
            self._states[table] = [{**q, "match": body.get("match_id"),
                                    "on_table": body.get("on_table")}
                                   for q in body.get("questions") or [] if isinstance(q, dict)]
            for question in self._states[table]:
                await self._answer(client, table, question)

    async def _answer(self, client: aiomqtt.Client, table: str, question: dict[str, Any]) -> None:
        qid = str(question.get("id"))
        asked = f"{question.get('match')}/{qid}"  # the question in its match
        if any(t == table and q == asked for t, q, _, _ in self._pending.values()):
            return
        wrong = self._wrong.get((table, asked), [])
        answer = another(question, self.decide(table, question), wrong)
        if answer is None:  # every choice refused: left to the table's next state
            return
        self._n += 1
        tx = f"referee-{table}-{qid}-{self._n}"
        self._pending[tx] = (table, asked, answer, self.clock())
        self.sent += 1
        await client.publish(f"billiards/{self.venue}/{table}/request/answer", json.dumps(
            {"v": 1, "question": qid, "answer": answer, "transaction": tx}), qos=1)

    def _responded(self, name: str, body: dict[str, Any]) -> None:
        data = body.get("data") or {}
        tx = str(data.get("cancels") if name == "cancel" else body.get("transaction"))
        pending = self._pending.pop(tx, None)
        if pending is None:
            return
        answer = (data.get("answer") or {}) if name == "cancel" else body
        if name == "cancel" and data.get("cancelled"):  # it never reached the table: again
            self._again.add(pending[0])
        elif answer.get("status") == "error":
            self.refused.append(f"{pending[0]} {pending[1]}: {answer.get('error')}")
            self._wrong.setdefault((pending[0], pending[1]), []).append(pending[2])
            self._again.add(pending[0])
        elif answer.get("status") == "ok":
            self._wrong.pop((pending[0], pending[1]), None)

    async def _overdue(self, client: aiomqtt.Client) -> None:
        """Cancels each answer not answered in its time (again each time), as a console does."""
        while True:
            await asyncio.sleep(0.5)
            now = self.clock()
            for tx, (table, qid, answer, sent) in list(self._pending.items()):
                if now - sent < ANSWER_WITHIN_S:
                    continue
                self._pending[tx] = (table, qid, answer, now)
                self.cancels += 1
                await client.publish(f"billiards/{self.venue}/{table}/request/cancel",
                                     json.dumps({"v": 1, "cancels": tx,
                                                 "transaction": f"cancel-{tx}"}), qos=1)
