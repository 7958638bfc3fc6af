"""accounts.absent_since: a player absent from their games is backed off in a new one too

Set when one of the player's seats is backed off for missed deadlines, cleared by
their next orders; a game that seats them meanwhile starts backed off for them
(:mod:`pbem.services.mailout.absence`).  Upgrade: unknown for every account (the
next missed deadline of a backed-off seat sets it); downgrade: dropped.

Revision ID: 0022_absent_players
Revises: 0021_reliability
Create Date: 2026-11-28 23:55:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0022_absent_players"
down_revision = "0021_reliability"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("absent_since", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("absent_since")
