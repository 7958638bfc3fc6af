"""seats.left_at and seats.left_reason: a seat's player leaving is one event, whatever the reason

Before, a resignation set ``resigned_at`` while an admin's removal handed the seat
to a "vacant" account (the game's defaults) or a new bot account (policy
``bot:N``).  Now each is the same event with a reason (``resigned``, ``removed``,
``dropped``), and who plays the seat follows from it (:mod:`pbem.seating`).

Upgrade: a resigned seat left when it resigned; a seat on the vacant account, or
on a bot account the admin's ``remove`` put there (the game log names the seat),
was removed, when the log says (the account stays, so the seat is still played
as before).  Downgrade: a left seat becomes a resigned one (what the old schema
calls a seat played by the late-seat policy), except one on a bot or vacant
account, which the old code reads from its account as it always did.

Revision ID: 0015_seats_left
Revises: 0014_engine_faults
Create Date: 2026-12-02 09:00:00
"""

import datetime as dt

import sqlalchemy as sa
from alembic import op

revision = "0015_seats_left"
down_revision = "0014_engine_faults"
branch_labels = None
depends_on = None

#: The accounts of the bot's seats and of the old vacant seats (``pbem.models.BOT_DOMAIN``).
BOT_EMAILS = "%@bot.invalid"
LEFT = "left_at IS NOT NULL"


def _seats() -> sa.Table:
    return sa.table(
        "seats",
        sa.column("id", sa.Integer),
        sa.column("game_id", sa.Integer),
        sa.column("account_id", sa.Integer),
        sa.column("seat", sa.String),
        sa.column("resigned_at", sa.DateTime),
        sa.column("left_at", sa.DateTime),
        sa.column("left_reason", sa.String),
    )


def _bot_accounts() -> sa.Select:
    accounts = sa.table("accounts", sa.column("id", sa.Integer), sa.column("email", sa.String))
    return sa.select(accounts.c.id).where(accounts.c.email.like(BOT_EMAILS))


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("left_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("left_reason", sa.String(20), nullable=True))
    seats = _seats()
    connection = op.get_bind()
    connection.execute(
        sa.update(seats)
        .where(seats.c.resigned_at.is_not(None))
        .values(left_at=seats.c.resigned_at, left_reason="resigned")
    )
    for seat_id, removed_at in _removed_seats(connection):
        connection.execute(
            sa.update(seats).where(seats.c.id == seat_id).values(left_at=removed_at, left_reason="removed")
        )
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("resigned_at")
        batch.create_index("ix_seats_left", ["game_id"], postgresql_where=sa.text(LEFT), sqlite_where=sa.text(LEFT))


def _removed_seats(connection: sa.Connection) -> list[tuple[int, object]]:
    """Seats on a bot or vacant account that the admin's ``remove`` put there, with when (the game's
    last ``remove: SEAT[: reason]`` log entry for the seat; the vacant account's without one: now)."""
    log = sa.table(
        "game_log",
        sa.column("game_id", sa.Integer),
        sa.column("kind", sa.String),
        sa.column("text", sa.Text),
        sa.column("created_at", sa.DateTime),
    )
    removals: dict[tuple[int, str], object] = {}
    entries = connection.execute(
        sa.select(log.c.game_id, log.c.text, log.c.created_at)
        .where(log.c.kind == "admin", log.c.text.like("remove: %"))
        .order_by(log.c.created_at)
    )
    for game_id, text, created_at in entries:
        seat_name = text.removeprefix("remove: ").partition(":")[0].strip().lower()
        removals[(game_id, seat_name)] = created_at
    seats = _seats()
    accounts = sa.table("accounts", sa.column("id", sa.Integer), sa.column("email", sa.String))
    rows = connection.execute(
        sa.select(seats.c.id, seats.c.game_id, seats.c.seat, accounts.c.email)
        .join(accounts, accounts.c.id == seats.c.account_id)
        .where(seats.c.account_id.in_(_bot_accounts()), seats.c.resigned_at.is_(None))
    )
    found = []
    for seat_id, game_id, seat_name, email in rows:
        when = removals.get((game_id, seat_name.lower()))
        if when is None and email.lower() == "vacant@bot.invalid":
            when = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        if when is not None:
            found.append((seat_id, when))
    return found


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_left")
        batch.add_column(sa.Column("resigned_at", sa.DateTime(), nullable=True))
    seats = _seats()
    op.get_bind().execute(
        sa.update(seats)
        .where(seats.c.left_at.is_not(None), seats.c.account_id.not_in(_bot_accounts()))
        .values(resigned_at=seats.c.left_at)
    )
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("left_reason")
        batch.drop_column("left_at")
