"""indexes for lists that page through many games: games by status and id, late seats

Revision ID: 0006_scale_indexes
Revises: 0005_accounts_lobby_ratings
Create Date: 2026-11-24 16:40:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_scale_indexes"
down_revision = "0005_accounts_lobby_ratings"
branch_labels = None
depends_on = None

LATE = sa.text("missed_deadlines > 0")


def upgrade() -> None:
    op.create_index("ix_games_status_id", "games", ["status", "id"])
    op.create_index("ix_seats_late", "seats", ["missed_deadlines"], postgresql_where=LATE, sqlite_where=LATE)


def downgrade() -> None:
    op.drop_index("ix_seats_late", table_name="seats")
    op.drop_index("ix_games_status_id", table_name="games")
