"""``python -m controller record``: the venue recorder, or (``--sessions``) the tables'
sessions from the store as CSV, for a club's billing, or (``--merge-players``) two roster
entries of one person made one."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from typing import Any

from controller.record import director, roster
from controller.record.recorder import Recorder
from controller.record.stats import sessions_csv
from controller.record.store import Store, StoreDown, StoreError
from controller.record.waiting_desk import WaitingSite
from controller.record.web import RecordSite
from controller.web.server import WebConfig, WebServer
from controller.wire.connection import Backoff, BadBrokerUrl, parse_broker, read_password

#: The systemd credential holding the store's database password
#: (deploy/billiards-recorder.service: LoadCredential=store-password:…).
STORE_CREDENTIAL = "store-password"

log = logging.getLogger(__name__)


async def _record(recorder: Recorder, store: Store, web: str | None,
                  director_password: str | None = None) -> None:
    """Records until cancelled; with ``web`` (host:port) also serves the pages, the
    record's history (``controller.record.web``) and the tournament director's targets (their
    actions with the login of ``director_password``) over the project's one HTTP server. An
    empty ``web`` is none (the unit's ``--web ${WEB}`` with no WEB in recorder.env)."""
    if not web:
        await recorder.run()
        return
    host, _, port = web.rpartition(":")
    server = WebServer(WebConfig(), host=host or "127.0.0.1", port=int(port),
                       record=RecordSite(store, recorder.health.body),
                       extra=[director.DirectorSite(store, director_password),
                              WaitingSite(store, director_password)])
    async with server, asyncio.TaskGroup() as tg:
        tg.create_task(recorder.run(), name="recorder")
        tg.create_task(server.serve_forever(), name="web")


def open_store(url: str, password: str | None, wait: bool) -> Store:
    """Returns the store at ``url``. One that cannot be reached (a league's database not up
    yet, restarting) is waited for when ``wait`` (the recorder: tried again and again, each
    try said on the log, as it waits for a store that goes away while it runs), rather than
    exiting into systemd's restart loop, whose start limit leaves it stopped for good; else
    StoreDown (a one-off command: its error)."""
    backoff = Backoff(*Recorder.store_retry)
    while True:
        try:
            return Store(url, password)
        except StoreDown as exc:
            if not wait:
                raise
            delay = backoff.next()
            log.error("%s; again in %.1f s", str(exc).splitlines()[0], delay)
            time.sleep(delay)


def main(args: Any) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        store = open_store(args.store, read_password(args.store_password_file,
                                                     credential=STORE_CREDENTIAL),
                           wait=bool(args.broker) and not (args.sessions or args.merge_players))
    except (StoreError, OSError) as exc:
        print(f"record: {exc}", file=sys.stderr)
        return 1
    try:
        if args.sessions:
            sys.stdout.write(sessions_csv(store))
            return 0
        if args.merge_players:
            venue, merged, into = args.merge_players
            try:
                moved = roster.merge(store, venue, merged, into)
            except ValueError as exc:
                print(f"record: {exc}", file=sys.stderr)
                return 2
            print(f"{merged} is now {into}; matches moved: {moved} (the recorder publishes "
                  "the roster again when it next sums up a match or connects)")
            return 0
        if not args.broker:
            print("record: --broker is needed to record", file=sys.stderr)
            return 2
        try:
            password = read_password(args.password_file)  # else systemd's credential
            broker = parse_broker(args.broker, password=password)
        except (BadBrokerUrl, OSError) as exc:
            print(f"record: {exc}", file=sys.stderr)
            return 2
        try:  # the director's password: a file, else systemd's credential; None: no actions
            director_password = read_password(args.director_password_file,
                                              credential=director.CREDENTIAL)
        except OSError as exc:
            print(f"record: {exc}", file=sys.stderr)
            return 2
        if args.web and director_password is None:
            log.warning(
                "record: no director password (--director-password-file or the %s credential):"
                " the tournament director's actions are refused", director.CREDENTIAL)
        recorder = Recorder(store, broker, prefix=args.prefix, client_id=args.client_id)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_record(recorder, store, args.web, director_password))
        return 0
    finally:
        store.close()
