"""Rank Chain games begun before the cards taken face up were kept: their list, rebuilt from the log

A card taken face up is public until it is placed, and the state keeps a list of
them per seat. A game begun before that list existed gains it at its next take,
holding only the takes from then on, so its state no longer matches a replay of
its own log (``pbem game verify`` says "state") and its players' views miss the
earlier takes. Replaying each such game's log from its seed rebuilds the list
exactly. Only games without the list are replayed, so an upgrade costs
nothing for games begun since. A game whose log does not replay is left as it was (``verify`` names it).

Revision ID: 0012_rankchain_known_cards
Revises: 0011_thread_keys_unsubscribe
Create Date: 2026-11-26 08:45:00
"""

import logging

import sqlalchemy as sa
from alembic import op

revision = "0012_rankchain_known_cards"
down_revision = "0011_thread_keys_unsubscribe"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

games = sa.table(
    "games",
    sa.column("id", sa.Integer),
    sa.column("engine", sa.String),
    sa.column("variant", sa.String),
    sa.column("options", sa.JSON),
    sa.column("seed", sa.BigInteger),
    sa.column("players", sa.JSON),
    sa.column("status", sa.String),
    sa.column("state", sa.JSON),
)
game_log = sa.table(
    "game_log",
    sa.column("game_id", sa.Integer),
    sa.column("seq", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("seat", sa.String),
    sa.column("text", sa.Text),
)


def upgrade() -> None:
    from engines import get_engine
    from engines.playout import apply_entry

    bind = op.get_bind()
    engine = get_engine("rankchain")
    rows = bind.execute(
        sa.select(games).where(games.c.engine == "rankchain", games.c.status != "open").order_by(games.c.id)
    ).all()
    for game in rows:
        if "known" in game.state:  # begun by code that keeps the list: complete already
            continue
        known = replayed_known(bind, engine, apply_entry, game)
        if known is None:
            log.warning("Rank Chain game %s: its log does not replay; its face-up cards are left as they were", game.id)
            continue
        if known != game.state.get("known"):
            bind.execute(sa.update(games).where(games.c.id == game.id).values(state={**game.state, "known": known}))


def replayed_known(bind, engine, apply_entry, game) -> dict | None:
    """The face-up cards per seat after replaying the game's log, or None if it does not replay."""
    try:
        state = engine.new_game(list(game.players), game.seed, game.variant, dict(game.options or {})).state
        entries = bind.execute(
            sa.select(game_log.c.kind, game_log.c.seat, game_log.c.text)
            .where(game_log.c.game_id == game.id, game_log.c.kind != "admin")
            .order_by(game_log.c.seq)
        )
        for kind, seat, text in entries:
            state = apply_entry(engine, state, {"kind": kind, "seat": seat, "text": text}).state
    except (ValueError, KeyError, LookupError) as error:
        log.debug("replay of game %s failed: %s", game.id, error)
        return None
    return state.get("known")


def downgrade() -> None:
    """Nothing to undo: older code keeps the list it finds and adds to it."""
