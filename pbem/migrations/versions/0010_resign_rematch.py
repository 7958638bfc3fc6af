"""seats.resigned_at (a player who left), games.rematch_of (a new game offered to the same table)

Revision ID: 0010_resign_rematch
Revises: 0009_strangers_dedupe_sessions
Create Date: 2026-11-26 04:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_resign_rematch"
down_revision = "0009_strangers_dedupe_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("resigned_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("rematch_of", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_games_rematch_of", "games", ["rematch_of"], ["id"])
        batch.create_index("ix_games_rematch_of", ["rematch_of"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_rematch_of")
        batch.drop_constraint("fk_games_rematch_of", type_="foreignkey")
        batch.drop_column("rematch_of")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("resigned_at")
