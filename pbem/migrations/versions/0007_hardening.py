"""accounts: hard bounces in a row and when the address was found unreachable; admin_users: a session epoch

Revision ID: 0007_hardening
Revises: 0006_scale_indexes
Create Date: 2026-11-24 16:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_hardening"
down_revision = "0006_scale_indexes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("hard_bounces", sa.Integer(), nullable=False, server_default=sa.text("0")))
        batch_op.add_column(sa.Column("unreachable_since", sa.DateTime(), nullable=True))
    with op.batch_alter_table("admin_users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("session_epoch", sa.Integer(), nullable=False, server_default=sa.text("0")))


def downgrade() -> None:
    with op.batch_alter_table("admin_users", schema=None) as batch_op:
        batch_op.drop_column("session_epoch")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_column("unreachable_since")
        batch_op.drop_column("hard_bounces")
