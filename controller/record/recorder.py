"""The venue recorder: one persistent MQTT 5 session that stores every table's messages once.

It subscribes (QoS 1, ``clean_start = false``, a session expiry of ``SESSION_EXPIRY_S``, so
the broker keeps what comes while it is down for a night) to every table's status, state,
event, display, health and responses, and acknowledges a message only once it is committed
to the store: a ``kill -9`` loses nothing the broker will not send again, and what comes
again is ignored (keyed by venue, table and seq). A table's seqs are complete up to a point;
past it, a gap is asked of the table with ``history_since`` (answered from its journal), and
what the journal no longer holds is recorded as a gap, never made up.

On the first message of a match and at the end of one it publishes, retained,
``<prefix>/<venue>/<table>/session``: ``{"v": 1, "playing": bool, "match_id", "ts"}``
(what a club's billing reads; ``controller.record.stats`` lists the sessions).
"""

from __future__ import annotations

import asyncio
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

from controller.record.stats import summarize_finished
from controller.record.store import Progress, Store, Stored
from controller.service.connection import AckingClient, Backoff, Broker
from controller.service.published import HISTORY_REQUEST, published_form

log = logging.getLogger(__name__)

#: How long the broker keeps the recorder's session (and its messages) while it is away.
SESSION_EXPIRY_S = 3 * 24 * 3600
#: The topics of each table the record keeps (``+`` for the table's base's two levels).
TOPICS = ("status", "state", "event", "display", "health", "response/+")
#: At most this many messages are committed together.
BATCH = 500
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
    playing: bool | None = None


@dataclass
class Recorder:
    """Records every table under ``prefix`` on ``broker`` into ``store`` until cancelled."""

    store: Store
    broker: Broker
    prefix: str = "billiards"
    client_id: str = "billiards-recorder"
    reconnect: tuple[float, float] = (0.5, 30.0)
    counters: Counters = field(default_factory=Counters)
    _tables: dict[tuple[str, str], _Table] = field(default_factory=dict)
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
                    for (venue, table), t in self._tables.items():
                        t.asked = 0.0
                        await self._fill(client, venue, table)
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
        items: dict[tuple[str, str, int], Stored] = {}
        fills: list[tuple[str, str, dict[str, Any]]] = []
        for message in batch:
            self.counters.received += 1
            parts = message.topic.value.split("/", 3)
            if len(parts) < 4 or not isinstance(message.payload, bytes | bytearray):
                continue
            _, venue, table, rest = parts
            form = published_form(message.topic.value, bytes(message.payload))
            if form is None:
                continue  # a Last Will, a stranger's message: no seq
            seq, payload = form
            items[(venue, table, seq)] = Stored(venue, table, seq, rest, json.loads(payload))
            if rest == f"response/{HISTORY_REQUEST}":
                body = json.loads(message.payload)
                # an answer to any of its askings since the last answer is taken, a late one
                # too: a busy table may answer slower than FILL_TIMEOUT_S, and asking again
                # must not leave the answer that then comes unmatched, for ever
                t = self._tables.get((venue, table))
                if t is not None and body.get("transaction") in t.txs:
                    fills.append((venue, table, body))
        for venue, table, body in fills:
            for m in (body.get("data") or {}).get("messages") or ():
                items.setdefault((venue, table, m["seq"]), Stored(
                    venue, table, m["seq"], m["topic"], m["payload"]))
        ordered = sorted(items.values(), key=lambda m: (m.venue, m.table, m.seq))
        progress, lost = self._advance(ordered, fills)
        new = await asyncio.to_thread(self.store.add, ordered, lost=lost, progress=progress)
        self.counters.stored += len(new)
        self.counters.duplicates += len(ordered) - len(new)
        self.counters.lost += sum(b - a + 1 for _, _, a, b, _ in lost)
        await asyncio.to_thread(summarize_finished, self.store)
        await self._sessions(client, new)
        for (venue, table), t in self._tables.items():
            if t.progress.complete_upto < t.progress.high and not t.asked:
                await self._fill(client, venue, table)

    def _advance(self, ordered: list[Stored], fills: list[tuple[str, str, dict[str, Any]]]) -> tuple[
            dict[tuple[str, str], Progress], list[tuple[str, str, int, int, str]]]:
        """Returns each table's new progress and the seq ranges its fills found lost."""
        changed: dict[tuple[str, str], Progress] = {}
        lost: list[tuple[str, str, int, int, str]] = []
        by_table: dict[tuple[str, str], list[int]] = {}
        for m in ordered:
            by_table.setdefault((m.venue, m.table), []).append(m.seq)
        for venue, table, body in fills:
            t = self._tables[(venue, table)]
            t.asked = 0.0
            t.txs.clear()
            data = body.get("data") if body.get("status") == "ok" else None
            if not isinstance(data, dict):
                log.error("%s/%s cannot fill its gap: %s", venue, table, body.get("error"))
                continue
            done = t.progress.complete_upto
            upto = int(data["upto"])
            if upto <= done:
                continue
            have = set(by_table.get((venue, table), ())) | set(
                self.store.seqs_between(venue, table, done, upto))
            first = int(data.get("first") or 0)
            for a, b in _missing(done + 1, upto, have):
                why = ("no longer in the table's journal" if b < first
                       else "never written to the table's journal")
                lost.append((venue, table, a, b, why))
                log.warning("%s/%s: seqs %d-%d are lost (%s)", venue, table, a, b, why)
            t.progress = Progress(upto, max(t.progress.high, upto))
            changed[(venue, table)] = t.progress
        for key, seqs in by_table.items():
            t = self._tables.setdefault(key, _Table(Progress(0, 0)))
            done, high = t.progress.complete_upto, t.progress.high
            for s in seqs:
                if s == done + 1:
                    done = s
            t.progress = Progress(done, max(high, seqs[-1]))
            changed[key] = t.progress
        return changed, lost

    async def _fill(self, client: aiomqtt.Client, venue: str, table: str) -> None:
        t = self._tables[(venue, table)]
        if t.progress.complete_upto >= t.progress.high:
            return
        tx = f"{self.client_id}-{next(self._numbers)}-{time.time():.0f}"
        t.txs.append(tx)
        t.asked = time.monotonic()
        self.counters.fills += 1
        body = {"v": 1, "seq": t.progress.complete_upto, "limit": FILL_LIMIT, "transaction": tx,
                "deadline": time.time() + 60}
        await client.publish(f"{self.prefix}/{venue}/{table}/request/{HISTORY_REQUEST}",
                             json.dumps(body), qos=1)

    async def _retry_fills(self, client: aiomqtt.Client, only_late: bool = False) -> None:
        """Asks again where an answer is late (a table restarting, a lost response), and,
        unless ``only_late``, wherever a gap is left."""
        now = time.monotonic()
        for (venue, table), t in self._tables.items():
            late = t.asked and now - t.asked > FILL_TIMEOUT_S
            if late or (not t.asked and not only_late):
                t.asked = 0.0
                await self._fill(client, venue, table)

    async def _sessions(self, client: aiomqtt.Client, new: list[Stored]) -> None:
        """Publishes a table's session topic when a match starts or ends in what is new."""
        for m in new:
            if m.kind not in ("match_started", "match_over"):
                continue
            playing = m.kind == "match_started"
            data = m.payload.get("data") or {}
            body = {"v": 1, "playing": playing, "match_id": data.get("match_id"),
                    "ts": m.payload.get("ts"), "seq": m.seq}
            await client.publish(f"{self.prefix}/{m.venue}/{m.table}/session", json.dumps(body),
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
