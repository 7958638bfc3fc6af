"""outbox: an index of the rows that still hold an email's text, oldest first, for pruning

Sent emails' texts are dropped after ``PBEM_KEEP_EMAILS``; the sweep finds the
oldest rows still holding one through this partial index, so the rows already
pruned (nearly all of an old outbox) are never read again.

Revision ID: 0017_outbox_kept_bodies
Revises: 0016_drop_game_thread_id
Create Date: 2026-11-28 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0017_outbox_kept_bodies"
down_revision = "0016_drop_game_thread_id"
branch_labels = None
depends_on = None

#: The same predicate as ``pbem.models.KEPT_BODY`` (a migration keeps its own copy).
KEPT_BODY = "body_text <> '' OR fold IS NOT NULL"


def upgrade() -> None:
    op.create_index(
        "ix_outbox_kept_bodies",
        "outbox",
        ["created_at"],
        sqlite_where=sa.text(KEPT_BODY),
        postgresql_where=sa.text(KEPT_BODY),
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_kept_bodies", table_name="outbox")
