"""seats: a random thread root and a per-game notification choice; accounts: each game's default

Seats made before keep ``start`` as their thread key, so the threads players
already hold go on.  Accounts on ``every``, the old default (which nobody could
tell from a choice), move to ``default``: each game's own, which mails players
of turn-by-turn games only when it is their turn.

Revision ID: 0011_thread_keys_unsubscribe
Revises: 0010_resign_rematch
Create Date: 2026-11-26 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_thread_keys_unsubscribe"
down_revision = "0010_resign_rematch"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("thread_key", sa.String(length=32), server_default="start", nullable=False))
        batch.add_column(sa.Column("notify", sa.String(length=20), nullable=True))
    op.execute(sa.text("UPDATE accounts SET notify = 'default' WHERE notify = 'every'"))


def downgrade() -> None:
    op.execute(sa.text("UPDATE accounts SET notify = 'every' WHERE notify = 'default'"))
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("notify")
        batch.drop_column("thread_key")
