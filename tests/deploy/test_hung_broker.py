"""An Undo during a hung venue broker (issue 39, item 1), on the shipped brokers and their
bridge: a referee's client on the browsers' broker, as the console does, gives up on an
answer after its time, asks the table to ``cancel`` by transaction, and says only what the
table answered. The venue broker is stopped (SIGSTOP) before the undo and resumes after the
cancel; the table's wall clock is two minutes off either way, for MQTT 3.1.1 and 5 clients,
whose undo carries a wall-clock ``deadline`` (and, MQTT 5, a message expiry the MQTT 3.1.1
bridge drops). In 10 of 10 tries each, the client's last word is what the table did."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.service.shell import Service
from controller.sim.backend import sim_backend
from tests.deploy.test_mosquitto_acl import B1, login
from tests.deploy.venue import Venue, password
from tests.service.conftest import make_config, running
from tests.waiting import until

TRIES = 10
#: How long the referee's client waits for an answer before it asks the table to cancel: in
#: the hung tries the answer cannot come before the broker resumes, so this is the normal
#: path's wait (short); an answer that is only late under load takes the cancel's path,
#: whose answer still says what the table did.
TTL_S = 0.1
NEW = {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 9}


class Referee:
    """A client of the browsers' broker that asks as the console does (its last word:
    ``done``, ``refused`` or ``not done``, each only as the table said)."""

    def __init__(self, client: aiomqtt.Client, v5: bool) -> None:
        self.client = client
        self.v5 = v5
        self.answers: dict[tuple[str, str], dict[str, Any]] = {}
        self.gave_up = asyncio.Event()
        self._n = 0
        self.log: list[str] = []
        self.sent = 0.0  # when the last request was published (time.monotonic())

    async def listen(self) -> None:
        async for message in self.client.messages:
            payload = json.loads(message.payload)  # type: ignore[arg-type]
            name = str(message.topic).rsplit("/", 1)[1]
            self.answers[(name, payload.get("transaction"))] = payload

    def _tx(self) -> str:
        self._n += 1
        return f"web-ref-{os.getpid()}-{time.monotonic_ns()}-{self._n}"

    async def ask(self, name: str, payload: dict[str, Any], *, deadline: bool = False) -> str:
        """Asks as the console does; with ``deadline``, as a client that also sets a
        wall-clock deadline (and, MQTT 5, a message expiry) would."""
        tx = self._tx()
        props = None
        if self.v5 and deadline:
            props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            props.MessageExpiryInterval = 1
        body = {**payload, "transaction": tx}
        if deadline:
            body["deadline"] = time.time() + TTL_S
        self.sent = time.monotonic()
        await self.client.publish(f"{B1}/request/{name}", json.dumps(body), qos=1,
                                  properties=props)
        try:
            answer = await until(lambda: self.answers.get((name, tx)), TTL_S, "an answer")
        except AssertionError:  # no answer in its time: not known until the table says
            cancel = self._tx()
            await self.client.publish(f"{B1}/request/cancel",
                                      json.dumps({"cancels": tx, "transaction": cancel}), qos=1)
            self.gave_up.set()
            def word() -> dict[str, Any] | None:  # a refused cancel leaves it not known
                said = self.answers.get(("cancel", cancel), {})
                return self.answers.get((name, tx)) or (said if said.get("status") == "ok" else None)
            told = await until(word, 30, "the table's word")
            if told.get("transaction") == cancel:
                if told["data"]["cancelled"]:
                    return "not done"
                answer = told["data"]["answer"]
            else:
                answer = told
        return "done" if answer["status"] == "ok" else "refused"


@asynccontextmanager
async def referee(venue: Venue, v5: bool, *, bridged: bool = True) -> AsyncIterator[Referee]:
    """A referee's client: on the browsers' broker (``bridged``) or on the venue broker."""
    protocol = aiomqtt.ProtocolVersion.V5 if v5 else aiomqtt.ProtocolVersion.V311
    where: dict[str, Any] = {"port": 9001, "transport": "websockets"} if bridged else {}
    async with login(venue, "referee", protocol=protocol, **where) as client:
        await client.subscribe(f"{B1}/response/+", qos=1)
        ref = Referee(client, v5)
        listening = asyncio.create_task(ref.listen())
        try:
            yield ref
        finally:
            listening.cancel()


@pytest.mark.parametrize("v5", [False, True], ids=["mqtt311", "mqtt5"])
@pytest.mark.parametrize("offset", [120.0, -120.0], ids=["table-ahead", "table-behind"])
async def test_an_undo_during_a_hung_broker_ends_on_what_the_table_did(
        tmp_path: Path, venue: Venue, v5: bool, offset: float) -> None:
    broker = venue.broker.process
    assert broker is not None
    config = make_config(tmp_path, venue.broker,  # type: ignore[arg-type]
                         mqtt={"url": f"mqtt://127.0.0.1:{venue.ports[1883]}",
                               "username": "club/t1", "password": password("club/t1")})
    service = Service(config, backend=sim_backend, wall=lambda: time.time() + offset)
    words: list[tuple[str, str]] = []
    async with running(service), referee(venue, v5) as ref:
        await ref.ask("new_match", NEW)
        for n in range(TRIES):
            deadline = n % 2 == 1
            if service.table.referee.shots == 0:
                assert await ref.ask("shot_end", {}) == "done"
            before = service.table.referee.shots
            ref.gave_up.clear()
            os.kill(broker.pid, signal.SIGSTOP)  # hung: its sockets stay open
            try:
                asking = asyncio.create_task(ref.ask("undo", {}, deadline=deadline))
                await asyncio.wait_for(ref.gave_up.wait(), 30)
            finally:
                os.kill(broker.pid, signal.SIGCONT)
            word = await asyncio.wait_for(asking, 60)
            assert await ref.ask("get", {}) == "done"  # whatever came before it was taken
            did = "done" if service.table.referee.shots == before - 1 else "nothing"
            words.append((word, did))
            ref.log.append(f"try {n}: deadline={deadline} said {word!r}, the table: {did}")
    assert all((word == "done") == (did == "done") for word, did in words), ref.log
    assert len(words) == TRIES
    print("\n".join(ref.log))


@pytest.mark.parametrize("v5", [False, True], ids=["mqtt311", "mqtt5"])
async def test_an_undo_sent_while_the_table_is_away_ends_on_what_the_table_did(
        tmp_path: Path, venue: Venue, v5: bool) -> None:
    """The table's service stopped (its session kept by the venue broker): an MQTT 5 undo
    expires at the broker and the cancel alone reaches the table, which confirms it; an
    MQTT 3.1.1 undo waits for the table, which takes it first (its clock 2 minutes behind:
    the deadline does not stop it) and the cancel's answer says so."""
    config = make_config(tmp_path, venue.broker,  # type: ignore[arg-type]
                         mqtt={"url": f"mqtt://127.0.0.1:{venue.ports[1883]}",
                               "username": "club/t1", "password": password("club/t1")})

    def table() -> Service:
        return Service(config, backend=sim_backend, wall=lambda: time.time() - 120)

    async with running(table()), referee(venue, v5, bridged=False) as ref:
        await ref.ask("new_match", NEW)
        assert await ref.ask("shot_end", {}) == "done"
    async with referee(venue, v5, bridged=False) as ref:
        asking = asyncio.create_task(ref.ask("undo", {}, deadline=True))
        await asyncio.wait_for(ref.gave_up.wait(), 30)
        # the undo's message expiry (1 s from the broker's receipt) runs out at the broker
        await asyncio.sleep(max(0.0, ref.sent + 2 - time.monotonic()))
        async with running(table()) as service:
            word = await asyncio.wait_for(asking, 60)
            assert await ref.ask("get", {}) == "done"
            did = "done" if service.table.referee.shots == 0 else "nothing"
    assert (word, did) == (("not done", "nothing") if v5 else ("done", "done"))
