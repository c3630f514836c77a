"""The venue record: every table's messages, stored once, and the history read from them.

``store`` (SQLAlchemy Core; SQLite by default, PostgreSQL for a league; Alembic migrations),
``recorder`` (the persistent MQTT session that fills the store and its gaps), ``stats``
(players and table sessions across tables and evenings).
"""

from __future__ import annotations

from typing import Any

#: The store's file when no ``--store`` is given (relative to the working directory).
DEFAULT_STORE = "sqlite:///billiards-record.sqlite3"


def add_parser(sub: Any) -> None:
    rec = sub.add_parser("record", help="the venue recorder: every table's messages into one store")
    rec.add_argument("--broker", help="mqtt://[user:pass@]host:port (the venue's broker)")
    rec.add_argument("--store", default=DEFAULT_STORE,
                     help=f"sqlite:///FILE or postgresql://… (default {DEFAULT_STORE})")
    rec.add_argument("--prefix", default="billiards", help="the tables' topic prefix")
    rec.add_argument("--client-id", default="billiards-recorder",
                     help="the persistent session's client id (one per recorder)")
    rec.add_argument("--password-file", help="the broker user's password, if not in the URL "
                                             "(else systemd's mqtt-password credential)")
    rec.add_argument("--store-password-file",
                     help="the store's database password, if not in --store's URL (else "
                          "systemd's store-password credential; never on a command line)")
    rec.add_argument("--director-password-file", metavar="PATH",
                     help="the tournament director's password (HTTP Basic, user director; else "
                          "systemd's director-password credential; without one the director's "
                          "actions are refused)")
    rec.add_argument("--web", metavar="HOST:PORT",
                     help="also serve the pages and the record's history (/record/...) here")
    rec.add_argument("--sessions", action="store_true",
                     help="print the tables' sessions (CSV) from the store and stop")
    rec.add_argument("--merge-players", nargs=3, metavar=("VENUE", "MERGED", "INTO"),
                     help="staff: make roster entry MERGED one player with INTO (their figures "
                          "combined; the journals untouched) and stop")
