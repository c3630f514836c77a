"""The record's store: SQLAlchemy Core over SQLite (WAL; the default, nothing to set up) or
PostgreSQL (``postgresql://…``: a league's database, several venue recorders writing to it).

Tables (their schema is Alembic's, ``migrations/``)::

    messages(venue, table_id, epoch, seq, ...)
                                          every message with a seq, stored once: a message
                                          delivered again (QoS 1) is ignored. ``epoch`` is
                                          the table's journal's (a replaced Pi's new journal
                                          numbers from 1 again); "" for tables without one
    tables(venue, table_id, epoch, complete_upto, high, heard, closed)
                                          every seq of the epoch up to ``complete_upto`` is
                                          stored or in ``gaps``; ``high`` is the highest seq
                                          seen; ``heard`` when a message of the epoch last came;
                                          ``closed``: an older epoch whose end is recorded
    gaps(venue, table_id, epoch, first_seq, last_seq, reason)
                                          seqs the table's journal did not hold when asked
                                          (a replaced Pi, a power cut's jump): never invented;
                                          ``last_seq`` None: all after ``first_seq`` (an
                                          older epoch's end, unheard)
    skipped(venue, table_id, epoch, first_seq, last_seq, count)
                                          runs of seqs of answers that changed nothing
                                          (a request refused, junk): counted, not stored
                                          one row each; ``seqs_between`` holds them
    quarantine(id, received, topic, payload, reason)
                                          a message the store could not take as itself
                                          (a name too long, text that is not Unicode, a
                                          value refused), kept raw; its seq, if it had
                                          one, is a gap ("quarantined: …")
    matches, match_players                each finished match and its players' figures
                                          (``controller.record.stats``), kept up to date,
                                          keyed by (venue, table, epoch, match_id);
                                          ``player_id`` the roster's (``controller.record.roster``);
                                          ``tournament`` the tournament match it was
                                          (``{"id", "match"}``, JSON), if its table said so
    player_aliases(venue, player_id, merged_into)
                                          roster entries staff merged into another
                                          (``roster.merge``): a match summed up again
                                          takes the entry merged into; journals untouched
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig
from sqlalchemy.dialects import postgresql, sqlite

from controller.errors import ControllerError
from controller.record import DEFAULT_STORE

MIGRATIONS = Path(__file__).with_name("migrations")

meta = sa.MetaData()
messages = sa.Table(
    "messages", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("epoch", sa.String(64), primary_key=True, server_default=""),
    sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("topic", sa.Text), sa.Column("kind", sa.String(64)),
    sa.Column("ts", sa.Float), sa.Column("payload", sa.Text), sa.Column("received", sa.Float))
tables = sa.Table(
    "tables", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("epoch", sa.String(64), primary_key=True, server_default=""),
    sa.Column("complete_upto", sa.BigInteger), sa.Column("high", sa.BigInteger),
    sa.Column("heard", sa.Float), sa.Column("closed", sa.Boolean))
gaps = sa.Table(
    "gaps", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("epoch", sa.String(64), primary_key=True, server_default=""),
    sa.Column("first_seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("last_seq", sa.BigInteger), sa.Column("reason", sa.Text))
matches = sa.Table(
    "matches", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("epoch", sa.String(64), primary_key=True, server_default=""),
    sa.Column("match_id", sa.Text, primary_key=True),
    sa.Column("game", sa.Text), sa.Column("started", sa.Float), sa.Column("ended", sa.Float),
    sa.Column("first_seq", sa.BigInteger), sa.Column("last_seq", sa.BigInteger),
    sa.Column("players", sa.Text), sa.Column("winner", sa.Integer),
    sa.Column("abandoned", sa.Boolean), sa.Column("tournament", sa.Text))
match_players = sa.Table(
    "match_players", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("epoch", sa.String(64), primary_key=True, server_default=""),
    sa.Column("match_id", sa.Text, primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("name", sa.Text), sa.Column("player_id", sa.Text),
    sa.Column("game", sa.Text),
    sa.Column("won", sa.Boolean), sa.Column("games_won", sa.Integer),
    sa.Column("games_played", sa.Integer), sa.Column("balls", sa.Integer),
    sa.Column("points", sa.Integer), sa.Column("best_run", sa.Integer),
    sa.Column("break_and_runs", sa.Integer), sa.Column("fouls", sa.Integer))
quarantine = sa.Table(
    "quarantine", meta,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("received", sa.Float), sa.Column("topic", sa.Text),
    sa.Column("payload", sa.LargeBinary), sa.Column("reason", sa.Text))
player_aliases = sa.Table(
    "player_aliases", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("player_id", sa.String(64), primary_key=True),
    sa.Column("merged_into", sa.String(64), nullable=False))

skipped = sa.Table(
    "skipped", meta,
    sa.Column("venue", sa.String(64), primary_key=True),
    sa.Column("table_id", sa.String(64), primary_key=True),
    sa.Column("epoch", sa.String(64), primary_key=True, server_default=""),
    sa.Column("first_seq", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("last_seq", sa.BigInteger), sa.Column("count", sa.BigInteger))

#: The longest venue, table or epoch the store keys messages by: a message whose own are
#: longer is quarantined.
NAME_MAX = 64


#: A table's epoch: ``(venue, table, epoch)``.
Key = tuple[str, str, str]
#: Seqs recorded as lost: ``(venue, table, epoch, first, last, reason)``; ``last`` None: every
#: seq after ``first`` (an older epoch's end, never heard).
Lost = tuple[str, str, str, int, int | None, str]


class StoreError(ControllerError, OSError):
    """The store cannot be opened, migrated or written."""


class StoreDown(StoreError):
    """The store cannot be reached or written now (a database away, a full disk): try again."""


class BadRow(StoreError, ValueError):
    """What was given cannot be stored, however often it is tried (a value the store refuses)."""


@dataclass(frozen=True, slots=True)
class Stored:
    """One message as the record keeps it; ``topic`` is relative to the table's base;
    ``epoch`` the table's journal's ("" for a table without one)."""

    venue: str
    table: str
    seq: int
    topic: str
    payload: dict[str, Any]
    epoch: str = ""

    @property
    def kind(self) -> str:
        """The event's type for ``event``, else the topic."""
        if self.topic == "event":
            return str(self.payload.get("type", "event"))
        return self.topic


