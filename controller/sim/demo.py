"""``python -m controller demo``: simulated tables playing matches over a real broker.

No hardware and no set-up beyond the README's (which installs Mosquitto): unless ``--broker``
names one, the demo starts its own Mosquitto on a free port with a configuration of its own
in a temporary directory, runs ``--tables`` services on the ``sim`` backend (venue ``demo``,
tables ``t1``, ``t2``, …), prints the broker's address and a ``mosquitto_sub`` line to watch
the traffic, and shows each table's live score as it changes. ``--seconds`` stops it.

Beside the tables runs the venue recorder (``controller.record``: an SQLite store in the
demo's directory, on the same broker: the demo's Mosquitto lets anyone in, so it needs no
user of its own), and the pages' server serves its history: ``history.html`` fills up
as the tables finish their matches.

``--tournament 16`` plays a 16-player double elimination on the tables
(``controller.sim.bracket_tables``): each match started on its table from the recorder's offer
(its retained ``next``) by a ``new_match`` over MQTT naming the tournament match, each result
taken by the recorder from the table's ``match_over`` by that id, until the tournament has its
winner; the pages
show the bracket (``tournament.html``) and the director's tablet (``director.html``). The
director's login (user ``director``) has a password made for the run, kept in a file of the
demo's directory (mode 0600; the demo prints where, never the password itself).

``--hand t2`` leaves table t2 to a person: its simulated sensors play nothing (and it has
no cushion sensors: ``HAND_FUSION``) and nothing sends it requests, so a match is started,
called, ended shot by shot and corrected from its referee console (the demo prints its
address) while the other tables play on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import secrets
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import aiomqtt

from controller.pipeline.scoreboard import value_key
from controller.record.director import CREDENTIAL, DirectorSite, WithRecord
from controller.record.recorder import Recorder
from controller.record.store import Store
from controller.record.waiting_desk import WaitingSite
from controller.record.web import RecordSite
from controller.service.config import Config, ConfigError, WebSection, validate
from controller.service.shell import Service, web_server
from controller.sim import bracket_tables
from controller.sim.backend import SimBackend, sim_backend
from controller.sim.broker import Mosquitto, MosquittoError, free_port
from controller.wire.connection import parse_broker, read_password
from rules.games import default_game, specs
from vocabulary import RAIL_OF_CUSHION

log = logging.getLogger(__name__)

#: The games the tables play in turn (the rules' games, the default first, then by id).
GAMES = (default_game(), *sorted({s.id for s in specs()} - {default_game()}))
#: A hand-played table's fusion: it has no cushion sensors, so cushions are unknown (the
#: game's documented default, or a question), never "no cushion hits". Its pockets are what
#: the referee declares at the console.
HAND_FUSION: dict[str, Any] = {"absent": list(RAIL_OF_CUSHION)}


class EmbeddedBroker(Mosquitto):
    """The demo's own Mosquitto, with a websockets listener for the browser pages when this
    Mosquitto has websockets."""

    def __init__(self, directory: Path) -> None:
        self.ws_port: int | None = free_port()
        super().__init__(directory, extra=self._ws_lines())

    def _ws_lines(self) -> str:
        return f"listener {self.ws_port} 127.0.0.1\nprotocol websockets" if self.ws_port else ""

    def start(self, timeout: float = 10.0) -> None:
        try:
            super().start(timeout)
        except MosquittoError:
            if self.ws_port is None:
                raise
            log.info("this Mosquitto has no websockets: starting it without")
            self.ws_port = None
            self.extra = self._ws_lines()
            self.write_conf()
            super().start(timeout)


def score_line(table: str, state: dict[str, Any]) -> str:
    """Returns one terminal line for a table's state."""
    players = state.get("players") or []
    if not players:
        return f"{table:>4}  (no match)"
    key = value_key(state)
    names = "  ".join(f"{'>' if state.get('to_shoot') == i else ' '}{p['name']} {p[key]}"
                      for i, p in enumerate(players))
    status = state.get("status", "")
    if status == "match_over" and state.get("winner") is not None:
        status = f"match over, {players[state['winner']]['name']} wins"
    return f"{table:>4}  {state.get('game', ''):<12} shot {state.get('shot', 0):>3}  {names}  [{status}]"


