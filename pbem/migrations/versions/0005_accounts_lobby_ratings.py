"""players' home: time zone and calendar link per account, sign-in links, open games, ratings

Revision ID: 0005_accounts_lobby_ratings
Revises: 0004_game_log_seq
Create Date: 2026-11-24 16:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_accounts_lobby_ratings"
down_revision = "0004_game_log_seq"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tz", sa.String(length=64), nullable=False, server_default="UTC"))
        batch_op.add_column(sa.Column("calendar_token", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint("uq_accounts_calendar_token", ["calendar_token"])
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seats_wanted", sa.Integer(), nullable=True))
    op.create_table(
        "signin_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("nonce"),
    )
    op.create_index("ix_signin_links_account_id", "signin_links", ["account_id"])
    op.create_index("ix_signin_links_created_at", "signin_links", ["created_at"])
    op.create_table(
        "lobby_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "account_id"),
    )
    op.create_index("ix_lobby_entries_game_id", "lobby_entries", ["game_id"])
    op.create_index("ix_lobby_entries_account_id", "lobby_entries", ["account_id"])
    op.create_table(
        "join_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("asked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token"),
    )
    op.create_index("ix_join_requests_game_id", "join_requests", ["game_id"])
    op.create_index("ix_join_requests_email", "join_requests", ["email"])
    op.create_table(
        "ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("engine", sa.String(length=50), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("account_id", "engine"),
    )
    op.create_index("ix_ratings_account_id", "ratings", ["account_id"])
    op.create_index("ix_ratings_engine_ordinal", "ratings", ["engine", "ordinal"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("engine", sa.String(length=50), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "account_id"),
    )
    op.create_index("ix_rating_changes_game_id", "rating_changes", ["game_id"])
    op.create_index("ix_rating_changes_account_id", "rating_changes", ["account_id"])


def downgrade() -> None:
    for table in ("rating_changes", "ratings", "join_requests", "lobby_entries", "signin_links"):
        op.drop_table(table)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("seats_wanted")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_constraint("uq_accounts_calendar_token", type_="unique")
        batch_op.drop_column("calendar_token")
        batch_op.drop_column("tz")
