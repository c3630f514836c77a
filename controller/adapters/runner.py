"""All adapters of one table, and the async runner that feeds them from MQTT.

``Adapters`` is still pure: ``receive(topic, payload)`` returns the publications. The runner
``run_adapters`` is the only I/O: it subscribes, publishes, and waits out delayed
publications (a WLED restore) in named tasks.

A service embedding the adapters has three ways, from simplest:
- ``serve(url, cafile, base, config, identifier)``: the adapters on a connection of their own
  (their own client id and, with the venue ACL, their own user), reconnecting by themselves;
- ``run_adapters(client, base, config, messages=...)`` on the service's client, handing it the
  messages on the adapters' ``subscriptions()`` (an aiomqtt client has one message stream:
  two readers would steal each other's messages);
- ``Adapters.receive(topic, payload)`` called with what the service publishes itself, the
  service publishing the result (Home Assistant's birth topic then needs a subscription).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiomqtt

from controller.adapters.awtrix import AwtrixAdapter
from controller.adapters.base import Adapter, Publication
from controller.adapters.config import AdaptersConfig
from controller.adapters.homeassistant import HomeAssistantAdapter
from controller.adapters.text import TextDisplayAdapter
from controller.adapters.wled import WledAdapter
from controller.wire.connection import Backoff, parse_broker, publish, tls_context

log = logging.getLogger(__name__)


class Adapters:
    """The configured adapters of the table at ``base_topic``."""

    def __init__(self, base_topic: str, config: AdaptersConfig) -> None:
        self.base = base_topic.rstrip("/")
        self.state_topic = f"{self.base}/state"
        self.event_topic = f"{self.base}/event"
        self.adapters: list[Adapter] = [
            *(AwtrixAdapter(c) for c in config.awtrix),
            *(TextDisplayAdapter(c, self.base) for c in config.text),
            *(WledAdapter(c, config.state_dir) for c in config.wled),
        ]
        if config.homeassistant is not None:
            self.adapters.append(HomeAssistantAdapter(config.homeassistant, self.base))
        # Payloads that were not a JSON object. Snapshots are taken as they come, with no
        # check of "seq": one table publishes them in order, and a table whose journal was
        # wiped starts its "seq" again.
        self.ignored = 0
        # The shots whose foul was announced: a correction rules a shot again and publishes
        # its foul again, which updates what the displays show (B/state) but is not announced
        # a second time (one notification, one flash). An undo gives the shots back.
        self.announced: set[int] = set()

    def subscriptions(self) -> list[str]:
        """Returns every topic to subscribe to (``B/state``, ``B/event``, then the adapters')."""
        extra = [t for a in self.adapters for t in a.subscriptions()]
        return [self.state_topic, self.event_topic, *dict.fromkeys(extra)]

    def start(self) -> list[Publication]:
        return [p for a in self.adapters for p in a.start()]

    def receive(self, topic: str, payload: bytes) -> list[Publication]:
        """Returns what the adapters publish for one received message."""
        if topic in (self.state_topic, self.event_topic):
            data = _object(payload)
            if data is None:
                self.ignored += 1
                return []
            if topic == self.state_topic:
                return [p for a in self.adapters for p in a.on_state(data)]
            if not self._first_announcement(data):
                return []
            return [p for a in self.adapters for p in a.on_event(data)]
        return [p for a in self.adapters for p in a.on_message(topic, payload)]


    def _first_announcement(self, event: dict[str, Any]) -> bool:
        """Returns whether ``event`` is to be announced: not a foul of a shot whose foul was."""
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        if event.get("type") == "undo" and isinstance(data.get("back_to_shot"), int):
            self.announced = {s for s in self.announced if s < data["back_to_shot"]}
        if event.get("type") != "foul" or not isinstance(data.get("shot"), int):
            return True
        if data["shot"] in self.announced:
            log.info("foul of shot %s corrected: shown, not announced again", data["shot"])
            return False
        self.announced.add(data["shot"])
        return True


def _object(payload: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _forget(waiting: dict[str, asyncio.Task[None]], key: str) -> Any:
    def done(task: asyncio.Task[None]) -> None:
        if waiting.get(key) is task:
            del waiting[key]
    return done


async def _messages(client: aiomqtt.Client) -> AsyncIterator[aiomqtt.Message]:
    async for message in client.messages:
        yield message


async def run_adapters(client: aiomqtt.Client, base_topic: str, config: AdaptersConfig, *,
                       messages: AsyncIterator[aiomqtt.Message] | None = None,
                       ready: asyncio.Event | None = None) -> None:
    """Drives the adapters from ``client`` until cancelled or the connection fails.

    Subscribes to ``B/state``, ``B/event`` and the adapters' topics, publishes what the adapters
    return. ``messages``: where to read from instead of ``client.messages`` (a service that
    routes one client's messages to several consumers passes its own stream here). ``ready``
    is set once the subscriptions are made and the start publications sent. Raises
    aiomqtt.MqttError when the connection is lost (the caller reconnects).
    """
    adapters = Adapters(base_topic, config)
    waiting: dict[str, asyncio.Task[None]] = {}

    async def send(p: Publication) -> None:
        await publish(client, p.topic, p.encoded(), qos=1, retain=p.retain)

    async def later(p: Publication) -> None:
        await asyncio.sleep(p.delay)
        await send(p)

    async with asyncio.TaskGroup() as tg:

        async def publish_all(pubs: list[Publication]) -> None:
            for p in pubs:
                if p.key is not None and (old := waiting.pop(p.key, None)) is not None:
                    old.cancel()
                if p.delay > 0:
                    task = tg.create_task(later(p), name=f"adapter {p.key or p.topic}")
                    if p.key is not None:
                        waiting[p.key] = task
                        task.add_done_callback(_forget(waiting, p.key))
                else:
                    await send(p)

        for topic in adapters.subscriptions():
            await client.subscribe(topic, qos=1)
        await publish_all(adapters.start())
        if ready is not None:
            ready.set()
        async for message in messages if messages is not None else _messages(client):
            topic = str(message.topic)
            payload = message.payload
            raw = payload if isinstance(payload, bytes) else str(payload or "").encode()
            try:
                pubs = adapters.receive(topic, raw)
            except Exception:  # one bad payload must not stop the displays
                log.exception("adapters failed on a message on %s", topic)
                continue
            await publish_all(pubs)
            if adapters.ignored:
                log.warning("ignored %s payload(s) that were not JSON objects", adapters.ignored)
                adapters.ignored = 0


async def serve(url: str, cafile: str | None, base: str, config: AdaptersConfig,
                identifier: str, *, password: str | None = None) -> None:
    """Runs the adapters on a connection of their own, reconnecting with jittered backoff
    after a lost connection, until cancelled (what a service embedding them calls).

    Raises BadBrokerUrl for a URL that cannot be used.
    """
    broker = parse_broker(url, password=password)
    backoff = Backoff(1.0, 30.0)
    while True:
        try:
            async with aiomqtt.Client(broker.host, broker.port, username=broker.username,
                                      password=broker.password, identifier=identifier,
                                      tls_context=tls_context(broker, ca_file=cafile)) as client:
                log.info("connected to %s; adapters for %s", broker.address, base)
                backoff.reset()
                await run_adapters(client, base, config)
        except aiomqtt.MqttError as exc:
            wait = backoff.next()
            log.warning("broker connection at %s lost (%s); retrying in %.1f s",
                        broker.address, exc, wait)
            await asyncio.sleep(wait)
