"""seats.draw_vote: a seat's standing agreement to end its game drawn

A seat's ``draw`` sets it, ``draw no`` clears it; the game ends drawn when every
seat still in it agrees (:mod:`pbem.services.play.draws`).

Revision ID: 0020_draw_votes
Revises: 0019_signup_invites
Create Date: 2026-11-28 20:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0020_draw_votes"
down_revision = "0019_signup_invites"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("draw_vote", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("draw_vote")