@dataclass(frozen=True, slots=True)
class Progress:
    """What the store knows of one table's epoch: complete up to ``complete_upto``, seen up to
    ``high``; ``heard``: when its last message came (Unix seconds; the epoch heard last is the
    table's own); ``closed``: an older epoch whose end is recorded."""

    complete_upto: int
    high: int
    heard: float = 0.0
    closed: bool = False


def engine_for(url: str, password: str | None = None) -> sa.Engine:
    """Returns an engine for ``url``: SQLite in WAL mode, or PostgreSQL through psycopg 3
    (``password``: the database user's, when the URL has none; never on a command line)."""
    args: dict[str, Any] = {}
    if url.startswith(("postgresql://", "postgres://")):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
        if password is not None and sa.engine.make_url(url).password is None:
            args["password"] = password
    engine = sa.create_engine(url, future=True, pool_pre_ping=True,  # a database restarted
                              connect_args=args)
    if engine.dialect.name == "sqlite":
        @sa.event.listens_for(engine, "connect")
        def _wal(dbapi: Any, _record: Any) -> None:
            cursor = dbapi.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # a commit survives kill -9; WAL
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.close()
    return engine


class Store:
    """The record at ``url`` (``sqlite:///path`` or ``postgresql://…``; ``password``: the
    database user's when the URL has none), migrated to the newest schema when opened.
    Raises StoreError when it cannot be opened or migrated."""

    def __init__(self, url: str = DEFAULT_STORE, password: str | None = None) -> None:
        try:
            self.engine = engine_for(url, password)
            with self.engine.begin() as conn:
                cfg = AlembicConfig()
                cfg.set_main_option("script_location", str(MIGRATIONS))
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
        except sa.exc.OperationalError as exc:  # the database away (not up, restarting)
            raise StoreDown(f"cannot open the record store: {exc}") from exc
        except sa.exc.SQLAlchemyError as exc:
            raise StoreError(f"cannot open the record store: {exc}") from exc
        self.dialect = self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    # ------------------------------------------------------------------ writing
    def _insert(self, table: sa.Table) -> Any:
        return (postgresql.insert(table) if self.dialect == "postgresql"
                else sqlite.insert(table))

    def add(self, items: list[Stored], *, lost: Sequence[Lost] = (),
            progress: dict[Key, Progress] | None = None,
            received: float | None = None, skip: Sequence[Stored] = ()) -> list[Stored]:
        """Stores ``items`` (those already stored are ignored), the ``lost`` seq ranges
        ``(venue, table, epoch, first, last, reason)``, each table's epochs' ``progress``
        and the seqs of ``skip`` (counted in runs, not stored: answers that changed nothing),
        in one transaction; returns the messages that were new. ``received``: when they came
        (Unix seconds; now when None). Raises StoreError."""
        now = time.time() if received is None else received
        rows = [{"venue": m.venue, "table_id": m.table, "epoch": m.epoch, "seq": m.seq,
                 "topic": m.topic, "kind": m.kind[:64], "ts": _ts(m.payload), "received": now,
                 "payload": json.dumps(m.payload, separators=(",", ":"), ensure_ascii=False)}
                for m in items]
        try:
            with self.engine.begin() as conn:
                new: list[Stored] = []
                if rows:
                    c = messages.c
                    result = conn.execute(self._insert(messages).on_conflict_do_nothing().returning(
                        c.venue, c.table_id, c.epoch, c.seq), rows)
                    fresh = {tuple(row) for row in result}
                    new = [m for m in items if (m.venue, m.table, m.epoch, m.seq) in fresh]
                if skip:
                    _skip(conn, skip)
                if lost:
                    conn.execute(self._insert(gaps).on_conflict_do_nothing(), [
                        {"venue": v, "table_id": t, "epoch": e, "first_seq": a, "last_seq": b,
                         "reason": r} for v, t, e, a, b, r in lost])
                for (venue, table, epoch), p in (progress or {}).items():
                    stmt = self._insert(tables).values(
                        venue=venue, table_id=table, epoch=epoch, complete_upto=p.complete_upto,
                        high=p.high, heard=p.heard, closed=p.closed)
                    conn.execute(stmt.on_conflict_do_update(
                        index_elements=["venue", "table_id", "epoch"],
                        set_={"complete_upto": p.complete_upto, "high": p.high,
                              "heard": p.heard, "closed": p.closed}))
                return new
        except (sa.exc.SQLAlchemyError, ValueError) as exc:
            raise failure(exc) from exc

    def quarantine(self, topic: str, payload: bytes, reason: str,
                   received: float | None = None) -> None:
        """Keeps a message the store cannot take as itself, raw, with why. Raises StoreError
        (StoreDown when the store is away)."""
        row = {"received": time.time() if received is None else received,
               "topic": topic.encode("utf-8", "replace").decode(),
               "payload": payload, "reason": reason.encode("utf-8", "replace").decode()}
        try:
            with self.engine.begin() as conn:
                conn.execute(sa.insert(quarantine), [row])
        except (sa.exc.SQLAlchemyError, ValueError) as exc:
            raise failure(exc) from exc

    # ------------------------------------------------------------------ reading
    def progress(self) -> dict[Key, Progress]:
        """Returns the progress of every known table's epochs, keyed ``(venue, table, epoch)``."""
        t = tables.c
        with self.engine.connect() as conn:
            return {(v, tb, e): Progress(c, h, o or 0.0, bool(x))
                    for v, tb, e, c, h, o, x in conn.execute(sa.select(
                        t.venue, t.table_id, t.epoch, t.complete_upto, t.high, t.heard,
                        t.closed))}

    def seqs(self, venue: str, table: str, epoch: str = "") -> list[int]:
        """Returns the stored seqs of one table's epoch, in order."""
        return self.seqs_between(venue, table, epoch, 0, None)

    def seqs_between(self, venue: str, table: str, epoch: str, after: int,
                     upto: int | None) -> list[int]:
        """Returns one table's epoch's stored seqs above ``after`` up to ``upto`` (no end when
        None), in order."""
        c = messages.c
        q = sa.select(c.seq).where(c.venue == venue, c.table_id == table, c.epoch == epoch,
                                   c.seq > after)
        k = skipped.c
        runs = sa.select(k.first_seq, k.last_seq).where(
            k.venue == venue, k.table_id == table, k.epoch == epoch, k.last_seq > after)
        if upto is not None:
            q = q.where(c.seq <= upto)
            runs = runs.where(k.first_seq <= upto)
        with self.engine.connect() as conn:
            found = set(conn.scalars(q))
            for a, b in conn.execute(runs):  # counted, not stored: there all the same
                found.update(range(max(a, after + 1), (b if upto is None else min(b, upto)) + 1))
        return sorted(found)

    def sizes(self) -> dict[str, int]:
        """Returns how big the record is: ``messages`` stored, ``skipped`` (answers that
        changed nothing, counted) in ``skipped_runs`` rows, ``gaps``, ``quarantined``."""
        with self.engine.connect() as conn:
            def count(table: sa.Table) -> int:
                return int(conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0)
            return {"messages": count(messages), "skipped": int(conn.scalar(
                sa.select(sa.func.coalesce(sa.func.sum(skipped.c.count), 0))) or 0),
                "skipped_runs": count(skipped), "gaps": count(gaps),
                "quarantined": count(quarantine)}

    def messages(self, venue: str, table: str, first: int = 0, last: int | None = None,
                 epoch: str = "") -> list[Stored]:
        """Returns one table's epoch's stored messages with seqs from ``first`` to ``last``,
        in order."""
        c = messages.c
        q = sa.select(c.seq, c.topic, c.payload).where(
            c.venue == venue, c.table_id == table, c.epoch == epoch, c.seq >= first)
        if last is not None:
            q = q.where(c.seq <= last)
        with self.engine.connect() as conn:
            return [Stored(venue, table, s, t, json.loads(p), epoch)
                    for s, t, p in conn.execute(q.order_by(c.seq))]

    def quarantined(self, limit: int = 20) -> tuple[int, list[dict[str, Any]]]:
        """Returns how many messages are quarantined and the newest ``limit`` of them
        (``{"received", "topic", "bytes", "reason"}``)."""
        q = quarantine.c
        with self.engine.connect() as conn:
            count = conn.scalar(sa.select(sa.func.count()).select_from(quarantine)) or 0
            rows = conn.execute(sa.select(q.received, q.topic, sa.func.length(q.payload),
                                          q.reason).order_by(q.id.desc()).limit(limit))
            return int(count), [{"received": r, "topic": t, "bytes": n, "reason": why}
                                for r, t, n, why in rows]

    def venues(self) -> list[str]:
        """Returns the venues the record holds tables of."""
        with self.engine.connect() as conn:
            return list(conn.scalars(sa.select(tables.c.venue).distinct().order_by(tables.c.venue)))

    def gaps(self, venue: str | None = None) -> list[Lost]:
        """Returns the seq ranges recorded as lost: ``(venue, table, epoch, first, last,
        reason)``."""
        g = gaps.c
        q = sa.select(g.venue, g.table_id, g.epoch, g.first_seq, g.last_seq, g.reason).order_by(
            g.venue, g.table_id, g.epoch, g.first_seq)
        if venue is not None:
            q = q.where(g.venue == venue)
        with self.engine.connect() as conn:
            return [(v, t, e, int(a), None if b is None else int(b), r)
                    for v, t, e, a, b, r in conn.execute(q)]


