"""The demo's tournament (``demo --tournament N``): N simulated regulars in a double
elimination on the demo's tables, on the venue record. A director's loop puts the bracket's
ready matches on the free tables (``fill``); the recorder offers each table its match
(retained ``billiards/demo/<table>/next``, ``controller.record.offers``), read here over MQTT
as the tables' consoles read it (``Offers``), and each table starts the match it is offered as
its referee's one tap at its console does: a ``new_match`` request over MQTT with the players'
roster ids, the race of its round and the tournament match it is (``"tournament": {"id",
"match"}``, as the offer gave it), answered by the table before a shot is played; the recorder
takes each result from the table's ``match_over`` by that id (never typed), and the next match
follows. Nothing here decides a result: the simulated referee's rulings do."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TextIO
from urllib.parse import urlsplit

import aiomqtt

import tournament as core
from controller.record import tournaments
from controller.record.store import Store
from controller.sim.simulator import simulate_lines
from controller.wire.connection import Broker, publish
from controller.words import catalogue

VENUE = "demo"
#: How often the tables and the director look at the bracket (seconds of the host's clock).
LOOK_S = 0.5
#: How long (host seconds) a table waits for its played match's result before it takes the
#: match for stalled.
SETTLE_S = 10.0
#: How long (host seconds) a table's console waits for the answer to its ``new_match``
#: before it sends it again (under the same transaction: the table takes it once).
ANSWER_S = 5.0


def entrants(count: int, language: str) -> dict[str, str]:
    """Returns ``count`` players, roster id -> name (the catalogue's ``sim.regulars`` in
    ``language``, a club's sixteen, numbered past the first sixteen)."""
    code = language if language in catalogue.languages() else "en"
    names = catalogue.words(code).pages["sim.regulars"].split("|")
    return {f"reg-{i + 1}": names[i % len(names)] + ("" if i < len(names) else f" {i // len(names) + 1}")
            for i in range(count)}


def create(store: Store, count: int, language: str) -> str:
    """Makes the demo's tournament; returns its id."""
    players = entrants(count, language)
    setup = tournaments.Setup(core.Format.DOUBLE, tuple(players), race=1, races={"GF": 2},
                              names=players)
    return tournaments.create(store, VENUE, "Demo", setup)


@dataclass(frozen=True, slots=True)
class Offer:
    """A table's next tournament match as its console is offered it: the tournament, the
    match, its players (roster ids) and their names, and the race."""

    tournament: str
    match: str
    players: tuple[str, ...]
    names: tuple[str, ...]
    race: int


class Offers:
    """Each table's next match as the recorder offers it (retained
    ``billiards/demo/<table>/next``), read over MQTT as the tables' consoles read it."""

    def __init__(self) -> None:
        self.latest: dict[str, dict[str, Any]] = {}

    async def watch(self, url: str) -> None:
        """Keeps ``latest`` up to date until cancelled (an empty payload: nothing next)."""
        parts = urlsplit(url)
        while True:
            try:
                async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883) as client:
                    await client.subscribe(f"billiards/{VENUE}/+/next", qos=1)
                    async for message in client.messages:
                        table = str(message.topic).split("/")[2]
                        raw = message.payload if isinstance(message.payload, bytes) else b""
                        if raw:
                            self.latest[table] = json.loads(raw)
                        else:
                            self.latest.pop(table, None)
            except aiomqtt.MqttError:
                await asyncio.sleep(LOOK_S)

    def tournament_match(self, table: str) -> Offer | None:
        """Returns the tournament's match offered to ``table``, None when it is offered none."""
        offer = self.latest.get(table)
        given = (offer or {}).get("tournament")
        if not offer or offer.get("source") != "tournament" or not given:
            return None
        players = offer["players"]
        return Offer(given["id"], given["match"], tuple(p["id"] for p in players),
                     tuple(p["name"] for p in players), int(offer.get("race_to") or 1))


async def ask(broker: Broker, venue: str, table: str, name: str,
              payload: dict[str, Any]) -> dict[str, Any]:
    """Sends the request ``name`` to the table over MQTT as a console does (QoS 1, a
    transaction; sent again while unanswered) and returns the table's response."""
    tx = f"console-{table}-{secrets.token_hex(8)}"
    base = f"billiards/{venue}/{table}"
    body = json.dumps({**payload, "transaction": tx})
    async with aiomqtt.Client(broker.host, broker.port, identifier=None,
                              username=broker.username, password=broker.password) as client:
        await client.subscribe(f"{base}/response/{name}", qos=1)
        while True:
            await publish(client, f"{base}/request/{name}", body, qos=1)
            try:
                async with asyncio.timeout(ANSWER_S):
                    async for message in client.messages:
                        raw = message.payload
                        answer = json.loads(raw if isinstance(raw, bytes | str) else b"{}")
                        if isinstance(answer, dict) and answer.get("transaction") == tx:
                            return answer
            except TimeoutError:
                continue


