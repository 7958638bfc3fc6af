"""outbox: the block a deferred receipt, deferred press or waiting news shows, in its own column

It was kept in the row's headers under ``_fold``; each such row's block moves to
``fold`` and leaves its headers.

Revision ID: 0013_outbox_status_fold
Revises: 0012_rankchain_known_cards
Create Date: 2026-11-26 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_outbox_status_fold"
down_revision = "0012_rankchain_known_cards"
branch_labels = None
depends_on = None

#: Where the block was kept before.
OLD_KEY = "_fold"


def _outbox() -> sa.Table:
    return sa.table("outbox", sa.column("id", sa.Integer), sa.column("headers", sa.JSON), sa.column("fold", sa.JSON))


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("fold", sa.JSON(), nullable=True))
    outbox = _outbox()
    connection = op.get_bind()
    rows = connection.execute(sa.select(outbox.c.id, outbox.c.headers)).all()
    for row_id, headers in rows:
        if isinstance(headers, dict) and OLD_KEY in headers:
            kept = {name: value for name, value in headers.items() if name != OLD_KEY}
            connection.execute(
                sa.update(outbox).where(outbox.c.id == row_id).values(fold=headers[OLD_KEY], headers=kept)
            )


def downgrade() -> None:
    outbox = _outbox()
    connection = op.get_bind()
    rows = connection.execute(sa.select(outbox.c.id, outbox.c.headers, outbox.c.fold).where(outbox.c.fold.isnot(None)))
    for row_id, headers, fold in rows.all():
        connection.execute(
            sa.update(outbox).where(outbox.c.id == row_id).values(headers={**(headers or {}), OLD_KEY: fold})
        )
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("fold")
