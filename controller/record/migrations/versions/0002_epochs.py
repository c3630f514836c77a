"""Journal epochs and player ids: messages, progress and gaps keyed by (venue, table, epoch,
seq), so a table whose journal is new (a replaced Pi) numbering again from 1 is not taken
for redeliveries, and matches by (venue, table, epoch, match_id), since a new journal numbers
its matches again too (``m-<date>-1``); a match's players carry the roster's ids.

What was stored before has the epoch ``""`` (tables that carried none). The keyed tables are
made anew and copied (SQLite cannot change a primary key in place)."""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

def _copy(name: str, columns: list[sa.Column[Any]], keyed: list[str], kept: list[str]) -> None:
    """Makes ``name`` anew with ``columns`` (primary key ``keyed``) and copies ``kept``."""
    op.create_table(f"{name}_new", *columns, sa.PrimaryKeyConstraint(*keyed, name=f"{name}_key"))
    listed = ", ".join(kept)
    op.execute(f"INSERT INTO {name}_new ({listed}) SELECT {listed} FROM {name}")
    op.drop_table(name)
    op.rename_table(f"{name}_new", name)


def upgrade() -> None:
    op.drop_index("messages_kind", "messages")
    _copy("messages", [
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("epoch", sa.String(64), nullable=False, server_default=""),
        sa.Column("seq", sa.BigInteger, nullable=False, autoincrement=False),
        sa.Column("topic", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("ts", sa.Float),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("received", sa.Float, nullable=False),
    ], ["venue", "table_id", "epoch", "seq"],
        ["venue", "table_id", "seq", "topic", "kind", "ts", "payload", "received"])
    op.create_index("messages_kind", "messages", ["venue", "table_id", "epoch", "kind", "seq"])
    _copy("tables", [
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("epoch", sa.String(64), nullable=False, server_default=""),
        sa.Column("complete_upto", sa.BigInteger, nullable=False),
        sa.Column("high", sa.BigInteger, nullable=False),
        # when the epoch's last message came (Unix seconds): the epoch heard last is the table's
        sa.Column("heard", sa.Float, nullable=False, server_default="0"),
        # an older epoch whose end is recorded (the table refused it: its journal is another)
        sa.Column("closed", sa.Boolean, nullable=False, server_default=sa.false()),
    ], ["venue", "table_id", "epoch"], ["venue", "table_id", "complete_upto", "high"])
    _copy("gaps", [
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("epoch", sa.String(64), nullable=False, server_default=""),
        sa.Column("first_seq", sa.BigInteger, nullable=False, autoincrement=False),
        sa.Column("last_seq", sa.BigInteger),  # None: whatever came after first_seq, unheard
        sa.Column("reason", sa.String(200), nullable=False),
    ], ["venue", "table_id", "epoch", "first_seq"],
        ["venue", "table_id", "first_seq", "last_seq", "reason"])
    op.drop_index("matches_ended", "matches")
    _copy("matches", [
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("epoch", sa.String(64), nullable=False, server_default=""),
        sa.Column("match_id", sa.String(100), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("started", sa.Float),
        sa.Column("ended", sa.Float),
        sa.Column("first_seq", sa.BigInteger, nullable=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("winner", sa.Integer),
        sa.Column("abandoned", sa.Boolean, nullable=False),
    ], ["venue", "table_id", "epoch", "match_id"],
        ["venue", "table_id", "match_id", "game", "started", "ended", "first_seq", "last_seq",
         "players", "winner", "abandoned"])
    op.create_index("matches_ended", "matches", ["ended"])
    op.drop_index("match_players_name", "match_players")
    figures = ["name", "game", "won", "games_won", "games_played", "balls", "points", "best_run",
               "break_and_runs", "fouls"]
    _copy("match_players", [
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("epoch", sa.String(64), nullable=False, server_default=""),
        sa.Column("match_id", sa.String(100), nullable=False),
        sa.Column("idx", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("player_id", sa.String(64)),  # the roster's (controller.record.roster)
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("games_won", sa.Integer, nullable=False),
        sa.Column("games_played", sa.Integer, nullable=False),
        sa.Column("balls", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("best_run", sa.Integer, nullable=False),
        sa.Column("break_and_runs", sa.Integer, nullable=False),
        sa.Column("fouls", sa.Integer, nullable=False),
    ], ["venue", "table_id", "epoch", "match_id", "idx"],
        ["venue", "table_id", "match_id", "idx", *figures])
    op.create_index("match_players_name", "match_players", ["name", "game"])
    op.create_index("match_players_id", "match_players", ["player_id"])