class BracketMatches:
    """One table's matches, each the one the bracket put on it, started over MQTT (an
    iterable of live matches for ``SimBackend``)."""

    def __init__(self, store: Store, tournament_id: str, table: str, game: str, seed: int,
                 speed: float, clock: Callable[[], float], broker: Broker, offers: Offers) -> None:
        self.store, self.tournament_id, self.table = store, tournament_id, table
        self.game, self.seed, self.speed, self.clock = game, seed, speed, clock
        self.broker, self.offers = broker, offers
        #: the matches it played, each with its players: a match a correction re-flowed (the
        #: same id, other players) is another match, to be played again
        self.played: set[tuple[str, tuple[str, ...]]] = set()
        self.started = 0  # the matches it started: each another simulated match

    def lines_for(self, offer: Offer) -> list[dict[str, Any]]:
        """Returns the simulated match the table plays for ``offer``: another each time one is
        started, so that a match abandoned and played again is played otherwise (seeded by
        the matches played, the same stalled match came back again and again)."""
        self.started += 1
        return simulate_lines(self.game, 600, self.seed + self.started, race_to=offer.race,
                              names=offer.names)

    def __iter__(self) -> Iterator[AsyncIterator[dict[str, Any]]]:
        while True:
            yield self.next_match()

    async def next_offered(self) -> Offer:
        """Waits until the recorder offers this table a match it has not played (with these
        players)."""
        while True:
            offer = self.offers.tournament_match(self.table)
            if offer is not None and (offer.match, offer.players) not in self.played:
                return offer
            await asyncio.sleep(LOOK_S)

    async def next_match(self) -> AsyncIterator[dict[str, Any]]:
        # the backend times a match from its first line: a table's state asked at once, then
        # the match's lines shifted by the wait, so that they play from when it was started
        yield {"t": 0.0, "request": "get", "payload": {}}
        waited = self.clock()
        offer = await self.next_offered()
        self.played.add((offer.match, offer.players))
        lines = self.lines_for(offer)
        shift: float | None = None
        for line in lines:
            if "t" not in line:
                continue  # the header
            if line.get("request") == "new_match":
                await self._start(offer, line["payload"])
                shift = (self.clock() - waited) * self.speed - line["t"]
                continue
            yield {**line, "t": line["t"] + (shift or 0.0)}
        # played out: the recorder takes the result, unless the table never ended the match
        # (its referee still waits on a question the simulator's answer did not fit); then
        # the match is abandoned at the table and played again
        deadline = self.clock() + SETTLE_S
        while self.clock() < deadline:
            made = await asyncio.to_thread(tournaments.load, self.store, VENUE, self.tournament_id)
            if offer.match in made.results:
                return
            await asyncio.sleep(LOOK_S)
        self.played.discard((offer.match, offer.players))
        yield {"t": (self.clock() - waited) * self.speed, "request": "end_match", "payload": {}}

    async def _start(self, offer: Offer, payload: dict[str, Any]) -> None:
        """Starts the offered match on the table over MQTT; raises RuntimeError if the table
        refuses it."""
        answer = await ask(self.broker, VENUE, self.table, "new_match", {
            **payload, "player_ids": list(offer.players),
            "tournament": {"id": offer.tournament, "match": offer.match}})  # as offered
        if answer.get("status") != "ok":
            raise RuntimeError(f"{self.table} refused {offer.match}: {answer.get('error')}")


async def direct(store: Store, tournament_id: str, tables: list[str], out: TextIO,
                 done: asyncio.Event) -> None:
    """The director: fills the free tables with ready matches, says each match given and
    taken, and sets ``done`` once the tournament has its winner."""
    said: set[str] = set()
    while True:
        change = await asyncio.to_thread(tournaments.act, store, VENUE, tournament_id,
                                         lambda t: core.Change(t.fill(tables), ()))
        made = change.tournament
        names = await asyncio.to_thread(tournaments.names, store, VENUE, tournament_id)
        given = await asyncio.to_thread(tournaments.sources, store, VENUE, tournament_id)
        state = made.progress()
        for match, result in sorted(made.results.items()):
            if f"{match}=" not in said:
                said.add(f"{match}=")
                whose = "from the table" if given.get(match) else "the director's"
                out.write(f"tournament: {match} won by {names[result.winner]} ({whose})\n")
        for match, table in sorted(made.tables.items()):
            if match not in said:
                said.add(match)
                a, b = (names[p] for p in made.pairing(match, state).players)
                out.write(f"tournament: {match} on {table}: {a} — {b}\n")
        out.flush()
        if state.champion is not None:
            out.write(f"tournament: winner {names[state.champion]}\n")
            out.flush()
            done.set()
            return
        await asyncio.sleep(LOOK_S)
