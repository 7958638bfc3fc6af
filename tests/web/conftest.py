"""Fixtures for the web tests: an admin user, logged-in clients, started games."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from werkzeug.security import generate_password_hash

from pbem.models import AdminUser, Seat
from tests.support.play import start

ADMIN_PASSWORD = "correct horse battery"


def password_hash(password: str) -> str:
    """A real Werkzeug hash, checked at log-in like any other, at a low work factor: the default (scrypt)
    takes 0.15 s a hash and a check, and hundreds of tests log in (``pbem admin create`` keeps the default)."""
    return generate_password_hash(password, method="pbkdf2:sha256:1000")


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "the page has no CSRF field"
    return match.group(1)


def fresh_csrf(client, path: str = "/admin/login") -> str:
    return csrf_of(client.get(path).get_data(as_text=True))


def web_tokens(runtime, game_id: int) -> dict[str, str]:
    with runtime.db.read() as session:
        return {s.seat: s.web_token for s in session.scalars(select(Seat).where(Seat.game_id == game_id))}


def login(client, username: str = "root", password: str = ADMIN_PASSWORD):
    token = fresh_csrf(client)
    return client.post("/admin/login", data={"csrf_token": token, "username": username, "password": password})


@pytest.fixture
def admin_user(sqlite_runtime):
    with sqlite_runtime.db.write() as session:
        session.add(AdminUser(username="root", password_hash=password_hash(ADMIN_PASSWORD)))
    return "root"


@pytest.fixture
def admin_client(app, admin_user):
    client = app.test_client()
    response = login(client)
    assert response.status_code == 303
    return client


@pytest.fixture
def game_id(sqlite_runtime):
    return start(sqlite_runtime)
