"""Tournaments on the venue record (issue 42): each tournament's set-up (its draw is made
again from it: ``tournament``'s formats are deterministic), its results, and which match is on
which table. ``tournament_tables`` holds one match a table at a venue (a unique key): two
directors' tablets acting at once cannot double-book one, whatever tournament they run."""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("setup", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("venue", "tournament_id", name="tournaments_key"),
    )
    op.create_table(
        "tournament_results",
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("winner", sa.Text, nullable=False),
        sa.Column("score", sa.Text),
        sa.Column("walkover", sa.Boolean, nullable=False),
        sa.Column("source", sa.Text),
        sa.Column("recorded", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("venue", "tournament_id", "match_id",
                                name="tournament_results_key"),
    )
    op.create_table(
        "tournament_tables",
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("assigned", sa.Float, nullable=False),
        sa.PrimaryKeyConstraint("venue", "tournament_id", "match_id",
                                name="tournament_tables_key"),
        sa.UniqueConstraint("venue", "table_id", name="tournament_tables_one_match"),
    )
