"""A real table on a real broker for the browser tests, and the pages served beside it.

``LiveTable`` runs a ``controller.pipeline.table.Table`` whose messages go to the broker (paho, QoS 1,
retained as the table says) and whose requests come from it: ``B/request/<name>`` is fed to
``Table.request`` with the table's clock, as the service does. A thread ticks the clock so
provisional rulings fall due. ``WebThread`` runs ``controller.web.WebServer`` on a loop of its
own, so the synchronous Playwright tests can use it. ``Tabs`` keeps a module's browser pages
open between its tests; ``expect`` is Playwright's, looking every 100 ms to the end.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from controller.pipeline.table import Message, Table
from controller.web import WebConfig, WebServer
from controller.web.history import History
from controller.web.http import Site
from hardware.events import SensorEvent

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page


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


class Tabs:
    """Browser pages a module's tests share, each in a browser context of its own: ``open``
    navigates one no test holds (a new page costs Chromium a renderer process, about 0.4 s),
    ``close`` gives it back blank, its storage cleared (a language picked stays with the test
    that picked it). A page given an init script (a clock of its own) is a new one, closed for
    good; so is one a test never gave back (it failed)."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self._free: list[Page] = []
        self._contexts: list[BrowserContext] = []

    def open(self, url: str, size: tuple[int, int], init: str | None = None) -> Page:
        """Returns a page of ``size`` showing ``url``; its script errors go to ``page.errors``."""
        if self._free and init is None:
            page = self._free.pop()
            page.set_viewport_size({"width": size[0], "height": size[1]})
        else:
            context = self.browser.new_context(viewport={"width": size[0], "height": size[1]})
            self._contexts.append(context)
            page = _catching(context.new_page())
            page.tabs = self  # type: ignore[attr-defined]
            page.kept = init is None  # type: ignore[attr-defined]
            if init:
                page.add_init_script(init)
        page.errors.clear()  # type: ignore[attr-defined]
        page.goto(url)
        return page

    def close(self, page: Page) -> None:
        """Gives ``page`` back, once no script error happened in it."""
        assert page.errors == []  # type: ignore[attr-defined]
        if not page.kept:  # type: ignore[attr-defined]
            page.context.close()
            return
        # (a page that never left about:blank has no storage: reading it throws)
        page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch {} }")
        page.goto("about:blank")
        self._free.append(page)

    def stop(self) -> None:
        for context in self._contexts:
            context.close()


def open_page(where: Browser | Tabs, url: str, size: tuple[int, int], init: str | None = None) -> Page:
    """A page of ``size`` showing ``url`` (one of ``where``'s when it is ``Tabs``); its script
    errors go to ``page.errors``. ``close_page`` closes it."""
    if isinstance(where, Tabs):
        return where.open(url, size, init)
    page = _catching(where.new_page(viewport={"width": size[0], "height": size[1]}))
    if init:
        page.add_init_script(init)
    page.goto(url)
    return page


def _catching(page: Page) -> Page:
    """Returns ``page``, its script errors collected in ``page.errors``."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def close_page(page: Page) -> None:
    """Closes ``page`` (gives it back to its ``Tabs``), once no script error happened in it."""
    tabs: Tabs | None = getattr(page, "tabs", None)
    if tabs is not None:
        tabs.close(page)
        return
    assert page.errors == []  # type: ignore[attr-defined]
    page.close()


#: How long one of Playwright's expectations is given before it is asked again (ms): under
#: 2.5 s it looks every 100 ms to the end (a longer one, after its first quarter second,
#: every 500 ms: what a page shows a moment later was seen up to half a second late).
SLICE_MS = 2000.0
#: Playwright's own timeout for an expectation (ms), when a test gives none.
EXPECT_MS = 5000.0


class _Soon:
    """Playwright's assertions on one locator or page, each asked in ``SLICE_MS`` slices until
    its whole timeout has run out (the last failure raised)."""

    def __init__(self, assertions: Any) -> None:
        self._assertions = assertions

    @property
    def not_(self) -> _Soon:
        return _Soon(self._assertions.not_)

    def __getattr__(self, name: str) -> Any:
        check = getattr(self._assertions, name)
        if not name.startswith(("to_", "not_to_")):
            return check

        def soon(*args: Any, timeout: float | None = None, **kwargs: Any) -> None:
            deadline = time.monotonic() + (EXPECT_MS if timeout is None else timeout) / 1000
            while True:
                left_ms = (deadline - time.monotonic()) * 1000
                try:
                    check(*args, timeout=max(1.0, min(left_ms, SLICE_MS)), **kwargs)
                    return
                except AssertionError:
                    if left_ms <= SLICE_MS:
                        raise
        return soon


def expect(actual: Page | Locator, message: str | None = None) -> Any:
    """Playwright's ``expect(actual)``, its assertions looking every 100 ms until their timeout."""
    from playwright.sync_api import expect as playwright_expect

    return _Soon(playwright_expect(actual, message))


#: The elements of a selector that are rendered (an element not rendered measures 0 × 0, so
#: no box could cut it: a check of it passes whatever the page does), the texts of those whose
#: box cuts them (wider than their box, an ellipsis, a line clamp, or, when ``tall`` counts,
#: taller than their box), and how many wall cards are rendered; found
#: and measured in one step (the wall redraws a card whose clock ticked: an element found a
#: step before it is measured may be out of the page by then).
_CUT = """([selector, tall]) => {
  const shown = [...document.querySelectorAll(selector)].filter((e) => e.checkVisibility());
  const cut = shown.filter((e) => { const style = getComputedStyle(e);
    return e.scrollWidth > e.clientWidth + 0.5 || style.textOverflow === "ellipsis"
      || !["none", ""].includes(style.webkitLineClamp)
      || (tall && e.scrollHeight > e.clientHeight + 0.5); });
  const cards = [...document.querySelectorAll("article.table")].filter((e) => e.checkVisibility());
  return {shown: shown.length, cut: cut.map((e) => e.textContent), cards: cards.length};
}"""


def cut_texts(page: Page, selector: str, *, tall: bool = True, each_card: int = 0,
              at_least: int = 1) -> list[str]:
    """The texts of ``selector``'s rendered elements whose box cuts them (``tall``: a box too
    short for them counts); asserts that at least ``at_least`` of them, and ``each_card`` for
    each wall card shown, are rendered (measured)."""
    found = page.evaluate(_CUT, [selector, tall])
    assert found["shown"] >= max(at_least, each_card * found["cards"]), (selector, found)
    return list(found["cut"])
