"""``python -m controller run``: one table on the network.

    backend(s) ──► input queue ──► table (fusion, referee) ──► journal ──► outbox ──► broker
    broker B/request/+ ──┘                                     (commit)    (QoS 1, in order)

One ``TaskGroup``, named tasks: ``backend:<name>`` (sensor events in), ``table`` (the only
task that touches the table, the health monitor and the journal's writes), ``mqtt`` (the
link: requests in, the outbox out, reconnecting), ``watchdog`` (systemd).

Nothing lost: every input is journaled (``controller.journal``) before anything it caused is
published. The table task handles what it finds in the queue (waiting ``commit_interval_ms``
for more, 0 by default), writes it as one transaction (no wait for the disk) and goes on; the
``journal-sync`` task syncs the journal in the background, one fsync for every batch written
meanwhile, and releases their messages to the outbox. A live ``ball_pocketed`` is not a
ruling: it is released as soon as its batch is written, which survives a crash of the
service, so the beam's news is not held up by the disk. A power cut can take back such an
event with the inputs behind it (never a ruling); its seq is not given out again: seqs up to
``seq_limit`` are reserved on disk before any is published early, and a restart after a
power cut (a new boot, no clean stop) continues after the reservation.
On start the table is rebuilt from the journal: same match id, seq continuing, transactions
still answered once.

Time: inputs carry the service's clock, ``offset + monotonic() × speed`` (speed is 1 except
for the simulator), kept increasing across restarts: after a reboot the monotonic clock
starts again, and the offset is moved so the clock resumes after the last journaled input.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.config import Config, ConfigError, load
from controller.journal import Journal, JournalError
from controller.mqtt import (
    BrokerRefused,
    Incoming,
    MqttLink,
    Outbox,
    UntrustedBroker,
    cancel_and_wait,
)
from controller.simbackend import SimBackend, matches_for
from controller.table import Message, Table
from controller.trace import HealthLine, RequestLine, TraceWriter, parse_line
from hardware.backend import SensorBackend
from hardware.events import LinkChanged, SensorEvent
from hardware.health import EventsLost, HealthMonitor, HealthRecord
from vocabulary import VERSION

from .systemd import Notifier

log = logging.getLogger(__name__)

#: Sensor edges reach the loop a little after they happen: the clock's ticks stay this far
#: behind (seconds of host time) so an edge never arrives older than a tick already taken.
LAG = 0.05
QUEUE_SIZE = 10000
#: Seqs reserved on disk ahead of the last one given out (see the module docstring).
SEQ_RESERVE = 1000


def boot_id() -> str:
    """Returns this boot of the machine's id (Linux), or "" where there is none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


@dataclass(frozen=True, slots=True)
class _Request:
    name: str
    payload: bytes | dict[str, Any]
    t: float | None = None  # host time (simulated keypad), else now
    response_topic: str | None = None
    correlation: bytes | None = None
    problem: str | None = None  # refused whatever it holds (see controller.mqtt)


class _Connected:
    pass


class _Stop:
    pass


class _Flush:
    """Wakes the table task to make deliveries durable (their outbox rows deleted)."""


_Input = SensorEvent | LinkChanged | _Request | _Connected | _Stop | _Flush


