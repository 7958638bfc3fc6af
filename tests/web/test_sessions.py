"""Admin sessions: the cookie is Secure behind https, and logging out ends the
session on the server (a copy of the cookie taken before stops working)."""

from __future__ import annotations

from pbem.app import create_app
from tests.conftest import build_runtime
from tests.web.conftest import csrf_of, login


def test_a_cookie_copied_before_logout_no_longer_opens_the_console(app, client, admin_user):
    assert login(client).status_code == 303
    html = client.get("/admin/").get_data(as_text=True)
    stolen = client.get_cookie("session").value
    assert client.post("/admin/logout", data={"csrf_token": csrf_of(html)}).status_code == 303
    thief = app.test_client()
    thief.set_cookie("session", stolen)
    response = thief.get("/admin/")
    assert response.status_code == 302 and "/admin/login" in response.location
    assert login(client).status_code == 303 and client.get("/admin/").status_code == 200  # a new log-in works


def test_the_session_cookie_is_secure_when_the_base_url_is_https(tmp_path, sqlite_url, admin_user):
    runtime = build_runtime(tmp_path, sqlite_url, base_url="https://games.example.org")
    app = create_app(runtime=runtime)
    client = app.test_client()
    response = login(client)
    cookie = response.headers["Set-Cookie"]
    assert "; Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_the_session_cookie_is_not_secure_on_plain_http(app, client, admin_user):
    assert "; Secure" not in login(client).headers["Set-Cookie"]


def test_a_password_change_ends_every_session_of_that_admin(app, client, admin_user, sqlite_runtime):
    from click.testing import CliRunner

    from pbem.cli import main

    assert login(client).status_code == 303 and client.get("/admin/").status_code == 200
    settings = sqlite_runtime.settings
    env = {"PBEM_INSTANCE": str(settings.instance), "PBEM_DATABASE_URL": settings.database_url}
    done = CliRunner().invoke(main, ["admin", "create", "root", "--password", "a-new-password"], env=env)
    assert done.exit_code == 0 and "every session of root has ended" in done.output
    assert client.get("/admin/").status_code == 302  # the cookie from before the change is refused
    assert login(client, password="a-new-password").status_code == 303
