"""The player page speaks the email grammar: commands and orders, the same verdicts in the
same order as an email reply, the same line caps; and its press log and press forms."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from pbem.inbound.runner import process, receive
from pbem.models import Account, OutboxMessage, PressMessage, Seat, Vacation
from pbem.services.play import house_rules, orders, press
from pbem.services.play.seat_commands import MAX_LINE_CHARS, MAX_LINES
from pbem.web.devmail import build_reply
from tests.support.play import PLAYERS, seat_ids, start
from tests.web.conftest import csrf_of, web_tokens

TWIN_PLAYERS = [p.replace("@example.org", "@twin.example.org") for p in PLAYERS]


def open_page(client, token: str) -> tuple[str, str]:
    html = client.get(f"/play/{token}").get_data(as_text=True)
    return html, csrf_of(html)


def post_lines(client, token: str, text: str):
    _, csrf = open_page(client, token)
    return client.post(f"/play/{token}", data={"csrf_token": csrf, "orders": text}, follow_redirects=True)


def latest_email(runtime, address: str) -> OutboxMessage:
    with runtime.db.read() as session:
        return session.scalars(
            select(OutboxMessage).where(OutboxMessage.recipient == address).order_by(OutboxMessage.id.desc())
        ).first()


def email_verdicts(app, runtime, monkeypatch, address: str, body: str) -> list[tuple[str, bool, str]]:
    """Send ``body`` as a real reply through the inbound pipeline; the verdicts its receipt lists."""
    seen: list[tuple[str, bool, str]] = []
    real = orders.queue_receipt

    def record(uow, game, seat, reply, verdicts):
        status = [orders.Verdict(line, True, orders.status_text(game, seat)) for line in reply.status]
        seen.extend((v.line, v.ok, v.message) for v in [*reply.before, *verdicts, *reply.after, *status])
        return real(uow, game, seat, reply, verdicts)

    monkeypatch.setattr(orders, "queue_receipt", record)
    with app.test_request_context():
        raw, envelope_from, envelope_to = build_reply(latest_email(runtime, address), body)
    received = receive(runtime, raw, transport="devmail", envelope_from=envelope_from, envelope_to=envelope_to)
    assert process(runtime, received.id) == "done"
    return seen


def test_the_web_answers_exactly_as_an_email_reply(client, app, sqlite_runtime, monkeypatch):
    body = "press all: hello table\nplay 9\nnotify my_turn\nplay 5\nhelp\nstatus\npress Moons: psst"
    web_game = start(sqlite_runtime)
    mail_game = start(sqlite_runtime, players=TWIN_PLAYERS)  # same seed: the same seats and state
    token = web_tokens(sqlite_runtime, web_game)["Suns"]
    answer = client.post(f"/play/{token}.json", json={"orders": body}).get_json()
    web = [(v["line"], v["ok"], v["message"]) for v in answer["verdicts"]]
    mail = email_verdicts(app, sqlite_runtime, monkeypatch, seat_email(sqlite_runtime, mail_game, "Suns"), body)
    assert web == mail
    lines = [line for line, _, _ in web]
    # commands before the first order come first; the rest after the orders; status last
    assert lines == ["press all: hello table", "play 9", "play 5", "notify my_turn", "help",
                     "press Moons: psst", "status"]  # fmt: skip
    assert (
        answer["headline"]
        == "Your order is in: play 5. Done: press, notify, help, status. 1 line was refused: see why below."
    )
    with sqlite_runtime.db.read() as session:
        web_player = session.scalars(
            select(Account).where(Account.email == seat_email(sqlite_runtime, web_game, "Suns"))
        ).one()
        assert web_player.notify == "my_turn"
        texts = set(session.scalars(select(PressMessage.text).where(PressMessage.game_id == web_game)))
    assert texts == {"hello table", "psst"}


def seat_email(runtime, game_id: int, seat: str) -> str:
    with runtime.db.read() as session:
        row = session.scalars(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat)).one()
        return row.account.email


def test_the_form_takes_commands_too(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    response = post_lines(client, token, "vacation 3\nplay 4\nvacation lots")
    html = response.get_data(as_text=True)
    assert "Your order is in: play 4. Done: vacation. 1 line was refused: see why below." in html
    assert "&gt; vacation 3" in html and "write vacation DAYS" in html
    assert re.search(r'<textarea id="orders" name="orders"[^>]*>vacation lots</textarea>', html)
    with sqlite_runtime.db.read() as session:
        assert len(session.scalars(select(Vacation).where(Vacation.game_id == game_id)).all()) == 1


def test_status_is_answered_last_with_the_view_after_the_orders(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    answer = client.post(f"/play/{token}.json", json={"orders": ["status", "play 3"]}).get_json()
    assert [v["line"] for v in answer["verdicts"]] == ["play 3", "status"]
    assert "You are Moons" in answer["verdicts"][1]["message"]


def test_the_status_answer_is_shown_as_a_view_not_as_an_accepted_order(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Moons"]
    html = post_lines(client, token, "status").get_data(as_text=True)
    answer = html.split('class="verdicts"')[1].split("</ul>")[0]
    assert '<pre class="message">' in answer and "You are Moons" in answer
    assert "ACCEPTED:" not in answer


def test_to_act_is_listed_in_seat_order_everywhere(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    client.post(f"/play/{token}.json", json={"orders": "play 3"})
    data = client.get(f"/games/{game_id}.json").get_json()
    seats = [seat["name"] for seat in data["seats"]]
    assert data["to_act"] == [seat for seat in seats if seat in set(data["to_act"])]
    assert data["to_act"] == data["public"]["to_act"] and len(data["to_act"]) > 1


def test_the_email_line_cap_holds_on_the_web(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Crowns"]
    lines = ["play 9"] * (MAX_LINES + 7)
    answer = client.post(f"/play/{token}.json", json={"orders": lines}).get_json()
    assert len(answer["verdicts"]) == MAX_LINES + 1
    last = answer["verdicts"][-1]
    assert last == {"line": "(7 more lines)", "ok": False, "message": f"only {MAX_LINES} lines are read"}
    html = post_lines(client, token, "\n".join(lines)).get_data(as_text=True)
    assert f"only {MAX_LINES} lines are read" in html


def test_overlong_lines_are_refused_not_read(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Crowns"]
    long_press = "press all: " + "x" * MAX_LINE_CHARS
    answer = client.post(f"/play/{token}.json", json={"orders": f"{long_press}\nplay 2"}).get_json()
    assert [v["ok"] for v in answer["verdicts"]] == [True, False]
    refused = answer["verdicts"][1]
    assert refused["line"].endswith("...") and len(refused["line"]) == 80
    assert f"at most {MAX_LINE_CHARS} are read" in refused["message"]
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(PressMessage)).first() is None


def test_a_lone_surrogate_in_json_is_replaced_not_a_500(client, sqlite_runtime, game_id):
    """JSON may escape half a UTF-16 pair; no database or encoder takes one."""
    token = web_tokens(sqlite_runtime, game_id)["Crowns"]
    body = b'{"orders": "press all: hi \\ud800\\nplay 2"}'
    response = client.post(f"/play/{token}.json", data=body, content_type="application/json")
    assert response.status_code == 200
    verdicts = response.get_json()["verdicts"]
    assert [v["ok"] for v in verdicts] == [True, True], verdicts
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(PressMessage)).one().text == "hi \ufffd"


# -- press on the player page ------------------------------------------------------------------


def send_press(client, token: str, to: str, text: str):
    """Send press from the page's form; the redirect (after success) is followed."""
    _, csrf = open_page(client, token)
    return client.post(f"/play/{token}/press", data={"csrf_token": csrf, "to": to, "text": text}, follow_redirects=True)