class Service:
    """One table's service (see the module docstring); ``async with`` it, then ``run()``."""

    def __init__(self, config: Config, *, backend: SensorBackend | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self.base = config.base
        self.speed = config.sim.speed if config.backend == "sim" else 1.0
        self._mono = clock
        self._backend = backend
        self._queue: asyncio.Queue[_Input] = asyncio.Queue(QUEUE_SIZE)
        self._stopping = asyncio.Event()
        self._replaying = False
        self._reply: tuple[str, bytes | None] | None = None
        self._shot_ended = False
        self._status_health: dict[str, Any] = {}
        self._usable: dict[str, bool] = {}  # what the table was told of each channel
        self._last_t = 0.0
        self._last_input = 0
        self._next_health = 0.0
        self._next_health_publish = clock() + config.health.publish_interval_s
        self._next_commit_check = 0.0
        self.stopped_cleanly = False
        self.journal = Journal(config.data / "journal.sqlite3", sync=config.journal.sync)
        self.outbox = Outbox(self.journal, config.mqtt.outbox_max, on_delivered=self._delivered)
        self._flush_soon: asyncio.TimerHandle | None = None
        self._written = asyncio.Event()  # a batch was written: the sync task has work
        self._synced_all = asyncio.Event()
        self._synced_all.set()
        self._seq_limit = 0  # the seq reservation noted in the journal
        self._seq_durable = 0  # ... and the part of it known to be on disk
        self._written_upto = 0  # the last outbox message in a written batch
        self.trace: TraceWriter | None = None
        self._offset = 0.0
        self._resume_clock()
        # judged on the journal's lagging clock: an edge still on its way is not a stuck sensor
        self.health = HealthMonitor((), clock=self._now)
        self.table = self._rebuild()
        self.link = MqttLink(
            config.broker(), config.mqtt, self.base, self.outbox,
            client_id=config.mqtt.client_id or f"billiards-{config.venue}-{config.table}",
            will=json.dumps({"v": 1, "state": "offline", "version": VERSION}).encode(),
            on_connected=lambda: self._put(_Connected()),
            on_request=self._incoming)

    # ------------------------------------------------------------------ the clock
    def clock(self) -> float:
        """Returns the service's time now (see the module docstring)."""
        return self._offset + self._mono() * self.speed

    def _resume_clock(self) -> None:
        meta = self.journal.meta
        self._offset = float(meta.get("offset", "0"))
        last = float(meta.get("last_t", "0"))
        if "last_t" in meta and self.clock() <= last:  # a reboot: the monotonic clock began again
            away = max(0.0, time.time() - float(meta.get("wall", "0")))
            self._offset = last + min(away, 86400.0) * self.speed + 0.001 - self._mono() * self.speed
            log.info("the monotonic clock went back (a reboot); the journal's time resumes at %.3f",
                     self.clock())
        self._last_t = last
        self.journal.set_meta("offset", repr(self._offset))

    def _host(self, t: float) -> float:
        """Returns the service time of a backend's host-monotonic time."""
        return self._offset + t * self.speed

    # ------------------------------------------------------------------ rebuilding
    def _rebuild(self) -> Table:
        meta = self.journal.meta
        prefix = meta.get("prefix")
        if prefix is None:
            prefix = "m-" + datetime.now(UTC).strftime("%Y%m%d")
            self.journal.set_meta("prefix", prefix)
        table = Table(self._publish, fusion=self.config.fusion_settings(),
                      match_id=lambda n: f"{prefix}-{n}", record=self._record,
                      health=self._health_for_status, language=self.config.language)
        table.matches = int(meta.get("matches_before", "0"))
        inputs = self.journal.inputs()
        self._replaying = True
        try:
            for n, line in enumerate(inputs, start=1):
                if "tick" in line:
                    table.advance(float(line["t"]))
                    continue
                item = parse_line(json.dumps(line), n)
                if isinstance(item, SensorEvent):
                    table.sensor(item)
                elif isinstance(item, RequestLine):
                    table.request(item.name, item.payload, item.t)
                elif isinstance(item, HealthLine):
                    table.set_usable(item.channel, item.usable)
                    self._usable[item.channel] = item.usable
                else:
                    log.error("journal line %d cannot be read: %s", n, line)
        finally:
            self._replaying = False
        known = {tx for tx, _, _ in table.transactions()}
        for tx, name, response in self.journal.answers():
            if tx not in known:
                table.remember(tx, name, response)
        table.seq = max(table.seq, int(meta.get("seq", "0")))
        boot = boot_id()
        if meta.get("clean", "1") != "1" and (not boot or meta.get("boot") != boot):
            # a power cut may have taken back events published before their batch was
            # synced: their seqs were reserved, and are not given out again
            table.seq = max(table.seq, int(meta.get("seq_limit", "0")))
            self.journal.set_meta("seq", table.seq)
            log.info("the last run did not stop cleanly and the machine restarted since: "
                     "seq continues at %d", table.seq + 1)
        self.journal.set_meta("boot", boot)
        self.journal.set_meta("clean", 0)
        self._seq_limit = int(meta.get("seq_limit", "0"))
        if inputs:
            log.info("resumed from the journal: %d inputs, match %s, seq %d",
                     len(inputs), table.match_id, table.seq)
        self.outbox.restore(self.journal.outbox())
        if self.config.recording.enabled:
            self.trace = TraceWriter(
                self.config.data / "traces",
                {"venue": self.config.venue, "table": self.config.table,
                 "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "fusion": self.config.fusion, "language": self.config.language,
                 "resumed": len(inputs)},
                max_bytes=int(self.config.recording.max_mb * (1 << 20)),
                keep=self.config.recording.keep,
                max_total_bytes=int(self.config.recording.total_mb * (1 << 20)))
            for line in inputs:  # each session's trace replays from the match's start
                if "tick" not in line:
                    self.trace.write(line)
        return table

    # ------------------------------------------------------------------ table callbacks
    def _record(self, line: dict[str, Any]) -> None:
        if self._replaying:
            return
        self._last_input = self.journal.add_input(line)
        if self.trace is not None:
            self.trace.write(line)

    def _publish(self, msg: Message) -> None:
        if self._replaying:
            return
        # a lone surrogate (never in a validated request) goes out as its JSON escape
        payload = json.dumps(msg.payload, separators=(",", ":"), ensure_ascii=False).encode(
            "utf-8", "backslashreplace")
        expiry = None
        early = False
        if msg.topic == "event":
            expiry = self.config.mqtt.event_expiry_s or None
            kind = msg.payload.get("type")
            if kind == "shot_result" and not msg.payload["data"].get("corrected"):
                self._shot_ended = True
            early = kind == "ball_pocketed"  # live news, not a ruling: see the module docstring
        elif msg.topic.startswith("response/"):
            expiry = self.config.mqtt.response_expiry_s or None
        self.outbox.add(self.journal.new_outgoing(f"{self.base}/{msg.topic}", payload, msg.retain,
                                                  msg.qos, expiry, early=early))
        if msg.topic.startswith("response/") and self._reply is not None:
            topic, correlation = self._reply
            self.outbox.add(self.journal.new_outgoing(topic, payload, False, 1, expiry, correlation))

    def _health_payload(self) -> dict[str, Any]:
        return {**self.health.snapshot(), "summary": self.health.summary()}

    def _health_for_status(self) -> dict[str, Any]:
        """The table's ``health`` callback: what it puts in B/status (and B/health)."""
        payload = self._health_payload()
        self._status_health = payload["summary"]
        return payload

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

    def _incoming(self, msg: Incoming) -> None:
        self._put(_Request(msg.name, msg.payload, None, msg.response_topic, msg.correlation,
                           msg.problem))

    def _sim_request(self, name: str, payload: dict[str, Any], t: float) -> None:
        self._put(_Request(name, payload, t))

    def request(self, name: str, payload: dict[str, Any]) -> None:
        """Queues a request as if it came from the broker (for embedding and tests)."""
        self._put(_Request(name, payload))

    # ------------------------------------------------------------------ the table task
    def _at(self, t: float) -> float:
        """Returns an input's time as journaled (µs), never before the last input's."""
        return max(round(t, 6), self._last_t)

    def _now(self) -> float:
        return self._at(self.clock() - LAG * self.speed)

    def _tick(self, now: float) -> None:
        if now >= self.table.fusion.next_deadline:
            self._last_t = max(self._last_t, now)
            self._last_input = self.journal.add_input({"t": round(now, 6), "tick": 1})
            self.table.advance(now)

    def _handle(self, item: _Input) -> None:
        if isinstance(item, SensorEvent):
            t = self._at(self._host(item.t))
            ev = dataclasses.replace(item, t=t)
            self._last_t = t
            self.table.sensor(ev)
            self._health(self.health.feed(ev), t)
        elif isinstance(item, LinkChanged):
            t = self._at(self._host(item.t))
            records = self.health.feed(dataclasses.replace(item, t=t))
            self._health(records, t, force=True)
        elif isinstance(item, _Request):
            t = self._now() if item.t is None else self._at(self._host(item.t))
            self._tick(t)
            self._last_t = t
            matches = self.table.matches
            self._reply = (item.response_topic, item.correlation) if item.response_topic else None
            try:
                if item.problem is not None:
                    self.table.refuse(item.name, item.payload, item.problem, t)
                else:
                    # a live request's deadline is checked against the wall clock
                    self.table.request(item.name, item.payload, t,
                                       wall=time.time() if item.t is None else None)
            finally:
                self._reply = None
            if self.table.matches > matches:  # a new match: what came before is not needed
                self.journal.compact(self._last_input, self.table.transactions())
                self.journal.set_meta("matches_before", self.table.matches - 1)
        elif isinstance(item, _Connected):
            self.table.publish_all(self._now())
        if self._shot_ended:
            self._shot_ended = False
            self._health(self.health.shot_ended() + self.health.shot_started(), self._now())

    def _health(self, records: list[HealthRecord], t: float, force: bool = False) -> None:
        for rec in records:
            self._publish(Message("event", {**self.table.stamp(t), "type": rec.event_type,
                                            "data": rec.to_json()}))
        for channel in dict.fromkeys(r.channel for r in records if not isinstance(r, EventsLost)):
            usable = self.health.is_usable(channel)
            if self._usable.get(channel, True) != usable:  # fusion hears it (and the journal)
                self._usable[channel] = usable
                self.table.set_usable(channel, usable)
        if records or force:
            self._publish(Message("health", {**self.table.stamp(t), **self._health_payload()},
                                  retain=True))
        summary = self.health.summary()
        if records and summary != self._status_health:  # B/status carries the summary
            self._status_health = summary
            self._publish(Message("status", {**self.table.stamp(t), "state": "online",
                                             "version": VERSION, "health": summary}, retain=True))

    def _periodic(self, now: float) -> None:
        """What time alone decides: rulings falling due, stuck sensors, counters."""
        self._tick(self._now())
        mono = self._mono()
        if mono >= self._next_health:
            self._next_health = mono + self.config.health.tick_s
            records = list(self.health.tick())
            if self._backend is not None:
                records += self.health.note_stats(self._backend.name, self._backend.stats())
            due = mono >= self._next_health_publish
            if due or records:
                self._next_health_publish = mono + self.config.health.publish_interval_s
            self._health(records, now, force=due)

    def _wait(self) -> float:
        """Returns how long the table task may sleep (host seconds)."""
        due = (self.table.fusion.next_deadline - self.clock()) / self.speed + LAG
        health = self._next_health - self._mono()
        return max(0.001, min(due, health, 1.0))

    def _commit(self) -> None:
        """Writes what the table did (no wait for the disk) and hands it to the sync task."""
        seq = self.table.seq
        if self.journal.pending or str(seq) != self.journal.meta.get("seq"):
            self.journal.set_meta("seq", seq)
            self.journal.set_meta("last_t", repr(self._last_t))
            self.journal.set_meta("wall", repr(time.time()))
            if seq + SEQ_RESERVE // 2 > self._seq_limit:
                self._seq_limit = seq + SEQ_RESERVE
                self.journal.set_meta("seq_limit", self._seq_limit)
        batch = self.journal.take()
        if batch:
            self.journal.write(batch)
            self._written_upto = self.outbox.last_added
        if not self.journal.sync_full:
            self.outbox.release()
        elif seq < self._seq_durable:
            self.outbox.release_early(self._written_upto)
        if self.trace is not None:  # a recording, not the journal: after the release
            self.trace.flush()
        if batch:
            self._synced_all.clear()
            self._written.set()

    async def _sync_task(self) -> None:
        """Syncs the journal whenever a batch was written; releases what the sync covers."""
        while True:
            await self._written.wait()
            self._written.clear()
            upto, limit = self._written_upto, self._seq_limit
            await asyncio.to_thread(self.journal.sync)
            self._seq_durable = limit
            self.outbox.release(upto)
            if self.journal.sync_full and self.table.seq < limit:  # written since the sync began
                self.outbox.release_early(self._written_upto)
            if not self._written.is_set():
                self._synced_all.set()

    async def _table_task(self) -> None:
        loop = asyncio.get_running_loop()
        group = self.config.journal.commit_interval_ms / 1000
        while True:
            item: _Input | None = None
            try:  # asyncio.timeout, not wait_for: no task per wait on the latency path
                async with asyncio.timeout(self._wait()):
                    item = await self._queue.get()
            except TimeoutError:
                pass
            stop = False
            if item is not None:
                deadline = loop.time() + group
                while True:
                    if isinstance(item, _Stop):
                        stop = True
                        break
                    self._handle(item)
                    try:
                        item = self._queue.get_nowait()
                    except asyncio.QueueEmpty:
                        left = deadline - loop.time()
                        if left <= 0:
                            break
                        try:
                            async with asyncio.timeout(left):
                                item = await self._queue.get()
                        except TimeoutError:
                            break
            self._periodic(self.clock())
            if stop:
                now = self._now()
                self._publish(Message("status", {**self.table.stamp(now), "state": "stopped",
                                                 "version": VERSION}, retain=True))
            self._commit()
            if stop:
                return

    # ------------------------------------------------------------------ other tasks
    async def _backend_task(self, backend: SensorBackend) -> None:
        async for item in backend.events():
            await self._queue.put(item)
        log.info("backend %s ended", backend.name)

    def _make_backend(self) -> SensorBackend:
        cfg = self.config
        if cfg.backend == "sim":
            sim = cfg.sim
            matches = matches_for(trace=sim.trace, game=sim.game, shots=sim.shots, seed=sim.seed,
                                  noise=sim.noise, players=sim.players, loop=sim.loop)
            return SimBackend(matches, speed=self.speed, on_request=self._sim_request,
                              clock=self._mono)
        if cfg.backend == "gpio":
            from hardware.gpio import GpioBackend, pi_pin_factory
            if not cfg.gpio.pins:
                raise ConfigError("gpio.pins: the gpio backend needs at least one channel = pin")
            return GpioBackend(cfg.gpio.pins, pin_factory=pi_pin_factory())
        from firmware_bridge.backend import SerialBackend
        if not cfg.serial.ports:
            raise ConfigError("serial.ports: the serial backend needs at least one port")
        return SerialBackend(cfg.serial.ports)

    def stop(self) -> None:
        """Asks the service to stop cleanly (publishes ``stopped``, delivers what it can)."""
        self._stopping.set()

    async def run(self, *, ready: Callable[[], None] | None = None) -> None:
        """Runs until ``stop()``. Raises BrokerRefused, JournalError, or a backend's error."""
        notifier = Notifier()
        backend = self._backend or self._make_backend()
        self._backend = backend
        self.table.start(self._now())
        self._commit()
        try:
            async with backend, asyncio.TaskGroup() as tg:
                table = tg.create_task(self._table_task(), name="table")
                syncer = tg.create_task(self._sync_task(), name="journal-sync")
                others = [
                    tg.create_task(self._backend_task(backend), name=f"backend:{backend.name}"),
                    tg.create_task(notifier.watchdog(), name="watchdog"),
                ]
                link = tg.create_task(self.link.run(), name="mqtt")
                notifier.notify("READY=1")
                if ready is not None:
                    ready()
                await self._stopping.wait()
                notifier.notify("STOPPING=1")
                for task in others:
                    task.cancel()
                self._put(_Stop())
                await table
                await self._synced_all.wait()
                syncer.cancel()
                if self.link.connected:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.outbox.drained(), 3.0)
                    self.stopped_cleanly = True
                self.link.close()
                await cancel_and_wait(link)
        finally:
            if self.trace is not None:
                self.trace.close()
            self.journal.set_meta("clean", 1)
            self.journal.close()


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


