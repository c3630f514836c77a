"""Every field a client can lengthen is text, and a message the store cannot keep is
quarantined: kept raw in ``quarantine`` (topic, payload, why), never retried.

A 300-character response topic (a request named so: the table answers on
``response/<name>``) stopped the record for good on PostgreSQL (``varchar(200)``:
StringDataRightTruncation, the recorder exited, came back to the same message, and again).
The topic, a gap's reason, a match's id and game, a player's name and id become ``text``;
venue, table and epoch stay 64 characters, and the recorder quarantines a message whose own
are longer. SQLite does not enforce a declared length: only PostgreSQL's columns change."""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"

#: The columns made text: table -> columns.
WIDENED = {
    "messages": ("topic",),
    "gaps": ("reason",),
    "matches": ("match_id", "game"),
    "match_players": ("match_id", "name", "player_id", "game"),
}


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, columns in WIDENED.items():
            for column in columns:
                op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE text")
    op.create_table(
        "quarantine",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("received", sa.Float, nullable=False),
        sa.Column("topic", sa.Text, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
    )
