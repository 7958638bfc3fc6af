"""signin_requests: every sign-in request, decided by the worker; observers: the mailbox each address reaches

Observers made before get their ``address_key`` here (the same function as new ones).

Revision ID: 0018_signin_requests_observers
Revises: 0017_outbox_kept_bodies
Create Date: 2026-11-28 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0018_signin_requests_observers"
down_revision = "0017_outbox_kept_bodies"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from pbem.services.mailout.budget import mailbox_key

    op.create_table(
        "signin_requests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("binding", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("done_at", sa.DateTime(), nullable=True),
        sa.Column("outcome", sa.String(length=40), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
    )
    op.create_index("ix_signin_requests_address", "signin_requests", ["address", "created_at"])
    op.create_index("ix_signin_requests_binding", "signin_requests", ["binding"])
    op.create_index("ix_signin_requests_done_at", "signin_requests", ["done_at"])
    with op.batch_alter_table("observers") as batch:
        batch.add_column(sa.Column("address_key", sa.String(length=320), nullable=True))
    op.create_index("ix_observers_address_key_asked", "observers", ["address_key", "asked_at"])
    op.create_index("ix_observers_asked_at", "observers", ["asked_at"])
    observers = sa.table("observers", sa.column("id", sa.Integer), sa.column("email", sa.String), sa.column("address_key", sa.String))
    connection = op.get_bind()
    for row_id, email in connection.execute(sa.select(observers.c.id, observers.c.email)).all():
        connection.execute(sa.update(observers).where(observers.c.id == row_id).values(address_key=mailbox_key(email)))


def downgrade() -> None:
    op.drop_index("ix_observers_asked_at", table_name="observers")
    op.drop_index("ix_observers_address_key_asked", table_name="observers")
    with op.batch_alter_table("observers") as batch:
        batch.drop_column("address_key")
    op.drop_index("ix_signin_requests_done_at", table_name="signin_requests")
    op.drop_index("ix_signin_requests_binding", table_name="signin_requests")
    op.drop_index("ix_signin_requests_address", table_name="signin_requests")
    op.drop_table("signin_requests")
