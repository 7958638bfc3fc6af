"""``/metrics`` and ``/readyz`` against real databases (SQLite and PostgreSQL)."""

from __future__ import annotations

import datetime as dt

from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import update

from pbem.app import create_app
from pbem.clock import utcnow
from pbem.inbound.runner import receive
from pbem.models import Game, InboundMessage, OutboxMessage
from pbem.runtime import make_runtime
from tests.mail.helpers import mail
from tests.support.play import start
from tests.support.services import free_port


def samples(client) -> dict[tuple[str, str], float]:
    response = client.get("/metrics")
    assert response.status_code == 200 and response.content_type.startswith("text/plain; version=0.0.4")
    found = {}
    for family in text_string_to_metric_families(response.get_data(as_text=True)):
        for sample in family.samples:
            found[(sample.name, sample.labels.get("queue", ""))] = sample.value
    return found


def test_metrics_show_each_backlog_and_the_age_of_its_oldest(runtime):
    client = create_app(runtime=runtime).test_client()
    empty = samples(client)
    assert empty[("pbem_database_up", "")] == 1
    assert all(empty[("pbem_backlog", q)] == 0 for q in ("inbound", "outbox", "deadlines"))
    game_id = start(runtime)  # four welcome emails wait in the outbox (no relay configured)
    receive(runtime, mail("pbem@pbem.test", "fan@example.net", "help"), transport="test")
    an_hour_ago = utcnow() - dt.timedelta(hours=1)
    with runtime.db.write() as session:
        session.execute(update(Game).where(Game.id == game_id).values(deadline=an_hour_ago))
        session.execute(update(OutboxMessage).values(created_at=an_hour_ago - dt.timedelta(minutes=5)))
        session.execute(update(InboundMessage).values(received_at=an_hour_ago + dt.timedelta(minutes=30)))
    found = samples(client)
    assert found[("pbem_backlog", "outbox")] == 4
    assert found[("pbem_backlog", "inbound")] == 1
    assert found[("pbem_backlog", "deadlines")] == 1
    assert 3900 <= found[("pbem_backlog_oldest_seconds", "outbox")] < 4000
    assert 1800 <= found[("pbem_backlog_oldest_seconds", "inbound")] < 1900
    assert 3600 <= found[("pbem_backlog_oldest_seconds", "deadlines")] < 3700


def test_readyz_fails_while_the_database_is_unreachable_and_healthz_stays_up(runtime):
    assert create_app(runtime=runtime).test_client().get("/readyz").get_json() == {"status": "ready"}
    url = runtime.settings.database_url
    nowhere = (
        f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/x"
        if "postgresql" in url
        else "sqlite:////nonexistent/dir/x.db"
    )
    down = make_runtime(runtime.settings.with_(database_url=nowhere))
    client = create_app(runtime=down).test_client()
    response = client.get("/readyz")
    assert response.status_code == 503 and "database unreachable" in response.get_json()["reason"]
    assert client.get("/healthz").status_code == 200
    assert samples(client)[("pbem_database_up", "")] == 0


def test_metrics_answer_only_the_loopback_or_the_bearer_of_the_token(sqlite_runtime):
    """How busy the server is, and how often strangers hit it, is the operator's business."""
    plain = create_app(runtime=sqlite_runtime).test_client()
    assert plain.get("/metrics").status_code == 200  # a client straight on the loopback
    remote = create_app(runtime=sqlite_runtime).test_client()
    remote.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    refused = remote.get("/metrics")
    assert refused.status_code == 401 and "pbem_backlog" not in refused.get_data(as_text=True)
    assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    proxied = plain.get("/metrics", headers={"X-Forwarded-For": "203.0.113.7"})  # through a proxy: not local
    assert proxied.status_code == 401

    sqlite_runtime.settings = sqlite_runtime.settings.with_(metrics_token="scrape-me-9")
    with_token = create_app(runtime=sqlite_runtime).test_client()
    with_token.environ_base["REMOTE_ADDR"] = "203.0.113.7"
    assert with_token.get("/metrics").status_code == 401
    assert with_token.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert with_token.get("/metrics", headers={"Authorization": "Bearer scrape-me-9"}).status_code == 200
    local = create_app(runtime=sqlite_runtime).test_client()
    assert local.get("/metrics").status_code == 401  # with a token, everyone shows it
