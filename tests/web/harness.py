"""A real table on a real broker for the browser tests, and the pages served beside it.

``LiveTable`` runs a ``controller.pipeline.table.Table`` whose messages go to the broker (paho, QoS 1,
retained as the table says) and whose requests come from it: ``B/request/<name>`` is fed to
``Table.request`` with the table's clock, as the service does. A thread ticks the clock so
provisional rulings fall due. ``WebThread`` runs ``controller.web.WebServer`` on a loop of its
own, so the synchronous Playwright tests can use it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from typing import Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from controller.pipeline.table import Message, Table
from controller.web import WebConfig, WebServer
from controller.web.history import History
from controller.web.http import Site
from hardware.events import SensorEvent


class FixedHealth:
    """Sensor health that stays as given: ``payload`` is the ``B/health`` body, its summary in it."""

    def __init__(self, payload: dict[str, Any]) -> None:
        self.payload = payload

    def snapshot(self) -> dict[str, object]:
        return {k: v for k, v in self.payload.items() if k != "summary"}

    def summary(self) -> dict[str, object]:
        return dict(self.payload.get("summary", {"ok": True, "faults": {}}))


class LiveTable:
    """One table publishing to the broker at ``host:port`` as ``<prefix>/<venue>/<table>``."""

    def __init__(self, host: str, port: int, venue: str, table: str,
                 health: dict[str, Any] | None = None, username: str | None = None,
                 password: str | None = None, persistent: bool = False,
                 lane: bool = True) -> None:
        self.base = f"billiards/{venue}/{table}"
        self.lane = lane  # takes its referee lane's requests too (a table of this release)
        self.lock = threading.RLock()
        self._took = threading.Condition(self.lock)  # notified as each request is taken
        self.t0 = time.monotonic()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.topics: list[str] = []  # the topic each request came on
        self.health = health
        self.table = Table(health=FixedHealth(health) if health else None)
        # persistent: the broker keeps the table's subscription and queues its requests while
        # it is away (as the service's session does)
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-{venue}-{table}",
                                  protocol=paho.MQTTv311, clean_session=not persistent)
        if username:
            self.client.username_pw_set(username, password)
        self.client.will_set(f"{self.base}/status", json.dumps({"v": 1, "state": "offline"}), 1, True)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        # back soon after a broker restart (paho's own backoff grows to 2 minutes): a test
        # that restarts its broker stops its tables a few seconds later
        self.client.reconnect_delay_set(min_delay=1, max_delay=2)
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, daemon=True)
        self.host, self.port = host, port
        self.held: list[Message] | None = None  # responses withheld (``hold_answers``)

    def wait_for_request(self, name: str, timeout: float = 10.0) -> dict[str, Any]:
        """Returns the first request ``name`` the table took, once it has taken one."""
        with self._took:
            if not self._took.wait_for(lambda: any(n == name for n, _ in self.requests), timeout):
                raise AssertionError(f"no {name!r} request reached the table in {timeout} s")
            return next(p for n, p in self.requests if n == name)

    def hold_answers(self) -> None:
        """The table takes requests but its answers wait (a table, or a link, gone slow)."""
        with self.lock:
            self.held = []

    def release_answers(self) -> None:
        """Publishes the answers withheld, in order, and answers at once again."""
        with self.lock:
            held, self.held = self.held or [], None
            self._publish(held)

    def now(self) -> float:
        return round(time.monotonic() - self.t0, 6)

    def _publish(self, messages: list[Message]) -> None:
        for msg in messages:
            if self.held is not None and msg.topic.startswith("response/"):
                self.held.append(msg)  # a slow table: answered later
                continue
            self.client.publish(f"{self.base}/{msg.topic}", json.dumps(msg.payload), msg.qos,
                                msg.retain)

    def _connected(self, client: paho.Client, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        # a table's two request topics: the general one and its referee lane's (what a console
        # publishes first: controller/service/referee.py)
        client.subscribe([(f"{self.base}/request/+", 1)]
                         + ([(f"{self.base}/referee/request/+", 1)] if self.lane else []))
        self._ready.set()

    def _disconnected(self, client: paho.Client, userdata: Any, flags: Any, rc: Any,
                      props: Any) -> None:
        self._ready.clear()

    def _message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        name = msg.topic.rsplit("/", 1)[1]
        with self.lock:
            payload = json.loads(msg.payload)
            self.requests.append((name, payload))
            self.topics.append(msg.topic)
            self._took.notify_all()
            # a live request's deadline is checked against the wall clock, as the service does
            self._publish(self.table.request(name, msg.payload, self.now(), wall=time.time()).messages)

    def _tick(self) -> None:
        while not self._stop.wait(0.05):
            with self.lock:
                self._publish(self.table.advance(self.now()))

    def start(self) -> LiveTable:
        self.client.connect(self.host, self.port)
        self.client.loop_start()
        if not self._ready.wait(10):
            raise RuntimeError("the test table did not connect to the broker")
        with self.lock:
            self._publish(self.table.start(self.now()))
        self._ticker.start()
        return self

    def request(self, name: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Handles a request in-process (as if a keypad sent it); returns the response."""
        with self.lock:
            handled = self.table.request(name, payload, self.now())
            self._publish(handled.messages)
            return handled.response

    def pot(self, pocket: str) -> None:
        """A ball falls: the pocket's beam is blocked for 50 ms (the ruling follows when due)."""
        with self.lock:
            t = self.now()
            for ev in (SensorEvent(t, "cushion.lf", 1), SensorEvent(t + 0.02, "cushion.lf", 0),
                       SensorEvent(t + 0.3, f"beam.{pocket}", 1),
                       SensorEvent(t + 0.35, f"beam.{pocket}", 0)):
                self._publish(self.table.sensor(ev))

    def sense(self, events: list[SensorEvent]) -> None:
        """The sensors report ``events`` (their times on the table's clock, ``now``)."""
        with self.lock:
            for ev in events:
                self._publish(self.table.sensor(ev))

    def settle(self) -> None:
        """Rules the open shot now."""
        with self.lock:
            self._publish(self.table.settle())

    def stop(self) -> None:
        """A clean shutdown: ``stopped`` published, then a proper disconnect."""
        self._stop.set()
        # after its broker restarted, the page may show the table's retained status before
        # the table is connected again (a stressed run's stop found it still away)
        if not self._ready.wait(30):
            raise RuntimeError("the test table was not connected to say it stopped")
        info = self.client.publish(f"{self.base}/status", json.dumps({"v": 1, "state": "stopped"}), 1, True)
        info.wait_for_publish(5)
        self.client.disconnect()
        self.client.loop_stop()

    def vanish(self) -> None:
        """The table stops hearing the broker without a word: its retained status still
        says online (as between a cable pulled and the broker's keep-alive running out)."""
        self._ready.clear()
        self.client.disconnect()
        self.client.loop_stop()

    def come_back(self) -> None:
        """Connects again (the same session, when persistent): queued requests arrive."""
        self.client.reconnect()
        self.client.loop_start()
        if not self._ready.wait(10):
            raise RuntimeError("the test table did not connect again")

    def crash(self) -> None:
        """The connection drops without a goodbye: the broker publishes the Last Will."""
        self._stop.set()
        self.client.loop_stop()
        sock = self.client.socket()
        if isinstance(sock, socket.socket):
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()


