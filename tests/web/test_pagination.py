"""Lists of games page by keyset: each game once, no gaps, while games are being added;
every list issues the same few statements whatever the number of games."""

from __future__ import annotations

import json
import re

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from pbem.cli import main
from pbem.services.play import game_pages
from tests.support.play import PLAYERS, start
from tests.web.conftest import login

PAGE = 4
PUBLIC_LINK = re.compile(r'href="/games/(\d+)"')
ADMIN_LINK = re.compile(r'href="/admin/games/(\d+)"')


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(game_pages, "PAGE_SIZE", PAGE)


def new_games(runtime, count: int) -> list[int]:
    return [start(runtime, players=PLAYERS[:3]) for _ in range(count)]


def next_link(html: str, rel: str) -> str | None:
    match = re.search(rf'<a rel="{rel}" href="([^"]+)"', html)
    return match.group(1).replace("&amp;", "&") if match else None


def walk(client, path: str, link: re.Pattern, between=None) -> tuple[list[int], list[str]]:
    """Follow the "older" links from ``path``; ``between`` runs after each page (games added meanwhile)."""
    seen, pages = [], []
    while path:
        html = client.get(path).get_data(as_text=True)
        ids = [int(i) for i in dict.fromkeys(link.findall(html))]
        assert len(ids) <= PAGE
        seen += ids
        pages.append(html)
        if between:
            between()
        path = next_link(html, "next")
    return seen, pages


def test_public_pages_show_each_game_once_while_games_are_added(client, sqlite_runtime, small_pages):
    first = new_games(sqlite_runtime, 10)
    added: list[int] = []
    seen, pages = walk(client, "/", PUBLIC_LINK, between=lambda: added.extend(new_games(sqlite_runtime, 1)))
    assert seen == sorted(first, reverse=True), "no duplicate, no gap, newest first"
    assert len(pages) == 3 and len(added) == 3
    assert next_link(pages[0], "prev") is None and "Page 1" in pages[0]
    assert "Page 2" in pages[1] and next_link(pages[1], "prev") == "/"
    assert "Page 3" in pages[2] and next_link(pages[2], "next") is None
    # Back from the last page: the newer page is the one shown before it.
    back = client.get(next_link(pages[2], "prev")).get_data(as_text=True)
    assert [int(i) for i in dict.fromkeys(PUBLIC_LINK.findall(back))] == seen[PAGE : 2 * PAGE]
    # The new games lead the first page.
    top = client.get("/").get_data(as_text=True)
    assert [int(i) for i in PUBLIC_LINK.findall(top)][:3] == sorted(added, reverse=True)


def test_a_page_number_typed_by_hand_and_nonsense_arguments(client, sqlite_runtime, small_pages):
    ids = sorted(new_games(sqlite_runtime, 6), reverse=True)
    html = client.get("/?page=2").get_data(as_text=True)
    assert [int(i) for i in dict.fromkeys(PUBLIC_LINK.findall(html))] == ids[PAGE:]
    for query in ("?page=x", "?after=-3", "?before=zz&page=0", "?after=99999999999999999999999"):
        response = client.get("/" + query)
        assert response.status_code == 200, query
        assert [int(i) for i in dict.fromkeys(PUBLIC_LINK.findall(response.get_data(as_text=True)))] == ids[:PAGE]


def test_admin_games_pages_and_status_filter(app, sqlite_runtime, admin_user, small_pages):
    from pbem.services.play import games

    client = app.test_client()
    assert client.get("/admin/games").status_code == 302, "only for a logged-in admin"
    assert login(client).status_code == 303
    ids = sorted(new_games(sqlite_runtime, 7), reverse=True)
    sqlite_runtime.in_unit(games.cancel, ids[1], "a test")
    seen, pages = walk(client, "/admin/games", ADMIN_LINK)
    assert seen == ids and len(pages) == 2
    active, _ = walk(client, "/admin/games?status=active", ADMIN_LINK)
    assert active == [i for i in ids if i != ids[1]]
    cancelled, _ = walk(client, "/admin/games?status=cancelled", ADMIN_LINK)
    assert cancelled == [ids[1]]
    dashboard = client.get("/admin/").get_data(as_text=True)
    assert 'href="/admin/games"' in dashboard


class StatementCounter:
    def __init__(self, engine):
        self.engine, self.count = engine, 0

    def __call__(self, *_args) -> None:
        self.count += 1

    def __enter__(self):
        sa.event.listen(self.engine, "before_cursor_execute", self)
        return self

    def __exit__(self, *_exc) -> None:
        sa.event.remove(self.engine, "before_cursor_execute", self)


def statements(runtime, fetch) -> int:
    with StatementCounter(runtime.db.engine) as counter:
        fetch()
    return counter.count


def test_lists_issue_the_same_few_statements_for_few_and_many_games(app, sqlite_runtime, admin_user, small_pages):
    client = app.test_client()
    assert login(client).status_code == 303
    cli = CliRunner()
    paths = ("/", f"/?page=2&after={10**9}", "/admin/games", "/admin/games?status=active", "/admin/")

    def counts() -> list[int]:
        out = [statements(sqlite_runtime, lambda p=p: client.get(p)) for p in paths]
        out.append(statements(sqlite_runtime, lambda: cli.invoke(main, ["game", "list", "--json"])))
        return out

    new_games(sqlite_runtime, 2)
    few = counts()
    new_games(sqlite_runtime, 3 * PAGE)
    many = counts()
    assert few == many, dict(zip((*paths, "pbem game list"), zip(few, many, strict=True), strict=True))
    # the dashboard: games, seats, accounts, counts, open games, unreachable addresses, engine faults
    assert max(many) <= 17


def test_cli_pages_through_games(sqlite_runtime):
    ids = sorted(new_games(sqlite_runtime, 5), reverse=True)
    cli = CliRunner()
    first = cli.invoke(main, ["game", "list", "--limit", "2", "--json"])
    assert first.exit_code == 0, first.output
    assert [row["id"] for row in json.loads(first.stdout)] == ids[:2]
    assert f"pbem game list --after {ids[1]} --limit 2" in first.stderr
    second = cli.invoke(main, ["game", "list", "--limit", "2", "--after", str(ids[1]), "--json"])
    assert [row["id"] for row in json.loads(second.stdout)] == ids[2:4]
    third = cli.invoke(main, ["game", "list", "--limit", "2", "--page", "3"])
    assert [int(line.split()[0]) for line in third.stdout.splitlines()] == ids[4:]
    assert "More games" not in third.stderr, "the last page names no next page"
    assert cli.invoke(main, ["game", "list", "--limit", "0"]).exit_code != 0


def test_the_scale_indexes_come_and_go_with_their_migration(any_db_url):
    from alembic import command

    from pbem.db import normalise_url
    from pbem.migrations import alembic_config, upgrade

    url = normalise_url(any_db_url)
    upgrade(any_db_url)
    engine = sa.create_engine(url)

    def names() -> set[str]:
        inspector = sa.inspect(engine)
        return {ix["name"] for table in ("games", "seats") for ix in inspector.get_indexes(table)}

    try:
        assert {"ix_games_status_id", "ix_seats_late"} <= names()
        command.downgrade(alembic_config(url), "0005_accounts_lobby_ratings")
        assert not {"ix_games_status_id", "ix_seats_late"} & names()
        upgrade(any_db_url)
        assert {"ix_games_status_id", "ix_seats_late"} <= names()
    finally:
        engine.dispose()
