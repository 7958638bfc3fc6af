"""seats.missed_total: every deadline a seat's player missed, for their reliability

``missed_deadlines`` counts the misses in a row (reset by the player's next
orders) for the late-seat rules; ``missed_total`` never resets, and a player's
page shows its sum over their seats beside the turns they played
(:mod:`pbem.services.people.reliability`).  Upgrade: the misses in a row are the
only ones known, so they start the total.

Revision ID: 0021_reliability
Revises: 0020_draw_votes
Create Date: 2026-11-28 20:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0021_reliability"
down_revision = "0020_draw_votes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("missed_total", sa.Integer(), nullable=False, server_default="0"))
    seats = sa.table("seats", sa.column("missed_deadlines", sa.Integer), sa.column("missed_total", sa.Integer))
    op.get_bind().execute(sa.update(seats).values(missed_total=seats.c.missed_deadlines))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("missed_total")
