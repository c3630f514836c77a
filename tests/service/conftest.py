"""Fixtures for the service against a real Mosquitto: configs, a running service, a subscriber."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from controller.service.config import Config, validate
from controller.service.shell import Service
from controller.wire.connection import cancel_and_wait, left_behind
from firmware_bridge.sim import SimBoard
from hardware.gpio import GpioBackend
from tests.broker import Broker
from tests.hardware.pins import PinDriver, mock_factory
from tests.service.paced import SimGate, paced_sim_backend

B = "billiards/club/t1"


def idle_trace(directory: Path) -> Path:
    """A trace with no events: the sim backend then only reports its link."""
    path = directory / "idle.jsonl"
    path.write_text('{"trace": 1}\n')
    return path


def make_config(tmp_path: Path, broker: Broker, **sections: Any) -> Config:
    raw: dict[str, Any] = {
        "venue": "club", "table": "t1", "backend": "sim", "data": str(tmp_path / "data"),
        "mqtt": {"url": broker.url, "reconnect_min_s": 0.1, "reconnect_max_s": 0.5},
        "journal": {"sync": "normal", "commit_interval_ms": 5},
        "sim": {"trace": str(idle_trace(tmp_path)), "loop": False},
        "web": {"enabled": False},
    }
    for key, value in sections.items():
        if isinstance(value, dict):
            raw.setdefault(key, {}).update(value)
        else:
            raw[key] = value
    return validate(raw, "test")


@dataclass
class Seen:
    topic: str
    payload: dict[str, Any]
    retain: bool
    properties: Any = None

    @property
    def kind(self) -> str:
        return self.topic.removeprefix(B + "/")


@dataclass
class Collector:
    """A real subscriber; reconnects (with its session) when the broker goes away."""

    broker: Broker
    topic: str = "billiards/#"
    identifier: str | None = None
    persistent: bool = False
    v5: bool = False
    username: str | None = None
    password: str | None = None
    seen: list[Seen] = field(default_factory=list)
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            client = aiomqtt.Client(
                self.broker.host, self.broker.port, identifier=self.identifier,
                username=self.username, password=self.password,
                clean_session=False if self.persistent else None,
                protocol=aiomqtt.ProtocolVersion.V5 if self.v5 else None)
            try:
                async with client:
                    await client.subscribe(self.topic, qos=1)
                    self.connected.set()
                    async for m in client.messages:
                        self._take(m)
            except aiomqtt.MqttError:
                self.connected.clear()
                for m in left_behind(client):  # acknowledged: the broker will not resend them
                    self._take(m)
                await asyncio.sleep(0.05)

    def _take(self, m: aiomqtt.Message) -> None:
        raw = m.payload if isinstance(m.payload, bytes) else b"null"
        try:
            payload = json.loads(raw)
        except ValueError:
            payload = {"raw": raw.decode(errors="replace")}
        self.seen.append(Seen(str(m.topic), payload, m.retain, m.properties))

    async def __aenter__(self) -> Collector:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self.connected.wait(), 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        await cancel_and_wait(self._task)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [s.payload for s in self.seen if s.kind == kind]

    def events(self, type_: str | None = None) -> list[dict[str, Any]]:
        return [p for p in self.of("event") if type_ is None or p["type"] == type_]

    def last(self, kind: str) -> dict[str, Any]:
        return self.of(kind)[-1]

    async def wait(self, check: Callable[[], Any], timeout: float = 10.0) -> Any:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            result = check()
            if result:
                return result
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out; saw {[(s.kind, s.payload) for s in self.seen][-8:]}")
            await asyncio.sleep(0.02)

    async def response(self, name: str, tx: str, count: int = 1) -> dict[str, Any]:
        def found() -> list[dict[str, Any]]:
            got = [p for p in self.of(f"response/{name}") if p.get("transaction") == tx]
            return got if len(got) >= count else []
        got: list[dict[str, Any]] = await self.wait(found)
        return got[-1]


class Requester:
    """Publishes requests as a scorekeeper's app would."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client

    async def send(self, name: str, payload: dict[str, Any] | bytes, **kw: Any) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        await self.client.publish(f"{B}/request/{name}", data, qos=1, **kw)

    async def play(self, col: Collector, steps: list[tuple[str, dict[str, Any]]]) -> None:
        """Sends each request in turn, once ``col`` has seen the last one's answer (each
        carries a transaction)."""
        for name, payload in steps:
            await self.send(name, payload)
            await col.response(name, payload["transaction"])

    async def settle(self, col: Collector, transaction: str = "settled") -> None:
        """Returns once a ``get`` sent now is answered: the table takes requests in turn and
        publishes in order, so whatever the requests sent before caused has reached ``col``
        (instead of waiting a while for what might still come)."""
        await self.send("get", {"transaction": transaction})
        await col.response("get", transaction)

    async def until_answered(self, col: Collector, name: str, payload: dict[str, Any],
                             wait: float, tries: int = 10) -> dict[str, Any]:
        """Sends a request and resends it (same transaction) until ``col`` sees its answer,
        as an app does when no answer comes; returns the answer."""
        for _ in range(tries):
            await self.send(name, payload)
            try:
                return await asyncio.wait_for(col.response(name, payload["transaction"]), wait)
            except (TimeoutError, AssertionError):
                continue
        raise AssertionError(f"{name} {payload['transaction']} never answered")