def _skip(conn: sa.Connection, items: Sequence[Stored]) -> None:
    """Counts ``items``' seqs in runs (a run ending just before grows; a seq already counted
    is not counted again)."""
    k = skipped.c
    runs: list[list[Any]] = []  # [venue, table, epoch, first, last]
    for m in sorted(items, key=lambda m: (m.venue, m.table, m.epoch, m.seq)):
        if runs and runs[-1][:3] == [m.venue, m.table, m.epoch] and runs[-1][4] + 1 >= m.seq:
            runs[-1][4] = m.seq
        else:
            runs.append([m.venue, m.table, m.epoch, m.seq, m.seq])
    for venue, table, epoch, a, b in runs:
        key = (k.venue == venue, k.table_id == table, k.epoch == epoch)
        counted: list[tuple[int, int]] = [(x, y) for x, y in conn.execute(sa.select(
            k.first_seq, k.last_seq).where(*key, k.first_seq <= b, k.last_seq >= a))]
        if counted:  # some delivered again: the rest, one by one
            for seq in range(a, b + 1):
                if not any(x <= seq <= y for x, y in counted):
                    _count_run(conn, key, (venue, table, epoch), seq, seq)
                    counted.append((seq, seq))
        else:
            _count_run(conn, key, (venue, table, epoch), a, b)


