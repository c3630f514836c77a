"""A table's match that was a tournament's match (issue 42): ``matches.tournament``, the
``{"id", "match"}`` its ``new_match`` named (JSON; null for a match of no tournament), by
which the recorder takes its result for that tournament match."""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.add_column("matches", sa.Column("tournament", sa.Text))