@contextlib.asynccontextmanager
async def requester(broker: Broker, v5: bool = False) -> AsyncIterator[Requester]:
    async with aiomqtt.Client(broker.host, broker.port,
                              protocol=aiomqtt.ProtocolVersion.V5 if v5 else None) as client:
        yield Requester(client)


@contextlib.asynccontextmanager
async def running(config: Config | Service) -> AsyncIterator[Service]:
    """A service (or one made of ``config``) running in this event loop, connected; stopped
    cleanly afterwards."""
    if isinstance(config, Service):
        service = config
    elif config.backend == "sim":  # its clock held at an edge overdue (tests.service.paced)
        gate = SimGate()
        service = Service(config, backend=paced_sim_backend(gate), clock=gate)
    else:
        service = Service(config)
    task = asyncio.create_task(service.run())
    deadline = asyncio.get_running_loop().time() + 10
    while not service.link.connected:
        if task.done():
            task.result()
        assert asyncio.get_running_loop().time() < deadline, "the service did not connect"
        await asyncio.sleep(0.02)
    try:
        yield service
    finally:
        service.stop()
        await asyncio.wait_for(task, 10)


@contextlib.asynccontextmanager
async def board_table(tmp_path: Path, broker: Broker, board: SimBoard,
                      **sections: Any) -> AsyncIterator[tuple[Collector, Service]]:
    """A service on one simulated sensor board (the real firmware on a pty) and a subscriber,
    once the board's own link (not only the backend's) shows up in B/health, with its
    channels."""
    config = make_config(tmp_path, broker, backend="serial", serial={"ports": [board.path]},
                         **sections)
    async with Collector(broker) as col, running(config) as service:
        await col.wait(lambda: any(h.get("links", {}).get(board.uid, {}).get("up")
                                   and h["links"][board.uid]["channels"]
                                   for h in col.of("health")), 20)
        yield col, service


@pytest.fixture
def config(tmp_path: Path, broker: Broker) -> Config:
    return make_config(tmp_path, broker)


class HeldClock:
    """The host's monotonic clock, which a test can stop at a time of its choosing
    (``hold``): the service then sees no time pass, however late a loaded machine runs its
    threads and its loop. ``reads`` counts the readings since the last ``hold``."""

    def __init__(self) -> None:
        self.held: float | None = None
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return time.monotonic() if self.held is None else self.held

    def hold(self, at: float) -> None:
        """Stops the clock at ``at`` (never back: a monotonic clock)."""
        self.held = max(at, self.held if self.held is not None else time.monotonic())
        self.reads = 0


@contextlib.contextmanager
def gpio_table(tmp_path: Path, broker: Broker, pins: dict[str, int | str], *, late: float = 0.0,
               clock: Callable[[], float] = time.monotonic,
               **sections: Any) -> Iterator[tuple[Service, PinDriver]]:
    """A service (not yet running) on gpiozero's MockFactory pins, and the driver of its
    sensors' edges (``late``: each edge handed over that long after it happened); ``clock``
    is the host's monotonic clock the service and its backend read."""
    config = make_config(tmp_path, broker, backend="gpio", gpio={"pins": pins}, **sections)
    factory = mock_factory()
    driver = PinDriver(factory, pins, late=late)
    try:
        yield (Service(config, backend=GpioBackend(pins, pin_factory=factory, clock=clock),
                       clock=clock), driver)
    finally:
        driver.stop()
        factory.close()


async def shot_pocketing(driver: PinDriver, pocket: str, cushion: str = "f") -> None:
    """A shot that pockets a ball: a cushion shakes, then a ball crosses ``pocket``'s beam."""
    at = driver.factory.ticks() - driver.t0 + 0.01
    await driver.edge(f"cushion.{cushion}", 1, at)
    await driver.edge(f"cushion.{cushion}", 0, at + 0.01)
    await driver.edge(f"beam.{pocket}", 1, at + 0.2)
    await driver.edge(f"beam.{pocket}", 0, at + 0.23)
