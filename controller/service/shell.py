"""``python -m controller run``: one table on the network; the asyncio shell of its core.

    backend(s) ──► input queue ──► TableCore (table, journal, health) ──► Outbox ──► broker
    broker B/request/+ ──┘            commit ─► write │ sync (thread) ─► release

The core (``controller.service.core``) decides everything and returns what to publish; this shell
does the waiting. One ``TaskGroup``, named tasks: ``backend:<name>`` (sensor events in),
``table`` (the only task that steps the core), ``journal-sync`` (fsyncs in a thread and
releases what each sync covers), ``mqtt`` (the link: requests in, the outbox out,
reconnecting), ``watchdog`` (systemd).

The table task handles what it finds in the queue (waiting ``commit_interval_ms`` for more,
0 by default), has the core write it as one transaction (no wait for the disk) and goes on;
the ``journal-sync`` task syncs in the background, one fsync for every batch written
meanwhile. What waits for which (a live ``ball_pocketed`` for the write, a ruling for the
sync), seq reservation, the clock across reboots and the rebuild from the journal: see
``controller.service.core``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.pipeline.table import Table, status_payload
from controller.service.backends import hardware_backend
from controller.service.config import Config
from controller.service.core import Connected, Release, Request
from controller.service.delivery import Delivery
from controller.service.intake import Incoming
from controller.service.junk import JunkLane, refused_anyway
from controller.service.mqtt import MqttLink, Refusal
from controller.service.opening import open_core, wall_clock
from controller.service.outbox import Outbox
from controller.service.referee import RefereeLane
from controller.service.writes import JournalWrites
from controller.web import Credentials, WebConfig, WebServer
from controller.web.history import History
from controller.web.http import Site
from controller.wire.connection import cancel_and_wait
from hardware.backend import SensorBackend
from hardware.events import LinkChanged, SensorEvent

from .systemd import Notifier
from .timesync import ClockWatch, synchronised

log = logging.getLogger(__name__)


class Unset:
    """A keyword left out (where None means something)."""


UNSET = Unset()

QUEUE_SIZE = 10000
#: The health link that stands for the broker taking (up) or refusing (down) what we publish.
BROKER_LINK = "broker"
#: Requests from the broker waiting for the table, at most: the link then waits, and the
#: broker holds the rest (``controller.service.mqtt``: a request is acknowledged once taken).
REQUESTS_WAITING = 64


@dataclass(frozen=True, slots=True)
class _Brokered:
    """A request from the broker: it holds one of the REQUESTS_WAITING places until handled."""

    request: Request


class _Stop:
    """Ends the table task: ``stopped`` is published and the last batch written."""


class _Flush:
    """Wakes the table task to make deliveries durable (their outbox rows deleted)."""


def _request(msg: Incoming) -> Request:
    """Returns the table's request for one received from the broker."""
    return Request(msg.name, msg.payload, None, msg.response_topic, msg.correlation,
                   msg.problem, msg.expires)


BackendMaker = Callable[["Service"], SensorBackend]
"""Makes a service's sensor backend once the service exists (the simulated one is made so, by
``controller.sim.backend.sim_backend``: it plays the referee's part through ``request``)."""

_Input = SensorEvent | LinkChanged | Request | _Brokered | Connected | _Stop | _Flush