def _count_run(conn: sa.Connection, key: tuple[Any, ...], names: Key, a: int, b: int) -> None:
    """Counts seqs ``a`` to ``b``: joined to the runs just before and just after, if any
    (seqs come out of order: a run is not split for ever by one that came late)."""
    k = skipped.c
    after = conn.execute(sa.select(k.last_seq, k.count).where(*key, k.first_seq == b + 1)).first()
    if after is not None:
        conn.execute(sa.delete(skipped).where(*key, k.first_seq == b + 1))
    last, count = (after[0], b - a + 1 + after[1]) if after is not None else (b, b - a + 1)
    grown = conn.execute(sa.update(skipped).where(*key, k.last_seq == a - 1).values(
        last_seq=last, count=k.count + count))
    if not grown.rowcount:
        venue, table, epoch = names
        conn.execute(sa.insert(skipped).values(venue=venue, table_id=table, epoch=epoch,
                                               first_seq=a, last_seq=last, count=count))


def failure(exc: Exception) -> StoreError:
    """Returns the store's error for a failed write: BadRow for a value the store refuses
    (too long, not encodable, a constraint), else StoreDown (away, full, anything else)."""
    orig = getattr(exc, "orig", None)  # what the driver raised (text it cannot encode)
    if isinstance(exc, sa.exc.DataError | sa.exc.IntegrityError | ValueError) or isinstance(
            orig, ValueError):
        return BadRow(f"the record store refuses it: {exc}")
    return StoreDown(f"cannot write the record store: {exc}")


def _ts(payload: dict[str, Any]) -> float | None:
    ts = payload.get("ts")
    return float(ts) if isinstance(ts, int | float) else None