async def scoreboard(url: str, out: TextIO, counts: dict[str, int]) -> None:
    """Prints each table's score whenever its state changes; counts messages per topic kind."""
    parts = urlsplit(url)
    shown: dict[str, str] = {}
    while True:
        try:
            async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883,
                                      identifier=None) as client:
                await client.subscribe("billiards/demo/#", qos=1)
                async for message in client.messages:
                    topic = str(message.topic)
                    kind = topic.split("/")[3] if topic.count("/") >= 3 else topic
                    counts[kind] = counts.get(kind, 0) + 1
                    if not topic.endswith("/state"):
                        continue
                    state = json.loads(message.payload if isinstance(message.payload, bytes) else b"{}")
                    table = topic.split("/")[2]
                    line = score_line(table, state)
                    if shown.get(table) != line:
                        shown[table] = line
                        with contextlib.suppress(BrokenPipeError):  # `demo | head` is fine
                            out.write(line + "\n")
                            out.flush()
        except aiomqtt.MqttError:
            await asyncio.sleep(0.5)


async def play(args: Any, out: TextIO = sys.stdout) -> int:
    """Runs the demo; returns the exit status (2: an option names what is not there)."""
    names = [f"t{n}" for n in range(1, max(1, args.tables) + 1)]
    unknown = [t for t in args.hand if t not in names]
    if unknown:
        out.write(f"error: --hand {', '.join(unknown)}: the demo's tables are {', '.join(names)}\n")
        return 2
    with tempfile.TemporaryDirectory(prefix="billiards-demo-") as tmp:
        root = Path(tmp)
        embedded: EmbeddedBroker | None = None
        url = args.broker
        if not url:
            embedded = EmbeddedBroker(root)
            embedded.start()
            url = embedded.url
        try:
            return await _run(args, url, root, embedded, out)
        finally:
            if embedded is not None:
                embedded.stop()


def table_config(args: Any, n: int, game: str, url: str, port: int, root: Path) -> Config:
    """Returns the configuration of the demo's table ``t<n>``: a simulated table playing
    ``game`` at ``--speed``, or a table left to a person (``--hand``), whose clock runs at real
    time (a person plays it: its match clock and the history say how long it took). Raises
    ConfigError as ``validate`` does."""
    hand = f"t{n}" in args.hand
    return validate({
        "venue": "demo", "table": f"t{n}", "backend": "sim", "data": str(root / f"t{n}"),
        "log_level": "warning", "language": args.language or "en",
        "mqtt": {"url": url, "client_id": f"billiards-demo-t{n}-{port}",
                 "reconnect_min_s": 0.2, "reconnect_max_s": 2.0},
        "journal": {"sync": "normal"},
        "sim": {"game": game, "seed": n, "speed": 1.0 if hand else args.speed, "shots": 80,
                "loop": True},
        **({"fusion": HAND_FUSION} if hand else {}),
    }, "demo")


async def _run(args: Any, url: str, root: Path, embedded: EmbeddedBroker | None,
               out: TextIO) -> int:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 1883
    started = " (embedded Mosquitto, started by the demo)" if embedded is not None else ""
    out.write(f"broker: {url}{started}\n")
    out.write(f"watch:  mosquitto_sub -h {host} -p {port} -t 'billiards/#' -v\n")
    if embedded is not None and embedded.ws_port is not None:
        out.write(f"websockets: ws://127.0.0.1:{embedded.ws_port} (MQTT for browser pages)\n")
    out.flush()
    store = Store(f"sqlite:///{root / 'record.sqlite3'}")
    try:
        return await _tables(args, url, port, root, embedded, store, out)
    finally:
        store.close()


async def _tables(args: Any, url: str, port: int, root: Path, embedded: EmbeddedBroker | None,
                  store: Store, out: TextIO) -> int:
    """Makes the tables (and the tournament, with ``--tournament``) and plays them."""
    tournament = None
    offers = bracket_tables.Offers()  # the tables' next matches, as the recorder offers them
    if getattr(args, "tournament", None):
        tournament = bracket_tables.create(store, args.tournament, args.language or "en")
    games = itertools.repeat(args.game) if args.game else itertools.cycle(GAMES)
    if tournament is not None:
        games = itertools.repeat(args.game or default_game())
    services = []
    for n, game in zip(range(1, max(1, args.tables) + 1), games, strict=False):
        try:
            config = table_config(args, n, game, url, port, root)
        except ConfigError as exc:
            out.write(f"error: {exc}\n")
            return 2
        # a hand-played table: sensors that play nothing, requests only from its console
        hand = SimBackend((), speed=config.sim.speed) if config.table in args.hand else None
        services.append(Service(config, backend=hand or (
            sim_backend if tournament is None else bracket_backend(store, tournament, n, game, offers))))
    return await _play(args, url, services, embedded, store, out, tournament,
                       director_password(root), offers)