class Service:
    """One table's service (see the module docstring); ``run()`` it, ``stop()`` it.

    ``clock`` is the host's monotonic clock (the core's), ``wall`` its wall clock, and
    ``clock_synchronised`` says whether NTP keeps the wall clock right (``B/health``'s
    ``host``). Raises JournalError when the journal cannot be opened.
    """

    def __init__(self, config: Config, *, backend: SensorBackend | BackendMaker | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = wall_clock,
                 clock_synchronised: Callable[[], bool | None] = synchronised) -> None:
        self.config = config
        self.base = config.base
        self._mono = clock
        self._backend: SensorBackend | None = backend if isinstance(backend, SensorBackend) else None
        self._make = backend if callable(backend) and self._backend is None else None
        self._queue: asyncio.Queue[_Input] = asyncio.Queue(QUEUE_SIZE)
        self._request_room = asyncio.Semaphore(REQUESTS_WAITING)
        self._junk = JunkLane(clock)  # requests refused whatever the table holds, waiting apart
        self._stopping = asyncio.Event()
        self.core = open_core(config, clock=clock, wall=wall)
        self.journal = self.core.journal
        self.health = self.core.health
        self._clock_watch = ClockWatch(self.health.host, clock_synchronised)
        self._clock_watch.check()
        self.outbox = Outbox(self.journal, config.mqtt.outbox_max, on_delivered=self._delivered)
        self.outbox.restore(self.core.restored)
        self._flush_soon: asyncio.TimerHandle | None = None
        client_id = config.mqtt.client_id or f"billiards-{config.venue}-{config.table}"
        self.link = MqttLink(
            config.broker(), config.mqtt, self.base, self.outbox, client_id=client_id,
            will=json.dumps({"v": 1, **status_payload("offline")}).encode(),
            on_connected=lambda: self._put(Connected()),
            on_request=self._incoming, on_refused=self._refused)
        self.lane = RefereeLane(config.broker(), config.mqtt, self.base, client_id=client_id,
                                on_request=self._from_referee)
        self.notifier = Notifier()
        self.writes = JournalWrites(self.core, release=self._release, changed=self._put,
                                    notifier=self.notifier, clock=clock)

    @property
    def table(self) -> Table:
        """The core's table (read it, do not feed it: inputs go through the queue)."""
        return self.core.table

    def clock(self) -> float:
        """Returns the service's time now (``TableCore.clock``)."""
        return self.core.clock()

    # ------------------------------------------------------------------ inputs from tasks
    def _put(self, item: _Input) -> None:
        try:
            self._queue.put_nowait(item)
        except asyncio.QueueFull:
            log.error("input queue full (%d): %s dropped", QUEUE_SIZE, type(item).__name__)

    def _delivered(self) -> None:
        if self._flush_soon is None:
            def flush() -> None:
                self._flush_soon = None
                self._put(_Flush())
            self._flush_soon = asyncio.get_running_loop().call_later(0.1, flush)

    async def _incoming(self, msg: Incoming) -> None:
        request = _request(msg)
        if refused_anyway(request):  # never waited for: answered once nothing else waits
            if self._junk.put(request):
                self._put(_Flush())
            return
        await self._request_room.acquire()
        await self._queue.put(_Brokered(request))

    async def _from_referee(self, msg: Incoming) -> None:
        """A request on the referee lane: taken before any other input waiting."""
        await self.lane.requests.put(_request(msg))
        if len(self.lane.requests) == 1:
            self._put(_Flush())  # wakes the table task

    def _refused(self, refusal: Refusal | None) -> None:
        """The broker began (or stopped) refusing a message: health shows the broker link down
        with the topic and the reason (``B/health``; the link sends it out of turn), and so
        does ``systemctl status``."""
        reason = ("" if refusal is None else
                  f"refuses {refusal.topic}: {refusal.reason} (0x{refusal.code:02X})")
        self._put(LinkChanged(self._mono(), BROKER_LINK, refusal is None, reason))
        self.notifier.status(f"the broker {reason}; messages wait in the outbox"
                             if refusal is not None else "the broker takes every message")

    def request(self, name: str, payload: dict[str, Any], at: float | None = None) -> None:
        """Queues a request as if it came from the broker (for embedding, the simulated
        referee and tests), taken at ``at`` on the service's clock when given."""
        self._put(Request(name, payload) if at is None else Request(name, payload, at))

    # ------------------------------------------------------------------ the table task
    def _publish(self, items: list[Delivery]) -> None:
        for item in items:
            self.outbox.add(item)

    def _release(self, release: Release) -> None:
        if release.upto:
            self.outbox.release(release.upto)
            self.lane.release(release.upto)
        if release.live_upto:
            self.outbox.release_early(release.live_upto)

    async def _table_task(self) -> None:
        loop = asyncio.get_running_loop()
        core = self.core
        group = self.config.journal.commit_interval_ms / 1000
        while True:
            item: _Input | None = None
            try:  # asyncio.timeout, not wait_for: no task per wait on the latency path
                async with asyncio.timeout(0 if self._junk else core.idle_for()):
                    item = await self._queue.get()
            except TimeoutError:
                item = self._junk.take()
            stop = False
            if item is not None:
                deadline = loop.time() + group
                while True:
                    if isinstance(item, _Stop):
                        stop = True
                        break
                    while (referee := self.lane.requests.take()) is not None:
                        answered = core.handle(referee)  # before what else waits
                        self._publish(answered)
                        self.lane.copy(answered)
                    if isinstance(item, _Brokered):
                        self._request_room.release()
                        item = item.request
                    if not isinstance(item, _Flush):
                        self._publish(core.handle(item))
                    try:
                        item = self._queue.get_nowait()
                    except asyncio.QueueEmpty:
                        left = deadline - loop.time()
                        if left <= 0:
                            break
                        junk = self._junk.take()  # answered only when nothing else waits
                        if junk is not None:
                            item = junk
                            continue
                        try:
                            async with asyncio.timeout(left):
                                item = await self._queue.get()
                        except TimeoutError:
                            break
            assert self._backend is not None  # made by run() before this task starts
            self._publish(core.tick(self._backend))
            if stop:
                self._publish(core.stop())
            self.writes.commit()
            if stop:
                return

    # ------------------------------------------------------------------ other tasks
    async def _backend_task(self, backend: SensorBackend) -> None:
        async for item in backend.events():
            await self._queue.put(item)
        log.info("backend %s ended", backend.name)

    def _make_backend(self) -> SensorBackend:
        if self._backend is not None:
            return self._backend
        if self._make is not None:
            return self._make(self)
        return hardware_backend(self.config)

    def host_clock(self) -> float:
        """Returns the host's monotonic time (the clock a backend stamps its edges with)."""
        return self._mono()

    def stop(self) -> None:
        """Asks the service to stop cleanly (publishes ``stopped``, delivers what it can)."""
        self._stopping.set()

    async def run(self, *, ready: Callable[[], None] | None = None) -> None:
        """Runs until ``stop()``. Raises BrokerRefused, JournalError, or a backend's error."""
        notifier = self.notifier
        backend = self._make_backend()
        self._backend = backend
        self._publish(self.core.start())
        rebuilt = self.core.rebuilt
        if rebuilt is not None and not rebuilt.up:  # systemctl status says it too
            notifier.status(f"the table {rebuilt.reason}")
        self.writes.commit()
        try:
            async with backend, asyncio.TaskGroup() as tg:
                table = tg.create_task(self._table_task(), name="table")
                syncer = tg.create_task(self.writes.sync_forever(), name="journal-sync")
                others = [
                    tg.create_task(self._backend_task(backend), name=f"backend:{backend.name}"),
                    tg.create_task(notifier.watchdog(), name="watchdog"),
                    tg.create_task(self._clock_watch.run(), name="clock-sync"),
                ]
                link = tg.create_task(self.link.run(), name="mqtt")
                lane = (tg.create_task(self.lane.run(self.config.mqtt.reconnect_max_s),
                                       name="mqtt-referee") if self.config.mqtt.referee_lane else None)
                notifier.notify("READY=1")
                if ready is not None:
                    ready()
                await self._stopping.wait()
                notifier.notify("STOPPING=1")
                for task in others:
                    task.cancel()
                self._put(_Stop())
                await table
                await self.writes.synced_all()
                syncer.cancel()
                if self.link.connected:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(3.0):
                            await self.outbox.drained()
                self.link.close()
                self.lane.link.close()
                if lane is not None:
                    await cancel_and_wait(lane)
                await cancel_and_wait(link)
        finally:
            self.core.close()


