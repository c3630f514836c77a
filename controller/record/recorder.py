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
After each batch it takes the tables' finished matches as tournament results
(``controller.record.tournaments``): a match that named its tournament match by id, else one
on a table that has a tournament match between its players; a result refused is logged once
and listed in its health (``refused_results``). It answers the consoles' waiting-list
requests and publishes, retained, each table's next match and each venue's waiting list when
they changed (``controller.record.offering``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from sqlalchemy.exc import SQLAlchemyError

from controller.record import roster, tournaments
from controller.record.health import Health
from controller.record.ledger import Ledger
from controller.record.offering import Offering
from controller.record.stats import summarize_finished
from controller.record.store import (
    NAME_MAX,
    BadRow,
    Key,
    Lost,
    Progress,
    Store,
    Stored,
    StoreDown,
    failure,
)
from controller.wire.connection import AckingClient, Backoff, Broker, publish
from controller.wire.history import HISTORY_REQUEST, published_form

log = logging.getLogger(__name__)

#: How long the broker keeps the recorder's session (and its messages) while it is away.
SESSION_EXPIRY_S = 3 * 24 * 3600
#: The topics of each table the record keeps (``+`` for the table's base's two levels).
TOPICS = ("status", "state", "event", "display", "health", "response/+")
#: At most this many messages are committed together.
BATCH = 500
RECEIVE_MAX = 1000

#: A message as it came: its topic and payload (kept raw if it is quarantined).
Raw = tuple[str, bytes]


@dataclass
class _Batch:
    """One batch as read: the messages with a seq (their raw form by key), the answers to
    fills among them, each epoch's last arrival."""

    items: dict[tuple[str, str, str, int], Stored] = field(default_factory=dict)
    raws: dict[tuple[str, str, str, int], Raw] = field(default_factory=dict)
    fills: list[tuple[Key, dict[str, Any]]] = field(default_factory=list)
    heard: dict[Key, float] = field(default_factory=dict)
    unkeyed: list[tuple[Raw, str]] = field(default_factory=list)  # quarantined as they are


@dataclass
class Recorder:
    """Records every table under ``prefix`` on ``broker`` into ``store`` until cancelled."""

    store: Store
    broker: Broker
    prefix: str = "billiards"
    client_id: str = "billiards-recorder"
    reconnect: tuple[float, float] = (0.5, 30.0)
    #: waits between tries of a store that is away (first, longest)
    store_retry: tuple[float, float] = (0.5, 10.0)
    ledger: Ledger = field(default_factory=Ledger)
    health: Health = field(default_factory=Health)
    offering: Offering = field(init=False)

    def __post_init__(self) -> None:
        self.offering = Offering(self.prefix)

    @property
    def counters(self) -> Health:
        """What the recorder did (its health's counts), for its log and the tests."""
        return self.health

    async def run(self) -> None:
        self.ledger.load(await self._stored(self.store.progress))
        self.health.quarantined = (await self._stored(self.store.quarantined))[0]
        backoff = Backoff(*self.reconnect)
        while True:
            try:
                async with self._client() as client:
                    for topic in TOPICS:
                        await client.subscribe(f"{self.prefix}/+/+/{topic}", qos=1)
                    await client.subscribe(self.offering.topic, qos=1)
                    self.offering.connected()
                    self.health.connections += 1
                    backoff.reset()
                    log.info("recording %s/# from %s", self.prefix, self.broker.address)
                    await self._health(client, force=True)
                    await self._ask(client, reconnected=True)
                    await self._rosters(client, {venue for venue, _, _ in self.ledger.tables})
                    await self._read(client)
            except aiomqtt.MqttError as exc:
                delay = backoff.next()
                log.warning("the broker at %s: %s; again in %.1f s", self.broker.address, exc, delay)
                await asyncio.sleep(delay)

    def _client(self) -> AckingClient:
        props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        props.SessionExpiryInterval = SESSION_EXPIRY_S
        props.ReceiveMaximum = RECEIVE_MAX
        will = aiomqtt.Will(self.health.topic(self.prefix), json.dumps(self.health.gone()),
                            qos=1, retain=True)
        return AckingClient(0, self.broker.host, self.broker.port, identifier=self.client_id,
                            username=self.broker.username, password=self.broker.password,
                            protocol=aiomqtt.ProtocolVersion.V5, clean_start=False,
                            properties=props, timeout=10.0, will=will)

    async def _read(self, client: AckingClient) -> None:
        while True:
            batch = await client.batch(BATCH, timeout=1.0)
            if batch or self.ledger.stuck():
                await self._take(client, batch)
            await self.offering.serve(client, self.store, batch)
            for message in batch:
                if not self.offering.holds(message):  # a request: acknowledged once answered
                    client.ack(message)
            await self._ask(client)
            await self._health(client)

    def _read_batch(self, batch: list[aiomqtt.Message]) -> _Batch:
        """Sorts one batch's messages: what has a seq, what fills answered, what cannot be
        keyed (quarantined)."""
        got = _Batch()
        for message in batch:
            self.health.received += 1
            topic = message.topic.value
            parts = topic.split("/", 3)
            if len(parts) < 4 or not isinstance(message.payload, bytes | bytearray):
                continue
            _, venue, table, rest = parts
            raw = bytes(message.payload)
            if self.offering.take(topic, raw, message):
                continue  # a console's waiting-list request: answered once this is stored
            form = published_form(topic, raw)
            if form is None:
                continue  # a Last Will, a stranger's message: no seq
            seq, payload = form
            body = json.loads(payload)
            epoch = body.get("epoch") if isinstance(body.get("epoch"), str) else ""
            if max(len(venue), len(table), len(epoch)) > NAME_MAX:
                got.unkeyed.append(((topic, raw), f"a venue, table or epoch over {NAME_MAX}"
                                    " characters"))
                continue
            key = (venue, table, epoch)
            got.items[(*key, seq)] = Stored(venue, table, seq, rest, body, epoch)
            got.raws[(*key, seq)] = (topic, raw)
            got.heard[key] = self.ledger.arrived(key)
            if rest == f"response/{HISTORY_REQUEST}":
                # an answer to any of its askings since the last answer is taken, a late one
                # too: a busy table may answer slower than the ledger's timeout, and asking
                # again must not leave the answer that then comes unmatched, for ever
                reply = json.loads(raw)
                fill = self.ledger.answer(venue, table, reply, self.client_id)
                if fill is not None:
                    got.fills.append((fill, reply))
        return got

    async def _take(self, client: AckingClient, batch: list[aiomqtt.Message]) -> None:
        """Stores one batch of messages (and what the fills among them answered); while the
        store is away, tries again and again (nothing acknowledged meanwhile: the broker
        keeps the rest), saying so on the health topic."""
        got = self._read_batch(batch)
        saved = self.ledger.snapshot()
        backoff = Backoff(*self.store_retry)
        while True:
            try:
                new, venues = await asyncio.to_thread(self._commit, got)
                break
            except StoreDown as exc:
                self.ledger.restore(saved)
                saved = self.ledger.snapshot()
                self.health.store_down(str(exc).splitlines()[0][:300], len(batch))
                await self._health(client)
                delay = backoff.next()
                log.error("%s; again in %.1f s (%d messages held)", exc, delay, len(batch))
                await asyncio.sleep(delay)
        if self.health.store_up():
            log.warning("the record store is back: %d messages held are stored", len(batch))
        await self._rosters(client, venues)
        await self._sessions(client, new)

    def _commit(self, got: _Batch) -> tuple[list[Stored], set[str]]:
        """Advances the ledger and stores what came (in a thread: the store's calls block);
        returns what was new and the venues whose roster changed. Raises StoreDown."""
        ordered = sorted(got.items.values(), key=lambda m: (m.venue, m.table, m.epoch, m.seq))
        try:
            progress, lost, brought = self.ledger.advance(
                ordered, got.fills, got.heard, self._have, self._one, time.monotonic())
            for m in brought:
                got.raws.setdefault((m.venue, m.table, m.epoch, m.seq), (
                    f"{self.prefix}/{m.venue}/{m.table}/{m.topic}",
                    json.dumps(m.payload).encode()))
                got.items.setdefault((m.venue, m.table, m.epoch, m.seq), m)
            while got.unkeyed:
                (topic, raw), why = got.unkeyed[0]
                self._quarantine(topic, raw, why)
                got.unkeyed.pop(0)
            items = sorted(got.items.values(), key=lambda m: (m.venue, m.table, m.epoch, m.seq))
            skip = [m for m in items if changed_nothing(m)]
            new = self._add([m for m in items if not changed_nothing(m)], got.raws, lost,
                            progress, skip)
            summarize_finished(self.store)
            venues = roster.assign(self.store)
            taken = tournaments.take_results(self.store)
            for venue, tournament_id, change in taken.changes:
                log.info("%s: tournament %s took a table's result; changed later: %s", venue,
                         tournament_id, ", ".join(change.changed) or "none")
            for no in taken.refused:
                if self.health.refused(no.venue, no.source, no.tournament_id, no.match, no.why):
                    log.warning("%s: tournament %s match %s: the result of the table's match %s"
                                " is refused: %s", no.venue, no.tournament_id, no.match,
                                no.source, no.why)
        except SQLAlchemyError as exc:
            raise failure(exc) from exc
        self.health.stored += len(new)
        self.health.duplicates += len(items) - len(skip) - len(new)
        self.health.skipped += len(skip)
        self.health.lost += sum(b - a + 1 for *_, a, b, _ in lost if b is not None)
        self.health.refused_answers = self.ledger.refused
        return new, venues

    def _add(self, items: list[Stored], raws: dict[tuple[str, str, str, int], Raw],
             lost: list[Lost], progress: dict[Key, Progress], skip: list[Stored]
             ) -> list[Stored]:
        """Stores ``items`` with the gaps and progress, counts ``skip``; a message the store
        refuses is quarantined, its seq a gap. Raises StoreDown."""
        try:
            return self.store.add(items, lost=lost, progress=progress, skip=skip)
        except BadRow:
            pass  # one by one, to find which
        new: list[Stored] = []
        for m in items:
            try:
                new += self.store.add([m])
            except BadRow as exc:
                why = str(exc).splitlines()[0][:300]
                topic, raw = raws[(m.venue, m.table, m.epoch, m.seq)]
                self._quarantine(topic, raw, why)
                lost.append((m.venue, m.table, m.epoch, m.seq, m.seq, f"quarantined: {why}"))
        self.store.add([], lost=lost, progress=progress, skip=skip)
        return new

    def _quarantine(self, topic: str, raw: bytes, why: str) -> None:
        log.error("quarantined a message on %s (%d bytes): %s", topic[:200], len(raw), why)
        self.store.quarantine(topic, raw, why)
        self.health.quarantined += 1

    def _have(self, venue: str, table: str, epoch: str, after: int, upto: int) -> list[int]:
        return self.store.seqs_between(venue, table, epoch, after, upto)

    def _one(self, venue: str, table: str, epoch: str, seq: int) -> Stored | None:
        found = self.store.messages(venue, table, seq, seq, epoch)
        return found[0] if found else None

    async def _stored(self, read: Any) -> Any:
        """Reads the store in a thread, waiting while it is away (said on the log)."""
        backoff = Backoff(*self.store_retry)
        while True:
            try:
                return await asyncio.to_thread(read)
            except (SQLAlchemyError, StoreDown) as exc:
                delay = backoff.next()
                log.error("cannot read the record store: %s; again in %.1f s",
                          str(exc).splitlines()[0], delay)
                await asyncio.sleep(delay)

    async def _ask(self, client: aiomqtt.Client, reconnected: bool = False) -> None:
        """Sends the ``history_since`` askings due (``controller.record.ledger``)."""
        for asking in self.ledger.askings(time.monotonic(), self.client_id, reconnected):
            venue, table, _ = asking.key
            self.health.fills += 1
            await publish(client, f"{self.prefix}/{venue}/{table}/request/{HISTORY_REQUEST}",
                          json.dumps(asking.body), qos=1)

    async def _health(self, client: aiomqtt.Client, force: bool = False) -> None:
        """Publishes the recorder's health, retained, when it changed (or ``force``)."""
        body = self.health.due(time.monotonic(), force)
        if body is not None:
            await publish(client, self.health.topic(self.prefix), json.dumps(body), qos=1,
                          retain=True)

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


def changed_nothing(m: Stored) -> bool:
    """Whether a message is a table's answer that changed nothing (a request refused, junk):
    counted in runs of seqs, not stored one row each (the store's ``skipped``)."""
    return m.topic.startswith("response/") and m.payload.get("status") == "error"
