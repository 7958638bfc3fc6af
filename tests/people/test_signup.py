"""Sign-up is signing in for the first time: a new address gets a link that makes its account when it
is used (never before), under the same budgets; then the player chooses a display name, checked for
length, control characters, address-likeness and uniqueness, and shown where the player is named."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pbem.models import Account, SigninLink
from pbem.services import ServiceError
from pbem.services.mailout import signin
from pbem.services.people import names
from pbem.services.play import games, lobby
from tests.people.test_signin_security import ask, latest_link, press, signed_in
from tests.support.play import PLAYERS, game_row
from tests.web.conftest import csrf_of

NEW = "newcomer@example.net"


def accounts_of(runtime, email: str) -> int:
    with runtime.db.read() as session:
        return session.scalar(select(func.count(Account.id)).where(Account.email == email))


def sign_up(app, runtime, email: str = NEW):
    """A new browser asks for a link to ``email`` and uses it: the client and the last response."""
    client = app.test_client()
    assert ask(client, email).status_code == 200
    path, _code = latest_link(runtime)
    _page, used = press(client, path)
    return client, used


def set_name(client, name: str, **extra):
    page = client.get("/me/profile").get_data(as_text=True)
    return client.post("/me/profile", data={"csrf_token": csrf_of(page), "name": name, **extra})


def test_a_new_address_gets_a_link_that_makes_the_account_only_when_used(sqlite_runtime, app):
    runtime = sqlite_runtime
    client = app.test_client()
    answer = ask(client, NEW).get_data(as_text=True)
    assert "a sign-in link is on its way" in answer and "the link makes your account" in answer
    assert accounts_of(runtime, NEW) == 0  # asking makes nothing: a stranger's request leaves no account
    path, _code = latest_link(runtime)
    assert client.get(path).status_code == 200 and accounts_of(runtime, NEW) == 0  # nor does a scanner's GET
    elsewhere = app.test_client()
    _page, refused = press(elsewhere, path)
    assert refused.status_code == 400 and accounts_of(runtime, NEW) == 0  # only in the browser that asked
    _page, used = press(client, path)
    assert used.status_code == 303 and used.location.endswith("/me/profile")  # a name first
    assert accounts_of(runtime, NEW) == 1 and signed_in(client)
    assert press(client, path)[1].status_code == 400  # once


def test_the_code_makes_the_account_too(sqlite_runtime, app):
    runtime = sqlite_runtime
    client = app.test_client()
    ask(client, NEW)
    _path, code = latest_link(runtime)
    token = csrf_of(client.get("/signin").get_data(as_text=True))
    response = client.post("/signin/code", data={"csrf_token": token, "code": code})
    assert response.status_code == 303 and accounts_of(runtime, NEW) == 1


def test_links_to_one_new_mailbox_are_budgeted_however_the_address_is_spelled(sqlite_runtime, app):
    """``v.ictim+1@`` and ``victim@`` reach one mailbox: it gets :data:`signin.MAX_LINKS` links at most."""
    runtime = sqlite_runtime
    for n, spelling in enumerate(["victim@example.net", "v.ictim@example.net", "victim+1@example.net"] * 3):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"203.0.113.{n + 1}"
        assert ask(client, spelling).status_code == 200
    with runtime.db.read() as session:
        sent = session.scalar(select(func.count(SigninLink.id)).where(SigninLink.address_key == "victim@example.net"))
    assert sent == signin.MAX_LINKS


def test_a_new_player_names_themself_and_the_name_is_shown(sqlite_runtime, app):
    runtime = sqlite_runtime
    client, _ = sign_up(app, runtime)
    page = client.get("/me/profile").get_data(as_text=True)
    assert "Choose your name" in page
    saved = set_name(client, "  Night   Owl ")
    assert saved.status_code == 303 and saved.location.endswith("/me")
    with runtime.db.read() as session:
        account = session.scalars(select(Account).where(Account.email == NEW)).one()
        assert (account.name, account.name_key) == ("Night Owl", "night owl")
    assert "Other players now see you as Night Owl." in client.get("/me").get_data(as_text=True)
    game_id = runtime.in_unit(
        lobby.create_open_game, games.NewGame(engine="rankchain", players=PLAYERS[:1], name="Owls", open_seats=1)
    )
    with runtime.db.read() as session:
        account_id = session.scalars(select(Account.id).where(Account.email == NEW)).one()
    assert runtime.in_unit(lobby.join, game_id, account_id).started
    status = app.test_client().get(f"/games/{game_id}").get_data(as_text=True)
    assert "Night Owl" in status and "newcomer" not in status
    seats = app.test_client().get(f"/games/{game_id}.json").get_json()["seats"]
    assert [seat["player"] for seat in seats].count("Night Owl") == 1
    assert game_row(runtime, game_id).status == "active"


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("Al", "3 to 24 characters"),
        ("A" * 25, "3 to 24 characters"),
        ("ann@example.org", "email or web address"),
        ("www.ann", "email or web address"),
        ("ann.example.org", "email or web address"),
        ("Ann\u200bSmith", "control or invisible"),
        ("Ann\x07", "control or invisible"),
        ("Ann\tSmith", "control or invisible"),
        ("---", "letter or digit"),
    ],
)
def test_a_bad_name_is_refused_in_words_beside_the_field(sqlite_runtime, app, typed, why):
    client, _ = sign_up(app, sqlite_runtime)
    response = set_name(client, typed)
    page = response.get_data(as_text=True)
    assert response.status_code == 400 and why in page and 'aria-invalid="true"' in page
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(Account.name).where(Account.email == NEW)).one() == ""


def test_names_are_unique_whatever_their_case(sqlite_runtime, app):
    runtime = sqlite_runtime
    first, _ = sign_up(app, runtime, "first@example.net")
    assert set_name(first, "Night Owl").status_code == 303
    second, _ = sign_up(app, runtime, "second@example.net")
    for spelling in ("night owl", "NIGHT OWL", "Ｎｉｇｈｔ Ｏｗｌ"):
        refused = set_name(second, spelling)
        assert refused.status_code == 400 and "another player goes by" in refused.get_data(as_text=True)
    assert set_name(first, "night owl").status_code == 303  # one's own name in another case is fine


def test_a_name_given_before_names_were_checked_still_counts(sqlite_runtime, app):
    runtime = sqlite_runtime
    from tests.support.play import start

    start(runtime, players=PLAYERS[:3])  # "Ann <ann@example.org>" and others, named by the admin
    client, _ = sign_up(app, runtime)
    assert set_name(client, "ANN").status_code == 400


def test_the_profile_form_checks_csrf_and_sign_in(sqlite_runtime, app):
    client, _ = sign_up(app, sqlite_runtime)
    forged = client.post("/me/profile", data={"csrf_token": "forged", "name": "Mallory"})
    assert forged.status_code == 400 and "The form had expired" in forged.get_data(as_text=True)
    stranger = app.test_client()
    assert stranger.post("/me/profile", data={"name": "Mallory"}).status_code == 302
    assert stranger.get("/me/profile").status_code == 302


def test_after_a_name_the_player_goes_on_only_to_a_page_of_this_site(sqlite_runtime, app):
    client, _ = sign_up(app, sqlite_runtime)
    page = client.get("/me/profile").get_data(as_text=True)
    away = client.post("/me/profile", data={"csrf_token": csrf_of(page), "name": "Owl", "next": "//evil.example"})
    assert away.status_code == 303 and away.location.endswith("/me")


def test_check_name_service_directly():
    assert names.check_name(" Zoë  Smith ") == "Zoë Smith"
    with pytest.raises(ServiceError):
        names.check_name("zoe@example")


def test_one_name_one_player_on_either_database(runtime):
    """The folded name is unique in the database itself: the check and the index agree (SQLite, PostgreSQL)."""
    from pbem.services.people.players import account_for

    ids = []
    for email in ("one@example.net", "two@example.net"):
        with runtime.db.write() as session:
            ids.append(account_for(session, email).id)
    assert runtime.in_unit(names.set_name, ids[0], "Zoë Smith") == "Other players now see you as Zoë Smith."
    with pytest.raises(names.DisplayNameError, match="another player goes by"):
        runtime.in_unit(names.set_name, ids[1], "ZOË SMITH")
    assert runtime.in_unit(names.set_name, ids[1], "Zoe Smith")  # another spelling is another name
