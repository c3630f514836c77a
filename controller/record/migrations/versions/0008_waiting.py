"""The waiting list (issue 42): players waiting for a table of a kind (``pool`` or
``russian``: a Russian billiards table), one row an entry (a player or a pair), in the order
they joined. An entry offered to a table (``offered_to``) is that table's alone: a unique key on ``(venue,
offered_to)`` (NULLs apart) and a conditional update make two tables ending at once take two
entries, never one twice; ``offered_after`` is the table's last ``match_started`` when it was
offered (``[epoch, seq]``): the next one with the entry's roster ids takes it off the list."""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_table(
        "waiting",
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("entry_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("joined", sa.Float, nullable=False),
        sa.Column("offered_to", sa.String(64)),
        sa.Column("offered_after", sa.Text),
        sa.PrimaryKeyConstraint("venue", "entry_id", name="waiting_key"),
        sa.UniqueConstraint("venue", "offered_to", name="waiting_one_offer_a_table"),
    )
    op.create_index("waiting_order", "waiting", ["venue", "kind", "joined"])
