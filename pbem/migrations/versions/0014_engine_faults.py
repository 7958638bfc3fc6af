"""engine_faults: an engine that raised on one order, kept for the admin, /metrics and pbem check

Revision ID: 0014_engine_faults
Revises: 0013_outbox_status_fold
Create Date: 2026-11-28 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_engine_faults"
down_revision = "0013_outbox_status_fold"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "engine_faults",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("engine", sa.String(length=50), nullable=False),
        sa.Column("method", sa.String(length=40), nullable=False),
        sa.Column("error", sa.String(length=500), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("seat", sa.String(length=50), nullable=True),
        sa.Column("line", sa.Text(), nullable=True),
        sa.Column("told", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_engine_faults_engine_created", "engine_faults", ["engine", "created_at"])
    op.create_index("ix_engine_faults_game_id", "engine_faults", ["game_id"])
    op.create_index("ix_engine_faults_created_at", "engine_faults", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_engine_faults_created_at", table_name="engine_faults")
    op.drop_index("ix_engine_faults_game_id", table_name="engine_faults")
    op.drop_index("ix_engine_faults_engine_created", table_name="engine_faults")
    op.drop_table("engine_faults")
