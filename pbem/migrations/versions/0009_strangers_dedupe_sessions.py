"""inbound mail deduplicated per message and recipient (a shared Message-ID no longer drops a message),
the strangers' budget and the trusted hop's SPF/DKIM/DMARC per message; sign-in links bound to the
browser that asked; players' sessions kept on the server

Revision ID: 0009_strangers_dedupe_sessions
Revises: 0008_bot_accounts_index
Create Date: 2026-11-26 10:00:00
"""

import datetime as dt

import sqlalchemy as sa
from alembic import op

revision = "0009_strangers_dedupe_sessions"
down_revision = "0008_bot_accounts_index"
branch_labels = None
depends_on = None

STRANGERS = sa.text("stranger_emails IS NOT NULL")
#: Rows received this recently get the new key, so a redelivery just after the upgrade is still
#: recognised (Postfix gives up on a message after 5 days); older rows keep none and are never matched.
BACKFILL = dt.timedelta(days=7)
#: An unnamed unique constraint (SQLite) gets this name in the batch's copy of the table.
NAMING = {"uq": "uq_%(table_name)s_%(column_0_name)s"}


def upgrade() -> None:
    bind = op.get_bind()
    unique = [
        found["name"] or "uq_inbound_messages_message_id"
        for found in sa.inspect(bind).get_unique_constraints("inbound_messages")
        if found["column_names"] == ["message_id"]
    ]
    with op.batch_alter_table("inbound_messages", naming_convention=NAMING) as batch_op:
        for name in unique:
            batch_op.drop_constraint(name, type_="unique")
        _new_inbound_columns(batch_op)
    op.create_index("ix_inbound_messages_message_id", "inbound_messages", ["message_id"])
    _backfill_keys(bind)
    op.create_index("ix_inbound_dedupe", "inbound_messages", ["dedupe_key"], unique=True)
    op.create_index(
        "ix_inbound_strangers", "inbound_messages", ["processed_at"], postgresql_where=STRANGERS, sqlite_where=STRANGERS
    )
    with op.batch_alter_table("signin_links") as batch_op:
        batch_op.add_column(sa.Column("binding", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("code_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default=sa.text("0")))
    op.create_table(
        "player_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_player_sessions_account_id", "player_sessions", ["account_id"])


def _new_inbound_columns(batch_op) -> None:
    batch_op.add_column(sa.Column("dedupe_key", sa.String(length=64), nullable=True))
    batch_op.add_column(sa.Column("stranger_emails", sa.Integer(), nullable=True))
    for name in ("spf", "dkim", "dmarc"):
        batch_op.add_column(sa.Column(name, sa.String(length=20), nullable=True))


def _backfill_keys(bind) -> None:
    """Recent rows keyed as new ones are: the same bytes to the same recipient (see pbem.mail.message)."""
    from pbem.mail.message import dedupe_key

    inbound = sa.table(
        "inbound_messages",
        sa.column("id", sa.Integer),
        sa.column("raw", sa.LargeBinary),
        sa.column("envelope_to", sa.String),
        sa.column("received_at", sa.DateTime),
        sa.column("dedupe_key", sa.String),
    )
    since = dt.datetime.now(dt.UTC).replace(tzinfo=None) - BACKFILL
    last, seen = 0, set()
    while True:
        rows = bind.execute(
            sa.select(inbound.c.id, inbound.c.raw, inbound.c.envelope_to)
            .where(inbound.c.received_at >= since, inbound.c.id > last)
            .order_by(inbound.c.id)
            .limit(500)
        ).all()
        if not rows:
            return
        for row in rows:
            key = dedupe_key(bytes(row.raw), row.envelope_to)
            if key not in seen:  # an earlier row holds the key already: this one stays unkeyed
                seen.add(key)
                bind.execute(sa.update(inbound).where(inbound.c.id == row.id).values(dedupe_key=key))
        last = rows[-1].id


def downgrade() -> None:
    op.drop_index("ix_player_sessions_account_id", table_name="player_sessions")
    op.drop_table("player_sessions")
    with op.batch_alter_table("signin_links") as batch_op:
        batch_op.drop_column("attempts")
        batch_op.drop_column("code_hash")
        batch_op.drop_column("binding")
    op.drop_index("ix_inbound_strangers", table_name="inbound_messages")
    op.drop_index("ix_inbound_dedupe", table_name="inbound_messages")
    op.drop_index("ix_inbound_messages_message_id", table_name="inbound_messages")
    # Copies of one message for several recipients share a Message-ID: all but the first are relabelled.
    op.execute(
        "UPDATE inbound_messages SET message_id = message_id || '#' || CAST(id AS VARCHAR(20)) "
        "WHERE id NOT IN (SELECT MIN(id) FROM inbound_messages GROUP BY message_id)"
    )
    with op.batch_alter_table("inbound_messages") as batch_op:
        for name in ("dmarc", "dkim", "spf", "stranger_emails", "dedupe_key"):
            batch_op.drop_column(name)
        batch_op.create_unique_constraint("inbound_messages_message_id_key", ["message_id"])