def overrides_of(args: Any) -> dict[str, Any]:
    """Returns the configuration keys the command line sets (interfaces §4)."""
    return {"mqtt.url": getattr(args, "broker", None), "venue": getattr(args, "venue", None),
            "table": getattr(args, "table", None), "backend": getattr(args, "backend", None),
            "data": getattr(args, "data", None)}


def unconfigured(source: str) -> str:
    """Returns the status of a service whose configuration names no backend."""
    return (f"waiting for configuration: no backend in {source} (gpio, serial or sim); "
            "set it, then restart the service")


async def wait_unconfigured(status: str, notifier: Notifier | None = None) -> None:
    """What a fresh install runs (no backend configured): no table, no journal, no broker;
    tells systemd it is ready with ``status`` (``systemctl status`` shows it), keeps its
    watchdog fed and logs ``status``, until SIGTERM or SIGINT."""
    notifier = notifier or Notifier()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    log.warning("%s", status)
    notifier.notify("READY=1")
    notifier.status(status)
    watchdog = asyncio.create_task(notifier.watchdog(), name="watchdog")
    try:
        await stop.wait()
    finally:
        notifier.notify("STOPPING=1")
        await cancel_and_wait(watchdog)


async def serve(config: Config, source: str = "the configuration",
                backend: BackendMaker | None = None) -> None:
    """Runs a service until SIGTERM or SIGINT; serves the venue pages when ``web.enabled``.
    Without a backend configured, only waits (``wait_unconfigured``)."""
    if config.backend is None:
        await wait_unconfigured(unconfigured(source))
        return
    service = Service(config, backend=backend)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, service.stop)
    async with contextlib.AsyncExitStack() as stack:
        if config.web.enabled:
            try:
                web = await stack.enter_async_context(web_server(config))
            except OSError as exc:  # the pages are a convenience: the table referees on
                log.error("cannot serve the web pages on %s:%d: %s", config.web.host,
                          config.web.port, exc)
            else:
                print(f"dashboard: {web.url}\nconsole:   {web.url}console.html?table="
                      f"{config.table}", flush=True)
        await service.run()


def web_server(config: Config, tables: Mapping[str, Path] | None = None,
               language: str | None | Unset = UNSET, record: Site | None = None) -> WebServer:
    """Returns the venue's web server for ``config`` (``[web]``): the pages, the match in
    progress on ``tables`` (table: data directory; default: this table's, when it records)
    and, given the venue ``record``'s site, the match history.
    ``language``: the pages' (None: each browser's own; default: the configuration's).

    The one place the server is put together: ``run`` and the demo both call it."""
    w = config.web
    dashboard = Credentials(w.dashboard_username, w.dashboard_password) if w.dashboard_username else None
    referee = Credentials(w.referee_username) if w.referee_username else None
    if tables is None:
        tables = {config.table: config.data} if config.recording.enabled else {}
    pages = WebConfig(broker=w.broker_ws, venue=config.venue, prefix=config.prefix,
                      dashboard=dashboard, referee=referee, tables=tuple(tables) or (config.table,),
                      language=config.language if isinstance(language, Unset) else language,
                      public_url=w.public_url)
    return WebServer(pages, host=w.host, port=w.port, history=History(dict(tables)) if tables else None,
                     history_process=True, record=record)
