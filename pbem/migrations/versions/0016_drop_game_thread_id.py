"""games.thread_id goes: it was written at the start and never read (each seat's thread has its own root)

Revision ID: 0016_drop_game_thread_id
Revises: 0015_seats_left
Create Date: 2026-12-02 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0016_drop_game_thread_id"
down_revision = "0015_seats_left"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("thread_id")


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("thread_id", sa.String(300), nullable=False, server_default=""))
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("thread_id", sa.String))
    op.get_bind().execute(sa.update(games).values(thread_id="game-" + sa.cast(games.c.id, sa.String)))
