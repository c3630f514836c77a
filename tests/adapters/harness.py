"""A table publishing like the service, the adapters running on their own client, and a device
subscriber: all against a real Mosquitto."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import aiomqtt

from controller.adapters import AdaptersConfig, run_adapters
from controller.pipeline.table import Message, Table
from controller.wire.connection import AckingClient, cancel_and_wait
from tests.broker import Broker

B = "billiards/club/t1"
_ids = itertools.count()


def client(broker: Broker, name: str) -> aiomqtt.Client:
    return aiomqtt.Client(broker.host, broker.port, identifier=f"{name}-{next(_ids)}")


def device_client(broker: Broker, name: str) -> AckingClient:
    """A client for ``Device``: it reads with ``next_message`` (never dropping a message at
    a wait's end) and acknowledges what it read."""
    return AckingClient(10_000, broker.host, broker.port, identifier=f"{name}-{next(_ids)}")


class TableService:
    """The table pipeline publishing each message on ``B/<topic>`` as the service does."""

    def __init__(self, mqtt: aiomqtt.Client, language: str = "en") -> None:
        self.mqtt = mqtt
        self.pending: list[Message] = []
        self.table = Table(language=language)
        self.t = 0.0

    async def flush(self) -> None:
        for m in self.pending:
            await self.mqtt.publish(f"{B}/{m.topic}", json.dumps(m.payload), qos=m.qos,
                                    retain=m.retain)
        self.pending.clear()

    async def start(self) -> None:
        self.pending += self.table.start(self.t)
        await self.flush()

    async def request(self, name: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.t += 1.0
        handled = self.table.request(name, payload, self.t)
        self.pending += handled.messages
        response = handled.response
        await self.flush()
        assert response["status"] == "ok", response
        return response

    async def foul(self, fouls: list[str]) -> None:
        """Plays one shot on which the referee declares ``fouls``."""
        await self.request("call", {"calls": []})
        await self.request("declare", {"fouls": fouls})
        await self.request("shot_end", {})

    async def event(self, kind: str, data: dict[str, Any]) -> None:
        """Publishes one event of table.py's shape (for rulings hard to reach by playing)."""
        self.table.resume_seq(self.table.seq + 1)
        payload = {"v": 1, "seq": self.table.seq, "ts": self.t, "type": kind, "data": data}
        await self.mqtt.publish(f"{B}/event", json.dumps(payload), qos=1)

    async def state(self, **changes: Any) -> dict[str, Any]:
        """Publishes the current snapshot with ``changes`` applied; returns it."""
        snap = {**self.table.snapshot(self.t), **changes}
        await self.mqtt.publish(f"{B}/state", json.dumps(snap), qos=1, retain=True)
        return snap


class Device:
    """A subscriber standing in for a device: every message on its topics, in order."""

    def __init__(self, mqtt: AckingClient) -> None:
        self.mqtt = mqtt  # (it reads with next_message, and acknowledges what it read)

    async def next(self, timeout: float = 3.0) -> tuple[str, Any, bool]:
        """Returns (topic, payload: JSON value, or text when not JSON, or "" when empty, retain)."""
        message = await self.mqtt.next_message(timeout)  # (one at a timeout's end is kept)
        if message is None:
            raise TimeoutError(f"no message within {timeout:g} s")
        self.mqtt.ack(message)
        raw = message.payload
        assert isinstance(raw, bytes | bytearray)
        try:
            payload: Any = json.loads(raw) if raw else ""
        except ValueError:
            payload = raw.decode()
        return str(message.topic), payload, bool(message.retain)

    async def nothing(self, within: float = 0.3) -> None:
        got = await self.mqtt.next_message(within)
        assert got is None, f"unexpected {got.topic}: {got.payload!r}"


@contextlib.asynccontextmanager
async def rig(broker: Broker, config: AdaptersConfig, *device_topics: str,
              start_table: bool = True, language: str = "en",
              ) -> AsyncIterator[tuple[TableService, Device]]:
    """Yields a table service (its ``language`` setting) and a device subscribed to
    ``device_topics``, adapters running."""
    async with client(broker, "table") as t, device_client(broker, "device") as d, \
            client(broker, "adapters") as a:
        for topic in device_topics:
            await d.subscribe(topic, qos=1)
        service = TableService(t, language)
        if start_table:
            await service.start()
        ready = asyncio.Event()
        task = asyncio.create_task(run_adapters(a, B, config, ready=ready), name="adapters")
        try:
            async with asyncio.timeout(5):
                await ready.wait()
            yield service, Device(d)
        finally:
            await cancel_and_wait(task)
