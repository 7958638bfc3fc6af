"""Games from packages of their own, as a running server meets them: the fields docs/api.md promises
in every view (the server supplies them for any engine), a game installed while the server runs,
and rules pages that never remember a miss.

The games are those ``pbem engine new`` writes, found through a real entry point (a ``.dist-info``
on ``sys.path``, as pip writes one); the scaffold's views hold none of ``game``, ``phase``,
``to_act``, ``seat`` or ``prompt`` themselves.
"""

from __future__ import annotations

import os
import sys

import pytest

import engines
from engines import UnknownEngine, get_engine
from pbem.scaffold import create
from tests.engines.scaffolded import installable, installed
from tests.support.play import start
from tests.web.conftest import web_tokens

#: docs/api.md, "Per engine": every view has these; a private view adds SEAT_FIELDS.
VIEW_FIELDS = ("game", "variant", "seats", "players", "phase", "to_act")
SEAT_FIELDS = ("seat", "prompt")


@pytest.fixture(scope="module")
def scaffolds(tmp_path_factory):
    with (
        installed(tmp_path_factory.mktemp("cards"), "apicards") as cards,
        installed(tmp_path_factory.mktemp("board"), "apiboard", kind="board") as board,
    ):
        yield cards, board


@pytest.mark.parametrize("which", [0, 1], ids=["cards", "board"])
def test_a_scaffolded_games_json_has_every_field_the_api_promises(scaffolds, sqlite_runtime, client, which):
    engine = scaffolds[which]
    assert not {"game", "to_act", "seat", "prompt"} & set(engine.private_view(_state(engine), "Red"))
    game_id = start(sqlite_runtime, engine=engine.name, players=["Ann <ann@example.org>", "Bob <bob@example.org>"])

    public = client.get(f"/games/{game_id}.json").get_json()["public"]
    assert all(name in public for name in VIEW_FIELDS), sorted(public)
    assert public["game"] == engine.name and public["variant"] == "standard"
    assert public["seats"] == ["Red", "Blue"] and set(public["players"]) == {"Red", "Blue"}
    assert public["phase"] == engine.phase(_state(engine))
    assert public["to_act"] == sorted(engine.to_act(_state(engine)), key=public["seats"].index)

    for seat, token in web_tokens(sqlite_runtime, game_id).items():
        data = client.get(f"/play/{token}.json").get_json()
        view = data["view"]
        assert all(name in view for name in (*VIEW_FIELDS, *SEAT_FIELDS)), sorted(view)
        assert view["seat"] == seat and view["prompt"] == data["prompt"]
        assert view["to_act"] == public["to_act"] and view["players"] == public["players"]


def _state(engine):
    return engine.new_game(["Ann", "Bob"], 7, engine.default_variant, engine.resolve_options(None)).state


def test_the_engines_own_fields_are_kept(sqlite_runtime, client):
    """A built-in game whose views name themselves keeps its own words (the server only fills gaps)."""
    game_id = start(sqlite_runtime)
    public = client.get(f"/games/{game_id}.json").get_json()["public"]
    assert public["game"] == "KidSprout Jumboree" and all(name in public for name in VIEW_FIELDS)


def test_a_game_installed_while_the_server_runs_is_learned_and_its_rules_shown(tmp_path, sqlite_runtime, client):
    """No restart: a miss looks again when a folder on the path changed; a rules page's miss is never kept."""
    site = tmp_path / "site"
    site.mkdir()
    sys.path.insert(0, str(site))
    engines.refresh()
    try:
        assert "lateone" not in engines.registry()
        assert client.get("/rules/lateone").status_code == 404
        create("lateone", tmp_path / "source")
        (tmp_path / "source" / "lateone").rename(site / "lateone")
        installable(site, "lateone")
        os.utime(site, ns=(1, 1))  # a new time on the folder, as any install gives it
        assert client.get("/rules/lateone").status_code == 200
        assert get_engine("lateone").title == "Lateone"
        game_id = start(sqlite_runtime, engine="lateone", players=["Ann <ann@example.org>", "Bob <bob@example.org>"])
        assert client.get(f"/games/{game_id}").status_code == 200

        rules = site / "lateone" / "RULES.md"
        kept = rules.read_text()
        rules.unlink()
        assert client.get("/rules/lateone").status_code == 404
        rules.write_text(kept + "\nA line added.\n")
        page = client.get("/rules/lateone")
        assert page.status_code == 200 and "A line added." in page.get_data(as_text=True)
    finally:
        sys.path.remove(str(site))
        for module in [m for m in sys.modules if m == "lateone" or m.startswith("lateone.")]:
            del sys.modules[module]
        engines.refresh()


def test_an_unknown_engine_is_a_clear_page_not_a_server_error(sqlite_runtime, client, monkeypatch):
    game_id = start(sqlite_runtime)

    def missing(name):
        raise UnknownEngine(f"unknown engine {name!r}")

    monkeypatch.setattr("pbem.services.play.queries.get_engine", missing)
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 503 and "not installed on this server" in page.get_data(as_text=True)
    assert client.get(f"/games/{game_id}.json").get_json()["status"] == 503


def test_a_pth_file_installed_since_start_up_is_taken_in(tmp_path, monkeypatch):
    """An editable install adds a .pth file to site-packages: its folder joins sys.path, as at start-up."""
    site_folder, source = tmp_path / "site-packages", tmp_path / "project"
    site_folder.mkdir()
    source.mkdir()
    monkeypatch.setattr(engines, "_site_folders", lambda: [str(site_folder)])
    monkeypatch.setattr(engines, "_pth_seen", None)
    monkeypatch.setattr(sys, "path", [*sys.path, str(site_folder)])
    engines.refresh()
    engines.registry()  # the start-up's files are noted
    (site_folder / "__editable__.project.pth").write_text(f"{source}\n# a comment\n")
    os.utime(site_folder, ns=(2, 2))
    assert engines.learn_installed()
    assert str(source) in sys.path
    assert not engines.learn_installed(), "nothing changed since: no second look"
    engines.refresh()


def test_a_package_that_cannot_be_loaded_is_named(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    installable(folder, "brokenone")  # an entry point, and no module behind it
    sys.path.insert(0, str(folder))
    engines.refresh()
    try:
        with pytest.raises(UnknownEngine):
            get_engine("brokenone")
        [problem] = [p for p in engines.load_problems() if p.name == "brokenone"]
        assert "cannot be imported: ModuleNotFoundError" in str(problem)
    finally:
        sys.path.remove(str(folder))
        engines.refresh()
