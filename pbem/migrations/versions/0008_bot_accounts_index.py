"""accounts: a partial index of the bot's accounts, so the sweep finds bot seats without a scan

Revision ID: 0008_bot_accounts_index
Revises: 0007_hardening
Create Date: 2026-11-24 20:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_bot_accounts_index"
down_revision = "0007_hardening"
branch_labels = None
depends_on = None

# The same text as pbem.models.BOT_ACCOUNTS (a migration keeps its own copy of what it creates).
BOT = sa.text("email LIKE '%@bot.invalid'")


def upgrade() -> None:
    op.create_index("ix_accounts_bot", "accounts", ["id"], postgresql_where=BOT, sqlite_where=BOT)


def downgrade() -> None:
    op.drop_index("ix_accounts_bot", table_name="accounts")
