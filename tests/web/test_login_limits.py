"""Log-in limits shared across web processes (Redis, as with two web processes): a client's
failures never refuse a correct password from another client, but a username's failures over
every client shut its password form for all (the admin then logs in by a one-time link)."""

from __future__ import annotations

import pytest

from pbem.app import create_app
from pbem.web.ratelimit import EXTENSION
from tests.support.services import redis_url
from tests.web.conftest import fresh_csrf, login

pytestmark = pytest.mark.redis


def client_from(app, address: str):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


@pytest.fixture
def two_workers(sqlite_runtime, admin_user):
    """Two app instances, as two web processes, counting in the broker's Redis (our own db)."""
    sqlite_runtime.settings = sqlite_runtime.settings.with_(broker_url=redis_url())
    apps = [create_app(runtime=sqlite_runtime) for _ in range(2)]
    apps[0].extensions[EXTENSION].reset()
    yield apps
    apps[0].extensions[EXTENSION].reset()


def test_failures_are_counted_across_processes(two_workers):
    first, second = (client_from(app, "198.51.100.7") for app in two_workers)
    for client in (first, second, first, second, first):  # five failures, spread over both workers
        assert login(client, password="wrong").status_code == 401
    assert login(second).status_code == 429
    assert login(first).status_code == 429


CHILD = """
import sys
from pbem.app import create_app
from pbem.config import load_settings
from pbem.runtime import make_runtime
from tests.web.conftest import fresh_csrf, login
instance, database, broker = sys.argv[1:4]
settings = load_settings(instance=instance, database_url=database, broker_url=broker, secret_key="test-secret")
client = create_app(runtime=make_runtime(settings)).test_client()
client.environ_base["REMOTE_ADDR"] = "198.51.100.8"
print([login(client, password="wrong").status_code for _ in range(5)])
"""


def test_failures_in_another_process_count_here(two_workers, sqlite_runtime):
    """A real second process (as a second gunicorn worker) fails five times; this one then refuses."""
    import subprocess
    import sys

    settings = sqlite_runtime.settings
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(settings.instance), settings.database_url, settings.broker_url],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "[401, 401, 401, 401, 401]", done.stderr[-2000:]
    assert login(client_from(two_workers[0], "198.51.100.8")).status_code == 429
    assert login(client_from(two_workers[0], "198.51.100.9")).status_code == 303


def test_ten_failures_never_refuse_the_right_password_from_another_client(two_workers):
    attacker = client_from(two_workers[0], "203.0.113.66")
    for _ in range(10):
        assert login(attacker, password="wrong").status_code in (401, 429)
    assert login(attacker).status_code == 429
    admin = client_from(two_workers[1], "192.0.2.10")
    assert login(admin).status_code == 303  # the real admin, elsewhere, logs in
    assert admin.get("/admin/").status_code == 200


def test_a_distributed_guess_on_one_username_is_stopped_and_the_admin_gets_in_by_a_one_time_link(
    two_workers, sqlite_runtime
):
    """A guess spread over many addresses: once the username's count is spent, the password form is shut
    for that username from everywhere; the admin, on the server, makes a link that logs in once."""
    from pbem.services.ops import admin_links
    from pbem.web.ratelimit import LoginLimits

    limits = LoginLimits(per_user=6)  # the default is 50 per window; fewer keeps the test short
    for app in two_workers:
        app.extensions[EXTENSION].configure(limits)
    guessers = [client_from(two_workers[n % 2], f"198.18.0.{n}") for n in range(3)]
    for guesser in guessers:
        for _ in range(2):
            assert login(guesser, password="wrong").status_code == 401
    refused = [login(guesser).status_code for guesser in guessers]
    assert refused.count(429) == len(guessers)
    fresh = client_from(two_workers[0], "192.0.2.11")
    assert login(fresh).status_code == 429, "every client: a fresh address gains no try"
    other = client_from(two_workers[1], "192.0.2.12")
    url = sqlite_runtime.in_unit(admin_links.make_link, "root")
    path = url.removeprefix(sqlite_runtime.settings.base_url)
    page = other.get(path)
    assert page.status_code == 200 and "one-time log-in link" in page.get_data(as_text=True)
    token = fresh_csrf(other)
    assert other.post(path, data={"csrf_token": token}).status_code == 303 and other.get("/admin/").status_code == 200
    again = client_from(two_workers[0], "192.0.2.13")
    assert again.post(path, data={"csrf_token": fresh_csrf(again)}).status_code == 400  # once only


def test_an_ipv6_network_is_one_client(two_workers):
    from pbem.web.ratelimit import LoginLimits

    for app in two_workers:
        app.extensions[EXTENSION].configure(LoginLimits(per_client=4, per_user=1000))
    for n in range(4):
        assert login(client_from(two_workers[0], f"2001:db8:1:2::{n + 1:x}"), f"user{n}", "wrong").status_code == 401
    assert login(client_from(two_workers[1], "2001:db8:1:2:ffff::1"), "someone", "wrong").status_code == 429
    assert login(client_from(two_workers[1], "2001:db8:1:3::1")).status_code == 303  # the next /64 is another
