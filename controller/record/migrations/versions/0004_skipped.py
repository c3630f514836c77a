"""Refusals counted, not stored: a table's answers that changed nothing (a request refused,
junk) are kept as runs of seqs with their count, ``skipped(venue, table_id, epoch,
first_seq, last_seq, count)``, not one row each: 20,000 junk requests added 20,052 rows
(454 bytes each) before."""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "skipped",
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("epoch", sa.String(64), nullable=False, server_default=""),
        sa.Column("first_seq", sa.BigInteger, nullable=False, autoincrement=False),
        sa.Column("last_seq", sa.BigInteger, nullable=False),
        sa.Column("count", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("venue", "table_id", "epoch", "first_seq", name="skipped_key"),
    )
    op.create_index("skipped_last", "skipped", ["venue", "table_id", "epoch", "last_seq"])
