"""The evening's MQTT clients, as the venue's people and devices are: a panel's user flooding
junk, a referee's console sending an undo while the broker hangs, a dashboard watching every
table's ``status``. Each logs in with its shipped user (``tests.deploy.venue.password``)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.deploy.venue import password

#: Junk a panel's user may send: a version the table does not speak, not JSON, not an object,
#: not UTF-8, too deep, answers to no question, nonsense values. (Not an empty payload: that is
#: a request with every default — a ``call`` of nothing opens a shot, an ``undo`` takes one back
#: — and the flood once played a call on t1 that the simulation never made.)
JUNK = [b'{"v": 2}', b"not json", b"[1,2]", b'{"v":1,"answer":"\xff"}', b"{" * 2000,
        json.dumps({"question": "q-9999-0", "answer": "nonsense"}).encode(),
        json.dumps({"shots": -5}).encode(), json.dumps({"calls": "x" * 5000}).encode()]
NAMES = ["answer", "undo", "call", "junk", "declare", "x" * 70]


async def flood(port: int, venue: str, table: str, n: int) -> None:
    """Publishes ``n`` junk requests to ``table`` as the panel's user (keypad-t1), QoS 0 and
    1 in turn."""
    async with aiomqtt.Client("127.0.0.1", port, username="keypad-t1",
                              password=password("keypad-t1"), identifier="evening-flood") as c:
        for i in range(n):
            await c.publish(f"billiards/{venue}/{table}/request/{NAMES[i % len(NAMES)]}",
                            JUNK[i % len(JUNK)], qos=i % 2)


async def undo_while_hung(port: int, broker: subprocess.Popen[bytes], table: str, hold: float,
                          transaction: str) -> str:
    """Sends an ``undo`` to ``table`` as the referee's console does, connected before the
    venue broker hangs (SIGSTOP) and publishing while it hangs; the broker goes on after
    ``hold`` seconds, and the undo's acknowledgement is waited for (up to 10 s). Returns what
    went wrong ("" when nothing did)."""
    topic = f"billiards/club/{table}/request/undo"
    body = json.dumps({"v": 1, "shots": 1, "transaction": transaction})
    try:
        async with aiomqtt.Client("127.0.0.1", port, username="referee",
                                  password=password("referee"), identifier="evening-undo",
                                  timeout=10.0) as client:
            broker.send_signal(signal.SIGSTOP)
            sent = asyncio.create_task(client.publish(topic, body, qos=1))
            await asyncio.sleep(hold)
            broker.send_signal(signal.SIGCONT)
            await asyncio.wait_for(sent, 10.0)
    except (aiomqtt.MqttError, TimeoutError) as exc:
        return str(exc) or type(exc).__name__
    finally:
        broker.send_signal(signal.SIGCONT)
    return ""


async def ask(port: int, venue: str, table: str, transaction: str, wanted_s: float = 30.0
              ) -> str:
    """Sends a ``get`` to ``table`` as the referee's console does (MQTT 5: its ``deadline`` by
    the console's clock, its message expiry ``wanted_s``) and waits for the answer (up to
    ``wanted_s``); returns its status ("ok", "error: why"), or what went wrong."""
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.MessageExpiryInterval = int(wanted_s)
    body = json.dumps({"v": 1, "transaction": transaction, "deadline": time.time() + wanted_s})
    try:
        async with aiomqtt.Client("127.0.0.1", port, username="referee",
                                  password=password("referee"), identifier="evening-console",
                                  protocol=aiomqtt.ProtocolVersion.V5, timeout=10.0) as client:
            await client.subscribe(f"billiards/{venue}/{table}/response/get", qos=1)
            await client.publish(f"billiards/{venue}/{table}/request/get", body, qos=1,
                                 properties=props)
            async with asyncio.timeout(wanted_s):
                async for m in client.messages:
                    answer = json.loads(bytes(m.payload))  # type: ignore[arg-type]
                    if answer.get("transaction") == transaction:
                        status = str(answer.get("status"))
                        return status if status == "ok" else f"{status}: {answer.get('error')}"
    except (aiomqtt.MqttError, TimeoutError) as exc:
        return str(exc) or type(exc).__name__
    return "no answer"


async def observe(port: int, venue: str, heard: Callable[[str, str], None],
                  healthy: Callable[[str, bool], None] | None = None,
                  links: Callable[[str, str, bool, float], None] | None = None) -> None:
    """Calls ``heard(table, state)`` for every table's ``status`` as the dashboard user hears
    it (and ``healthy(table, ok)`` for the health it names), and ``links(table, link, up,
    since)`` for each link in every table's ``health`` (a board's by its unique id; ``since``:
    when its spell up or down began, the table's time), until cancelled; one persistent
    session, reconnecting (a Last Will sent while it was away still reaches it). One session,
    not one a topic: the venue broker names a session after its user
    (``use_username_as_clientid``), and two clients of one user take its session from each
    other, each missing what came while the other held it."""
    def status(table: str, body: dict[str, Any]) -> None:
        heard(table, str(body.get("state")))
        health = body.get("health")
        if healthy is not None and isinstance(health, dict) and "ok" in health:
            healthy(table, bool(health["ok"]))

    def health(table: str, body: dict[str, Any]) -> None:
        for name, link in (body.get("links") or {}).items():
            if links is not None and isinstance(link, dict) and "up" in link:
                links(table, name, bool(link["up"]), float(link.get("since") or 0.0))
    await _listen(port, {f"billiards/{venue}/+/status": status,
                         f"billiards/{venue}/+/health": health})


async def _listen(port: int, heard: dict[str, Callable[[str, dict[str, Any]], None]]) -> None:
    """Calls ``heard[topic](table, payload)`` for each JSON object on each topic filter (``{}``
    for another payload) as the dashboard user, in one persistent session, reconnecting,
    until cancelled."""
    while True:
        try:
            async with aiomqtt.Client("127.0.0.1", port, username="dashboard",
                                      password=password("dashboard"), identifier="dashboard",
                                      keepalive=5, clean_session=False) as client:
                for topic in heard:
                    await client.subscribe(topic, qos=1)
                async for m in client.messages:
                    try:
                        body = json.loads(bytes(m.payload))  # type: ignore[arg-type]
                    except (ValueError, TypeError):
                        body = {}
                    on = next(f for topic, f in heard.items() if m.topic.matches(topic))
                    on(str(m.topic).split("/")[2], body if isinstance(body, dict) else {})
        except aiomqtt.MqttError:
            await asyncio.sleep(0.2)
