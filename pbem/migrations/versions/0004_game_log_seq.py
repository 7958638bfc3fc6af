"""games: the seq of the last log entry, so a new entry is numbered without reading the log

Revision ID: 0004_game_log_seq
Revises: 0003_inbound_rate_indexes
Create Date: 2026-11-24 03:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_game_log_seq"
down_revision = "0003_inbound_rate_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("log_seq", sa.Integer(), nullable=False, server_default=sa.text("0")))
    op.execute(
        "UPDATE games SET log_seq = COALESCE((SELECT max(game_log.seq) FROM game_log WHERE game_log.game_id = games.id), 0)"
    )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("log_seq")