def test_private_press_reaches_only_its_addressee(client, sqlite_runtime, game_id):
    tokens = web_tokens(sqlite_runtime, game_id)
    response = send_press(client, tokens["Suns"], "Moons", "meet me <b>at the lake</b>")
    assert response.status_code == 200
    assert "Press sent to Moons." in response.get_data(as_text=True)
    again = client.get(f"/play/{tokens['Suns']}").get_data(as_text=True)
    assert "Press sent to Moons." not in again  # said once, beside the form
    assert again.count("at the lake") == 1
    moons = client.get(f"/play/{tokens['Moons']}").get_data(as_text=True)
    assert "meet me &lt;b&gt;at the lake&lt;/b&gt;" in moons and "<b>at the lake" not in moons
    assert "(private)" in moons and "Reply privately" in moons
    for seat in ("Crowns", "Arms"):
        assert "at the lake" not in client.get(f"/play/{tokens[seat]}").get_data(as_text=True)
        assert "at the lake" not in client.get(f"/play/{tokens[seat]}.json").get_data(as_text=True)
    assert "at the lake" not in client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "at the lake" not in client.get(f"/games/{game_id}/feed.atom").get_data(as_text=True)
    assert "at the lake" in client.get(f"/play/{tokens['Suns']}").get_data(as_text=True)  # the sender's own log