class Heard:
    """When a message on ``topic_filter`` reached the broker (at the latest): a subscriber of
    its own hears it as the broker passes it on. What a message's expiry counts from."""

    def __init__(self, host: str, port: int, topic_filter: str) -> None:
        self.times: list[tuple[float, str]] = []  # (time.monotonic(), topic) of each
        self._heard = threading.Condition()
        self._subscribed = threading.Event()
        self.client = paho.Client(CallbackAPIVersion.VERSION2, client_id=f"test-heard-{id(self)}")
        self.client.on_subscribe = lambda *_: self._subscribed.set()
        self.client.on_message = self._message
        self.client.connect(host, port)
        self.client.subscribe(topic_filter, 1)
        self.client.loop_start()
        if not self._subscribed.wait(10):
            raise RuntimeError("the broker did not answer the subscription")

    def _message(self, _client: Any, _userdata: Any, msg: Any) -> None:
        with self._heard:
            self.times.append((time.monotonic(), msg.topic))
            self._heard.notify_all()

    def first(self, ending: str, timeout: float = 10.0) -> float:
        """The time the first message whose topic ends with ``ending`` was heard."""
        def found() -> float | None:
            return next((t for t, topic in self.times if topic.endswith(ending)), None)
        with self._heard:
            if not self._heard.wait_for(lambda: found() is not None, timeout):
                raise TimeoutError(f"no message on …{ending} reached the broker")
            return found()  # type: ignore[return-value]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class WebThread:
    """``WebServer`` on its own event loop in a thread; ``url`` once started."""

    def __init__(self, config: WebConfig, history: History | None = None,
                 record: Site | None = None) -> None:
        self.server = WebServer(config, history=history, record=record)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> WebThread:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(10)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


async def http_get(server: WebServer, target: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """GETs (or HEADs) ``target`` from a running server; returns status, headers, body."""
    reader, writer = await asyncio.open_connection(server.host, server.port)
    writer.write(f"{method} {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body
