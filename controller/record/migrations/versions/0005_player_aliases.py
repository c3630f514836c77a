"""One player, one record: staff merge two roster entries (``controller.record.roster.merge``)
and the entry merged away is kept as an alias, ``player_aliases(venue, player_id,
merged_into)``, so that a match summed up again (the journals are never touched) takes the
entry it was merged into. And the history lists matches by the start it shows: an index
``matches_started`` as ``matches_ended`` is for the end."""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "player_aliases",
        sa.Column("venue", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("merged_into", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("venue", "player_id", name="player_aliases_key"),
    )
    op.create_index("matches_started", "matches", ["started"])
