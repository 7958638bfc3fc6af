"""inbound mail: indexes for the per-sender and per-seat rate limits

Revision ID: 0003_inbound_rate_indexes
Revises: 0002_async_play
Create Date: 2026-11-23 20:10:00
"""

from alembic import op

revision = "0003_inbound_rate_indexes"
down_revision = "0002_async_play"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.create_index("ix_inbound_sender_processed", ["sender", "processed_at"], unique=False)
        batch_op.create_index("ix_inbound_seat_processed", ["seat_id", "processed_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_inbound_seat_processed")
        batch_op.drop_index("ix_inbound_sender_processed")
