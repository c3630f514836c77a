"""The venue recorder: one persistent MQTT 5 session that stores every table's messages once.

It subscribes (QoS 1, ``clean_start = false``, a session expiry of ``SESSION_EXPIRY_S``, so
the broker keeps what comes while it is down for a night) to every table's status, state,
event, display, health and responses, and acknowledges a message only once it is committed
to the store: a ``kill -9`` loses nothing the broker will not send again, and what comes
again is ignored (keyed by venue, table, the table's journal's epoch and seq: a replaced Pi's
new journal numbers from 1 again). A table's epoch's seqs are complete up to a point; past it,
a gap is asked of the table with ``history_since`` naming the epoch (answered from its
journal), and what the journal no longer holds is recorded as a gap, never made up. An older
epoch is asked for once more, and when the table refuses it (its journal is another now),
its unheard seqs are a gap, and so is whatever came after its last heard message, unless that
was the table's clean stop.

On the first message of a match and at the end of one it publishes, retained,
``<prefix>/<venue>/<table>/session``: ``{"v": 1, "playing": bool, "match_id", "ts"}``
(what a club's billing reads; ``controller.record.stats`` lists the sessions). When a match
is summed up, and on each connection, it publishes each venue's roster, retained, on
``<prefix>/<venue>/roster`` (``controller.record.roster``): the names a console offers.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.record import roster
from controller.record.stats import summarize_finished
from controller.record.store import Key, Lost, Progress, Store, Stored
from controller.service.connection import AckingClient, Backoff, Broker, publish
from controller.service.published import HISTORY_REQUEST, published_form

log = logging.getLogger(__name__)

#: How long the broker keeps the recorder's session (and its messages) while it is away.
SESSION_EXPIRY_S = 3 * 24 * 3600
#: The topics of each table the record keeps (``+`` for the table's base's two levels).
TOPICS = ("status", "state", "event", "display", "health", "response/+")
#: At most this many messages are committed together.
BATCH = 500
#: Why an older epoch's unheard seqs are lost.
REPLACED = "not in the table's journal: a new journal (epoch) replaced it"
#: Why whatever an older epoch published after its last heard message is lost (if anything).
UNHEARD = "after the last heard, if any: a new journal (epoch) replaced it"
#: How many messages one ``history_since`` asks for.
FILL_LIMIT = 500
#: A ``history_since`` not answered in this long is asked again.
FILL_TIMEOUT_S = 5.0
RECEIVE_MAX = 1000


@dataclass
class Counters:
    """What the recorder did, for its log and the tests."""

    received: int = 0
    stored: int = 0
    duplicates: int = 0
    fills: int = 0
    lost: int = 0
    connections: int = 0


@dataclass
class _Table:
    progress: Progress
    asked: float = 0.0  # when a history_since was last sent (0: none waiting)
    # its last history_since askings not yet answered (a table away long is asked often)
    txs: deque[str] = field(default_factory=lambda: deque(maxlen=16))


@dataclass
class Recorder:
    """Records every table under ``prefix`` on ``broker`` into ``store`` until cancelled."""

    store: Store
    broker: Broker
    prefix: str = "billiards"
    client_id: str = "billiards-recorder"
    reconnect: tuple[float, float] = (0.5, 30.0)
    counters: Counters = field(default_factory=Counters)
    _tables: dict[Key, _Table] = field(default_factory=dict)
    _numbers: itertools.count[int] = field(default_factory=itertools.count)

    async def run(self) -> None:
        for key, progress in (await asyncio.to_thread(self.store.progress)).items():
            self._tables[key] = _Table(progress)
        backoff = Backoff(*self.reconnect)
        while True:
            try:
                async with self._client() as client:
                    for topic in TOPICS:
                        await client.subscribe(f"{self.prefix}/+/+/{topic}", qos=1)
                    self.counters.connections += 1
                    backoff.reset()
                    log.info("recording %s/# from %s", self.prefix, self.broker.address)
                    for key, t in self._tables.items():
                        t.asked = 0.0
                        await self._fill(client, key)
                    await self._rosters(client, {venue for venue, _, _ in self._tables})
                    await self._read(client)
            except aiomqtt.MqttError as exc:
                delay = backoff.next()
                log.warning("the broker at %s: %s; again in %.1f s", self.broker.address, exc, delay)
                await asyncio.sleep(delay)

    def _client(self) -> AckingClient:
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = SESSION_EXPIRY_S
        props.ReceiveMaximum = RECEIVE_MAX
        return AckingClient(0, self.broker.host, self.broker.port, identifier=self.client_id,
                            username=self.broker.username, password=self.broker.password,
                            protocol=aiomqtt.ProtocolVersion.V5, clean_start=False,
                            properties=props, timeout=10.0)

    async def _read(self, client: AckingClient) -> None:
        queue: asyncio.Queue[aiomqtt.Message] = client._queue  # noqa: SLF001 (AckingClient's)
        while True:
            try:
                async with asyncio.timeout(1.0):
                    batch = [await queue.get()]
            except TimeoutError:
                await self._retry_fills(client)
                continue
            while len(batch) < BATCH and not queue.empty():
                batch.append(queue.get_nowait())
            await self._take(client, batch)
            for message in batch:
                client.ack(message)
            await self._retry_fills(client, only_late=True)

    async def _take(self, client: AckingClient, batch: list[aiomqtt.Message]) -> None:
        """Stores one batch of messages (and what the fills among them answered)."""
        items: dict[tuple[str, str, str, int], Stored] = {}
        fills: list[tuple[Key, dict[str, Any]]] = []
        heard: dict[Key, float] = {}  # each epoch's last message here, in order of arrival
        now = time.time()
        for i, message in enumerate(batch):
            self.counters.received += 1
            parts = message.topic.value.split("/", 3)
            if len(parts) < 4 or not isinstance(message.payload, bytes | bytearray):
                continue
            _, venue, table, rest = parts
            form = published_form(message.topic.value, bytes(message.payload))
            if form is None:
                continue  # a Last Will, a stranger's message: no seq
            seq, payload = form
            body = json.loads(payload)
            epoch = body.get("epoch") if isinstance(body.get("epoch"), str) else ""
            items[(venue, table, epoch, seq)] = Stored(venue, table, seq, rest, body, epoch)
            heard[(venue, table, epoch)] = now + i * 1e-6
            if rest == f"response/{HISTORY_REQUEST}":
                reply = json.loads(message.payload)
                # an answer to any of its askings since the last answer is taken, a late one
                # too: a busy table may answer slower than FILL_TIMEOUT_S, and asking again
                # must not leave the answer that then comes unmatched, for ever
                fills += [(key, reply) for key, t in self._tables.items()
                          if key[:2] == (venue, table) and reply.get("transaction") in t.txs]
        for (venue, table, epoch), reply in fills:
            for m in (reply.get("data") or {}).get("messages") or ():
                items.setdefault((venue, table, epoch, m["seq"]), Stored(
                    venue, table, m["seq"], m["topic"], m["payload"], epoch))
        ordered = sorted(items.values(), key=lambda m: (m.venue, m.table, m.epoch, m.seq))
        progress, lost = self._advance(ordered, fills, heard)
        new = await asyncio.to_thread(self.store.add, ordered, lost=lost, progress=progress)
        self.counters.stored += len(new)
        self.counters.duplicates += len(ordered) - len(new)
        self.counters.lost += sum(b - a + 1 for *_, a, b, _ in lost if b is not None)
        await asyncio.to_thread(summarize_finished, self.store)
        await self._rosters(client, await asyncio.to_thread(roster.assign, self.store))
        await self._sessions(client, new)
        for key, t in self._tables.items():
            if not t.asked:
                await self._fill(client, key)

    def _advance(self, ordered: list[Stored], fills: list[tuple[Key, dict[str, Any]]],
                 heard: dict[Key, float]) -> tuple[dict[Key, Progress], list[Lost]]:
        """Returns each table's epochs' new progress and the seq ranges found lost
        (``heard``: when each epoch's last message came, to tell the table's own)."""
        changed: dict[Key, Progress] = {}
        lost: list[Lost] = []
        by_table: dict[Key, list[int]] = {}
        for m in ordered:
            by_table.setdefault((m.venue, m.table, m.epoch), []).append(m.seq)
        for key, seqs in by_table.items():  # first: the epoch heard last is the table's
            t = self._tables.setdefault(key, _Table(Progress(0, 0)))
            t.progress = dataclasses.replace(t.progress, high=max(t.progress.high, seqs[-1]),
                                             heard=heard.get(key, t.progress.heard))
        for key, reply in fills:
            t = self._tables[key]
            t.asked = 0.0
            t.txs.clear()
            data = reply.get("data") if reply.get("status") == "ok" else None
            if isinstance(data, dict):
                lost += self._filled(key, t, data, set(by_table.get(key, ())))
            elif key[2] != self._newest(key[0], key[1]):
                lost += self._replaced(key, t, set(by_table.get(key, ())))
            else:
                log.error("%s/%s cannot fill its gap: %s", key[0], key[1], reply.get("error"))
                continue
            changed[key] = t.progress
        for key, seqs in by_table.items():
            t = self._tables[key]
            done = t.progress.complete_upto
            for s in seqs:
                if s == done + 1:
                    done = s
            t.progress = dataclasses.replace(t.progress, complete_upto=done)
            changed[key] = t.progress
        return changed, lost

    def _filled(self, key: Key, t: _Table, data: dict[str, Any], have: set[int]) -> list[Lost]:
        """Takes a table's answer to a fill: returns the seqs its journal does not hold."""
        venue, table, epoch = key
        done = max(t.progress.complete_upto, int(data.get("since") or 0))
        upto = max(done, int(data["upto"]))
        have |= set(self.store.seqs_between(venue, table, epoch, done, upto))
        first = int(data.get("first") or 0)
        lost: list[Lost] = []
        for a, b in _missing(done + 1, upto, have):
            why = ("no longer in the table's journal" if b < first
                   else "never written to the table's journal")
            lost.append((venue, table, epoch, a, b, why))
            log.warning("%s/%s: seqs %d-%d are lost (%s)", venue, table, a, b, why)
        t.progress = dataclasses.replace(t.progress, complete_upto=upto,
                                         high=max(t.progress.high, upto))
        return lost

    def _replaced(self, key: Key, t: _Table, have: set[int]) -> list[Lost]:
        """An older epoch the table no longer answers for: returns its unheard seqs, lost,
        and all after its last heard unless that was the table's clean stop."""
        venue, table, epoch = key
        done, high = t.progress.complete_upto, t.progress.high
        # the seqs stored, and those of this batch (stored with the gaps, after this)
        have |= set(self.store.seqs_between(venue, table, epoch, done, high))
        lost: list[Lost] = [(venue, table, epoch, a, b, REPLACED)
                            for a, b in _missing(done + 1, high, have)]
        last = self.store.messages(venue, table, high, high, epoch)
        if not (last and last[0].topic == "status" and last[0].payload.get("state") == "stopped"):
            lost.append((venue, table, epoch, high + 1, None, UNHEARD))
        for _, _, _, a, b, why in lost:
            log.warning("%s/%s epoch %r: seqs %d-%s are lost (%s)", venue, table, epoch, a,
                        "" if b is None else b, why)
        t.progress = Progress(high, high, t.progress.heard, closed=True)
        return lost

    def _newest(self, venue: str, table: str) -> str:
        """Returns the epoch of the table's journal heard last: the table's own."""
        return max(((t.progress.heard, key[2]) for key, t in self._tables.items()
                    if key[:2] == (venue, table)), default=(0.0, ""))[1]

    async def _fill(self, client: aiomqtt.Client, key: Key) -> None:
        """Asks the table for what is missing of an epoch, and for an older epoch's end."""
        t = self._tables[key]
        venue, table, epoch = key
        complete = t.progress.complete_upto >= t.progress.high
        if t.progress.closed or (complete and epoch == self._newest(venue, table)):
            return
        tx = f"{self.client_id}-{next(self._numbers)}-{time.time():.0f}"
        t.txs.append(tx)
        t.asked = time.monotonic()
        self.counters.fills += 1
        body: dict[str, Any] = {"v": 1, "seq": t.progress.complete_upto, "limit": FILL_LIMIT,
                                "transaction": tx, "deadline": time.time() + 60}
        if epoch or self._newest(venue, table):  # a table without epochs knows no "epoch"
            body["epoch"] = epoch
        await publish(client, f"{self.prefix}/{venue}/{table}/request/{HISTORY_REQUEST}",
                             json.dumps(body), qos=1)

    async def _retry_fills(self, client: aiomqtt.Client, only_late: bool = False) -> None:
        """Asks again where an answer is late (a table restarting, a lost response), and,
        unless ``only_late``, wherever a gap is left."""
        now = time.monotonic()
        for key, t in self._tables.items():
            late = t.asked and now - t.asked > FILL_TIMEOUT_S
            if late or (not t.asked and not only_late):
                t.asked = 0.0
                await self._fill(client, key)

    async def _rosters(self, client: aiomqtt.Client, venues: set[str]) -> None:
        """Publishes these venues' rosters, retained."""
        for venue in sorted(venues):
            body = await asyncio.to_thread(roster.payload, self.store, venue)
            await publish(client, f"{self.prefix}/{venue}/roster",
                                 json.dumps(body, ensure_ascii=False), qos=1, retain=True)

    async def _sessions(self, client: aiomqtt.Client, new: list[Stored]) -> None:
        """Publishes a table's session topic when a match starts or ends in what is new."""
        for m in new:
            if m.kind not in ("match_started", "match_over"):
                continue
            playing = m.kind == "match_started"
            data = m.payload.get("data") or {}
            body = {"v": 1, "playing": playing, "match_id": data.get("match_id"),
                    "ts": m.payload.get("ts"), "seq": m.seq}
            await publish(client, f"{self.prefix}/{m.venue}/{m.table}/session", json.dumps(body),
                                 qos=1, retain=True)


def _missing(first: int, last: int, have: set[int]) -> list[tuple[int, int]]:
    """Returns the ranges of seqs from ``first`` to ``last`` that are not in ``have``."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    for s in range(first, last + 1):
        if s in have:
            if start is not None:
                out.append((start, s - 1))
                start = None
        elif start is None:
            start = s
    if start is not None:
        out.append((start, last))
    return out
