"""A Rank Chain game begun before the cards taken face up were kept gains the whole list at the
upgrade (migration 0012), so it still verifies and its players see every earlier take."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command

from engines.rng import Rng
from pbem.db import normalise_url
from pbem.migrations import alembic_config, upgrade
from pbem.services.play.verify import verify
from tests.support.play import PLAYERS, game_row, play_one, start


def test_an_old_rank_chain_game_gets_its_face_up_cards_back_and_verifies(runtime):
    game_id = start(runtime, engine="rankchain", players=PLAYERS[:2])
    rng = Rng(5)
    for serial in range(400):  # random play until some card was taken face up and is still held
        play_one(runtime, game_id, rng, serial)
        known = game_row(runtime, game_id).state.get("known", {})
        if any(known.values()):
            break
    assert any(known.values()), "no card was taken face up in 400 random orders"

    url = normalise_url(runtime.settings.database_url)
    engine = sa.create_engine(url)
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("state", sa.JSON))
    try:
        with engine.begin() as connection:  # as the code before the list left it
            state = connection.execute(sa.select(games.c.state).where(games.c.id == game_id)).scalar_one()
            connection.execute(
                sa.update(games)
                .where(games.c.id == game_id)
                .values(state={key: value for key, value in state.items() if key != "known"})
            )
    finally:
        engine.dispose()
    # The damage is real (checked on today's schema: the code reads every column of it).
    assert not runtime.in_reading(verify, game_id).ok
    command.downgrade(alembic_config(url), "0011_thread_keys_unsubscribe")  # the schema before the list

    upgrade(url)

    assert game_row(runtime, game_id).state["known"] == known
    assert runtime.in_reading(verify, game_id).ok