def director_password(root: Path) -> Path:
    """Returns the file (in the demo's directory, mode 0600) of a password made for the
    director's login of this run."""
    path = root / "director.password"
    path.touch(mode=0o600)
    path.write_text(secrets.token_urlsafe(12) + "\n")
    return path


def bracket_backend(store: Store, tournament: str, n: int, game: str,
                    offers: bracket_tables.Offers) -> Any:
    """Returns the backend factory of table ``t<n>`` in the tournament: its matches are the
    ones the recorder offers it (``offers``)."""
    def make(service: Service) -> SimBackend:
        matches = bracket_tables.BracketMatches(store, tournament, service.config.table, game, n,
                                                service.core.time.speed, service.host_clock,
                                                parse_broker(service.config.mqtt.url), offers)
        return SimBackend(matches, speed=service.core.time.speed,
                          on_request=lambda name, payload, t: service.request(name, payload, t),
                          clock=service.host_clock)
    return make


async def _play(args: Any, url: str, services: list[Service], embedded: EmbeddedBroker | None,
                store: Store, out: TextIO, tournament: str | None = None,
                password_file: Path | None = None,
                offers: bracket_tables.Offers | None = None) -> int:
    """Plays ``services`` with the venue recorder into ``store`` (and the pages, when the
    broker has websockets; the director's actions with the password in ``password_file``)
    until ``--seconds`` or a signal."""
    port = urlsplit(url).port or 1883
    recorder = Recorder(store, parse_broker(url), prefix="billiards",
                        client_id=f"billiards-demo-recorder-{port}")
    web = None
    if embedded is not None and embedded.ws_port is not None:  # the browser pages
        login = read_password(password_file, credential=CREDENTIAL)  # the director's
        shown = services[0].config.model_copy(update={"venue": "demo", "web": WebSection(
            host="127.0.0.1", port=0, broker_ws=f"ws://{{host}}:{embedded.ws_port}")})
        web = web_server(shown, {s.config.table: s.config.data for s in services},
                         language=args.language, record=WithRecord(
                             DirectorSite(store, login),
                             RecordSite(store, recorder.health.body), WaitingSite(store, login)))
        await web.start()
        if tournament is not None:
            out.write(f"bracket:   {web.url}tournament.html?id={tournament}&venue=demo\n"
                      f"director:  {web.url}director.html?id={tournament}&venue=demo "
                      f"(user director, its password in {password_file})\n")
        out.write(f"dashboard: {web.url}\nconsole:   {web.url}console.html?table=t1\n"
                  f"history:   {web.url}history.html (the venue record: each match as it ends)\n")
        for table in args.hand:
            out.write(f"by hand:   {web.url}console.html?table={table}\n")
        out.flush()
    counts: dict[str, int] = {}
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, done.set)
    async with asyncio.TaskGroup() as tg:
        board = tg.create_task(scoreboard(url, out, counts), name="scoreboard")
        recording = tg.create_task(recorder.run(), name="recorder")
        runs = [tg.create_task(s.run(), name=f"table:{s.config.table}") for s in services]
        director = None if tournament is None else tg.create_task(bracket_tables.direct(
            store, tournament, [s.config.table for s in services], out, done), name="director")
        watching = None if tournament is None or offers is None else tg.create_task(
            offers.watch(url), name="offers")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(args.seconds):
                await done.wait()
        for s in services:
            s.stop()
        await asyncio.gather(*runs)
        await asyncio.sleep(0.2)
        board.cancel()
        recording.cancel()
        if director is not None:
            director.cancel()
        if watching is not None:
            watching.cancel()
    if web is not None:
        await web.close()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.remove_signal_handler(sig)
    total = sum(counts.values())
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    with contextlib.suppress(BrokenPipeError):
        out.write(f"published {total} messages ({kinds})\n")
    return 0


def main(args: Any) -> int:
    """The ``demo`` command."""
    if args.tables is None:  # a tournament is played on a club's four tables by default
        args.tables = 2 if getattr(args, "tournament", None) is None else 4
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return asyncio.run(play(args))
    except MosquittoError as exc:
        print(f"error: {exc}, or pass --broker mqtt://host:port", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
