"""sign-up and invitations: a sign-in link may be for an address with no account yet (the account is
made when the link is used); an account's display name is unique (its folded form); a game remembers who created it and carries an invite code

Links made before carry their account's address here.

Revision ID: 0019_signup_invites
Revises: 0018_signin_requests_observers
Create Date: 2026-11-28 20:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0019_signup_invites"
down_revision = "0018_signin_requests_observers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("signin_links") as batch:
        batch.alter_column("account_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("address", sa.String(length=320), nullable=True))
        batch.add_column(sa.Column("address_key", sa.String(length=320), nullable=True))
    op.create_index("ix_signin_links_address", "signin_links", ["address"])
    op.create_index("ix_signin_links_address_key_created", "signin_links", ["address_key", "created_at"])
    op.execute(
        "UPDATE signin_links SET address = (SELECT accounts.email FROM accounts WHERE accounts.id = signin_links.account_id)"
    )
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=100), nullable=True))
    op.create_index("ix_accounts_name_key", "accounts", ["name_key"], unique=True)
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("created_by", sa.Integer(), sa.ForeignKey("accounts.id", name="fk_games_created_by"), nullable=True))
        batch.add_column(sa.Column("invite_code", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("invite_only", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.create_index("ix_games_created_by", "games", ["created_by"])
    op.create_index("ix_games_invite_code", "games", ["invite_code"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_games_invite_code", table_name="games")
    op.drop_index("ix_games_created_by", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("invite_only")
        batch.drop_column("invite_code")
        batch.drop_column("created_by")
    op.drop_index("ix_accounts_name_key", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("name_key")
    op.drop_index("ix_signin_links_address_key_created", table_name="signin_links")
    op.drop_index("ix_signin_links_address", table_name="signin_links")
    op.execute("DELETE FROM signin_links WHERE account_id IS NULL")
    with op.batch_alter_table("signin_links") as batch:
        batch.drop_column("address_key")
        batch.drop_column("address")
        batch.alter_column("account_id", existing_type=sa.Integer(), nullable=False)
