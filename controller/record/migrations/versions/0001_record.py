"""The record: messages keyed by (venue, table, seq), what is known complete, gaps, matches."""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "messages",
        sa.Column("venue", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("topic", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("ts", sa.Float),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("received", sa.Float, nullable=False),
    )
    op.create_index("messages_kind", "messages", ["venue", "table_id", "kind", "seq"])
    op.create_table(
        "tables",
        sa.Column("venue", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("complete_upto", sa.BigInteger, nullable=False),
        sa.Column("high", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "gaps",
        sa.Column("venue", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("first_seq", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.String(200), nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("venue", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("started", sa.Float),
        sa.Column("ended", sa.Float),
        sa.Column("first_seq", sa.BigInteger, nullable=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("winner", sa.Integer),
        sa.Column("abandoned", sa.Boolean, nullable=False),
    )
    op.create_index("matches_ended", "matches", ["ended"])
    op.create_table(
        "match_players",
        sa.Column("venue", sa.String(64), primary_key=True),
        sa.Column("table_id", sa.String(64), primary_key=True),
        sa.Column("match_id", sa.String(100), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("games_won", sa.Integer, nullable=False),
        sa.Column("games_played", sa.Integer, nullable=False),
        sa.Column("balls", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("best_run", sa.Integer, nullable=False),
        sa.Column("break_and_runs", sa.Integer, nullable=False),
        sa.Column("fouls", sa.Integer, nullable=False),
    )
    op.create_index("match_players_name", "match_players", ["name", "game"])
