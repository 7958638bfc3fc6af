"""Player-supplied text (names, game names, excuse texts) is shown literally everywhere."""

from __future__ import annotations

from sqlalchemy import select

from pbem.models import OutboxMessage
from pbem.services.play import orders, press
from tests.support.play import seat_ids, start
from tests.web.conftest import web_tokens

NAME = "<script>alert('name')</script>"
GAME = "<img src=x onerror=alert('game')>"
EXCUSE = "<script>alert('excuse')</script> & <b>bold</b>"
PLAYERS = [
    f'"{NAME}" <evil@example.org>',
    "Bob <bob@example.org>",
    "Cy <cy@example.org>",
]


def test_hostile_text_is_escaped_on_every_page(admin_client, sqlite_runtime):
    game_id = start(sqlite_runtime, players=PLAYERS, name=GAME)
    ids = seat_ids(sqlite_runtime, game_id)
    for seat in ids:
        sqlite_runtime.in_unit(orders.submit, game_id, ids[seat], ["play 2"], source="web")
    seat = sorted(ids)[0]
    verdicts = sqlite_runtime.in_unit(orders.submit, game_id, ids[seat], [f"excuse 1 + {seat} {EXCUSE}"], source="web")
    assert verdicts.verdicts[0].ok, verdicts.verdicts[0].message
    for to in ("all", sorted(ids)[1]):
        assert sqlite_runtime.in_unit(press.send_press, game_id, ids[seat], to, f"{to}: {EXCUSE}").ok
    tokens = web_tokens(sqlite_runtime, game_id)
    paths = [
        "/",
        f"/games/{game_id}",
        f"/games/{game_id}?replay=1",
        f"/games/{game_id}/follow?email=%3Cscript%3Ealert(1)%3C/script%3E",
        "/admin/",
        f"/admin/games/{game_id}",
        "/dev/mail/",
        "/dev/mail/to?address=evil@example.org",
        *(f"/play/{token}" for token in tokens.values()),
    ]
    for path in paths:
        response = admin_client.get(path)
        assert response.status_code == 200, path
        html = response.get_data(as_text=True)
        for raw in ("<script>alert", "<img src=x", "<b>bold</b>"):
            assert raw not in html, f"{path} shows {raw!r} as markup"
    status = admin_client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "&lt;script&gt;alert(&#39;excuse&#39;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in status
    assert "all: &lt;script&gt;alert(&#39;excuse&#39;)" in status  # broadcast press, shown literally
    for token in tokens.values():
        page = admin_client.get(f"/play/{token}").get_data(as_text=True)
        assert "all: &lt;script&gt;alert(&#39;excuse&#39;)" in page
    assert "&lt;img src=x onerror=alert(&#39;game&#39;)&gt;" in status
    assert "&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;" in status
    # JSON carries the text as data, and is served as JSON (never sniffed as HTML)
    response = admin_client.get(f"/games/{game_id}.json")
    assert response.mimetype == "application/json"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert NAME in str(response.get_json())


def test_hostile_text_in_form_input_is_escaped(client, sqlite_runtime):
    game_id = start(sqlite_runtime)
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    html = client.get(f"/play/{token}").get_data(as_text=True)
    csrf = html.split('name="csrf_token" value="')[1].split('"')[0]
    typed = '</textarea><script>alert("typed")</script>'
    html = client.post(f"/play/{token}", data={"csrf_token": csrf, "orders": typed}, follow_redirects=True).get_data(
        as_text=True
    )
    assert "<script>alert" not in html and "&lt;/textarea&gt;&lt;script&gt;" in html
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "receipt")).first() is None
