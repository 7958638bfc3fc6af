"""No page or JSON of any game shows a seat's secret to anyone else (every engine).

The marker method of the engine conformance suite, applied to what the web
serves: each secret leaf of one owner in the stored state is replaced by a
unique marker; then no other seat's page or JSON, and no public page, may
contain a marker or differ at all from what it was.
"""

from __future__ import annotations

import copy
import re

import pytest
from sqlalchemy import select

from engines import get_engine, registry
from engines.conformance import MARKER, set_path
from pbem.models import Game
from tests.support.play import play_some, start
from tests.web.conftest import web_tokens

ADDRESSES = [f"Player {i} <p{i}@example.org>" for i in range(12)]


def store_state(runtime, game_id: int, state: dict) -> None:
    with runtime.db.write() as session:
        game = session.get(Game, game_id)
        game.state = state
        game.version += 1  # the status page caches per version


def pages(client, game_id: int, tokens: dict[str, str], seats: list[str]) -> dict[str, str]:
    out = {
        "status": client.get(f"/games/{game_id}").get_data(as_text=True),
        "status.json": client.get(f"/games/{game_id}.json").get_data(as_text=True),
        "index": client.get("/").get_data(as_text=True),
    }
    for seat in seats:
        for suffix in ("", ".json"):
            response = client.get(f"/play/{tokens[seat]}{suffix}")
            assert response.status_code == 200, (seat, suffix)
            out[f"{seat}{suffix}"] = response.get_data(as_text=True)
    # a style nonce is new in every response, and a page's ETag (for its live updates) changes with the
    # game's version, which this test bumps itself; neither is game content: compare the pages without them
    noise = re.compile(r'(nonce|data-live-etag)="[^"]*"')
    return {name: noise.sub(r'\1=""', text) for name, text in out.items()}


@pytest.mark.parametrize("engine_name", sorted(registry()))
@pytest.mark.parametrize("moves", [0, 7])
def test_no_page_shows_another_seats_secret(client, sqlite_runtime, engine_name, moves):
    engine = get_engine(engine_name)
    players = ADDRESSES[: max(engine.min_players, min(4, engine.max_players))]
    game_id = start(sqlite_runtime, engine=engine_name, players=players)
    play_some(sqlite_runtime, game_id, seed=11, count=moves)
    with sqlite_runtime.db.read() as session:
        state = session.scalars(select(Game.state).where(Game.id == game_id)).one()
    tokens = web_tokens(sqlite_runtime, game_id)
    seats = list(tokens)
    secrets = engine.secret_paths(state)
    if engine_name in ("kidsprout", "rankchain"):  # games with hidden information: the check is not vacuous
        assert any(secrets.values()), f"{engine_name} has no secrets to check"
    for owner, paths in secrets.items():
        if not paths:
            continue
        others = [seat for seat in seats if seat != owner]
        before = pages(client, game_id, tokens, others)
        mutated = copy.deepcopy(state)
        markers = []
        for index, path in enumerate(paths):
            marker = MARKER.format(owner=owner or "nobody", index=index)
            markers.append(marker)
            set_path(mutated, tuple(path), marker)
        store_state(sqlite_runtime, game_id, mutated)
        after = pages(client, game_id, tokens, others)
        store_state(sqlite_runtime, game_id, state)
        for name, text in after.items():
            leaked = [m for m in markers if m in text or m.encode("unicode_escape").decode() in text]
            assert not leaked, f"{engine_name}: {name} shows a secret of {owner or 'nobody'}"
            assert text == before[name], f"{engine_name}: {name} depends on a secret of {owner or 'nobody'}"
