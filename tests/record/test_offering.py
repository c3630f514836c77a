"""The next match and the waiting list on a real Mosquitto, the recorder as ``python -m
controller record --web`` runs it, both stores: a pair joining on the recorder's HTTP server
or from a console over MQTT is offered, retained on ``<table>/next``, to the free table of
its kind; a malformed request is answered with an error; only the director takes an entry
off over HTTP; a recorder killed and started again offers the same."""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import aiomqtt

from controller.record.store import Store
from tests.broker import Broker, free_port
from tests.record.test_offers import played
from tests.record.venue import recorder

NEXT = "billiards/club/t1/next"


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 (a test's own URL)
            return answer.status, dict(json.load(answer))
    except urllib.error.HTTPError as refused:
        return refused.code, dict(json.load(refused))


async def _next(client: aiomqtt.Client, topic: str, wanted: Any = None) -> Any:
    """Returns the next message's body on ``topic`` (None for an empty one) that ``wanted``
    (a predicate) takes, within 30 s."""
    async with asyncio.timeout(30):
        async for message in client.messages:
            if str(message.topic) != topic:
                continue
            raw = bytes(message.payload)  # type: ignore[arg-type]
            body = json.loads(raw) if raw else None
            if wanted is None or wanted(body):
                return body
    raise AssertionError(f"nothing on {topic}")


def _names(offer: Any) -> list[str] | None:
    return None if not offer else [p["name"] for p in offer["players"]]


async def test_joins_from_the_page_and_a_console_are_offered_to_the_free_table_and_kept(
        tmp_path: Path, broker: Broker, store_url: str) -> None:
    store = Store(store_url)
    played(store, "t1", "ten-ball", 1.0)
    port = free_port()
    base = f"http://127.0.0.1:{port}/record/waiting/club"
    proc = recorder(broker, store_url, tmp_path / "recorder.log", "--web", f"127.0.0.1:{port}")
    try:
        async with aiomqtt.Client(broker.host, broker.port) as console:
            for topic in (NEXT, "billiards/club/waiting", "billiards/club/waiting/response/+"):
                await console.subscribe(topic, qos=1)
            status, joined = 0, {}
            for _ in range(300):  # the recorder's server up
                try:
                    status, joined = _post(base, {"action": "join", "kind": "pool",
                                                  "players": [{"name": "Вера"}, {"name": "Глеб"}]})
                    break
                except (ConnectionError, urllib.error.URLError):
                    await asyncio.sleep(0.1)
            assert status == 201
            offer = await _next(console, NEXT, lambda b: _names(b) == ["Вера", "Глеб"])
            assert (offer["source"], offer["offer"], offer["game"]) == (
                "waiting", joined["entry"]["entry"], "ten-ball")
            await console.publish("billiards/club/waiting/request/join", json.dumps({
                "transaction": "c-1", "kind": "pool", "players": [{"id": "p7", "name": "Дина"}]}),
                qos=1)
            answer = await _next(console, "billiards/club/waiting/response/join")
            assert answer["status"] == "ok" and answer["transaction"] == "c-1"
            lists = await _next(console, "billiards/club/waiting",
                                lambda b: len(b["lists"]["pool"]) == 2)
            assert [e["offered_to"] for e in lists["lists"]["pool"]] == ["t1", None]
            await console.publish("billiards/club/waiting/request/join", b"junk", qos=1)
            refused = await _next(console, "billiards/club/waiting/response/join")
            assert (refused["status"], refused["error"]) == ("error", "body")
        status, body = _post(base, {"action": "leave", "entry": joined["entry"]["entry"]})
        assert (status, body["refused"]) == (403, "no_password")  # no director: nobody empties it
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc = recorder(broker, store_url, tmp_path / "recorder.log")
        async with aiomqtt.Client(broker.host, broker.port) as later:
            await later.subscribe(NEXT, qos=1)
            assert await _next(later, NEXT) == offer  # retained, and the same after a restart
    finally:
        proc.terminate()
        proc.wait()