def test_broadcast_press_on_every_page_and_the_status_page(client, sqlite_runtime, game_id):
    tokens = web_tokens(sqlite_runtime, game_id)
    client.get(f"/games/{game_id}")  # cached before the press: the press must still show
    assert send_press(client, tokens["Crowns"], "all", "hello everyone").status_code == 200
    for token in tokens.values():
        assert "hello everyone" in client.get(f"/play/{token}").get_data(as_text=True)
    status = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "hello everyone" in status and "From Crowns (Cy) to every seat" in status
    data = client.get(f"/play/{tokens['Arms']}.json").get_json()
    assert [p["text"] for p in data["press"]] == ["hello everyone"]


def test_replying_to_press_from_the_page(client, sqlite_runtime, game_id):
    tokens = web_tokens(sqlite_runtime, game_id)
    ids = seat_ids(sqlite_runtime, game_id)
    sent = sqlite_runtime.in_unit(press.send_press, game_id, ids["Suns"], "Moons", "deal?")
    html, csrf = open_page(client, tokens["Moons"])
    assert f'action="/play/{tokens["Moons"]}/press/{sent.press_id}/reply"' in html
    response = client.post(
        f"/play/{tokens['Moons']}/press/{sent.press_id}/reply", data={"csrf_token": csrf, "text": "deal."}
    )
    assert response.status_code == 303 and response.location == f"/play/{tokens['Moons']}#press"
    assert "Press sent to Suns." in client.get(response.location).get_data(as_text=True)
    assert "deal." in client.get(f"/play/{tokens['Suns']}").get_data(as_text=True)
    assert "deal." not in client.get(f"/play/{tokens['Crowns']}").get_data(as_text=True)
    # a press the seat cannot see cannot be answered
    secret = sqlite_runtime.in_unit(press.send_press, game_id, ids["Suns"], "Crowns", "only for Crowns")
    response = client.post(
        f"/play/{tokens['Moons']}/press/{secret.press_id}/reply", data={"csrf_token": csrf, "text": "ha"}
    )
    assert response.status_code == 400 and "There is no press to reply to" in response.get_data(as_text=True)


def test_press_forms_need_csrf_and_keep_the_text(client, sqlite_runtime, game_id):
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    response = client.post(f"/play/{token}/press", data={"to": "all", "text": "forged press"})
    assert response.status_code == 400 and "Nothing was sent" in response.get_data(as_text=True)
    assert ">forged press</textarea>" in response.get_data(as_text=True)
    response = client.post(f"/play/{token}/press/1/reply", data={"text": "forged reply"})
    assert response.status_code == 400
    response = send_press(client, token, "Nobody", "who is there")
    assert response.status_code == 400 and "There is no seat" in response.get_data(as_text=True)
    assert ">who is there</textarea>" in response.get_data(as_text=True)
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(PressMessage)).first() is None
    assert client.post("/play/nosuchtoken/press", data={"to": "all", "text": "x"}).status_code == 404


@pytest.mark.parametrize(
    ("mode", "targets", "form"),
    [("full", ["all", "Moons", "Crowns", "Arms"], True), ("public", ["all"], True), ("none", [], False)],
)
def test_the_press_form_follows_the_house_rules(client, sqlite_runtime, mode, targets, form):
    game_id = start(sqlite_runtime)
    sqlite_runtime.in_unit(house_rules.set_rules, game_id, house_rules.parse_rules(press=mode))
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    html = client.get(f"/play/{token}").get_data(as_text=True)
    assert (f'action="/play/{token}/press"' in html) is form
    offered = re.findall(r'<option value="([^"]+)"[^>]*>(?:every seat|\w+ \(private\))</option>', html)
    assert offered == targets
    if mode != "full":  # the server refuses what the form does not offer
        response = send_press(client, token, "Moons", "sneaky")
        assert response.status_code == 400
        assert "public press only" in response.get_data(as_text=True) or "no press" in response.get_data(as_text=True)