async def serve(config: Config, source: str = "the configuration") -> None:
    """Runs a service until SIGTERM or SIGINT; serves the venue pages when ``web.enabled``.
    Without a backend configured, only waits (``wait_unconfigured``)."""
    if config.backend is None:
        await wait_unconfigured(unconfigured(source))
        return
    service = Service(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, service.stop)
    async with contextlib.AsyncExitStack() as stack:
        if config.web.enabled:
            try:
                web = await stack.enter_async_context(_web_server(config))
            except OSError as exc:  # the pages are a convenience: the table referees on
                log.error("cannot serve the web pages on %s:%d: %s", config.web.host,
                          config.web.port, exc)
            else:
                print(f"dashboard: {web.url}\nconsole:   {web.url}console.html?table="
                      f"{config.table}", flush=True)
        await service.run()


def _web_server(config: Config) -> Any:
    """Returns the server of the dashboard and the referee console (``controller.web``)."""
    from controller.web import WebConfig, WebServer
    from controller.web.server import Credentials

    w = config.web
    dashboard = Credentials(w.dashboard_username, w.dashboard_password) if w.dashboard_username else None
    referee = Credentials(w.referee_username) if w.referee_username else None
    pages = WebConfig(broker=w.broker_ws, venue=config.venue, prefix=config.prefix,
                      dashboard=dashboard, referee=referee, tables=(config.table,),
                      language=config.language)
    from controller.web.history import History

    history = History({config.table: config.data}) if config.recording.enabled else None
    return WebServer(pages, host=w.host, port=w.port, history=history)


def run_main(args: Any) -> int:
    """The ``run`` command; returns the exit status (2: configuration or credentials)."""
    try:
        config = load(args.config, overrides_of(args))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(config, str(args.config or "the configuration")))
    except (Exception, ExceptionGroup) as exc:  # noqa: B014
        cause = _first(exc)
        if isinstance(cause, BrokerRefused | UntrustedBroker | ConfigError):
            print(f"error: {cause}", file=sys.stderr)
            return 2
        from firmware_bridge.errors import BridgeError
        from hardware.gpio import GpioError
        if isinstance(cause, JournalError | BridgeError | GpioError):
            print(f"error: {cause}", file=sys.stderr)
            return 1
        raise
    return 0


def _first(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc
