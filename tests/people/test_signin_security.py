"""Sign-in links as secret as seat links, sessions that end, and limits per client on every
form that makes the server send an email.

- a sign-in link (and the calendar's key) never reaches a log;
- a link works once, and only in the browser that asked for it (a log reader or a
  mail scanner elsewhere gets nothing); the code in the email, typed in that browser,
  serves a player who reads their mail on another device;
- ``/signin`` answers a known and an unknown address alike, with the same work (it
  stores the request; the worker decides what is sent);
- nobody can keep a player from signing in: requests in the player's name from another
  browser send a few links at most, and the player's own browser can use any of them;
- signing out ends the session on the server, "sign out everywhere" ends them all, and an
  idle session lapses;
- following a game, asking for a link and taking a seat are counted per client (a forged
  ``X-Forwarded-For`` changes nothing); what they send, per address and in all.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlalchemy import event, func, select, update

from pbem.clock import utcnow
from pbem.logmask import MaskingLogger, mask
from pbem.models import Account, OutboxMessage, SigninLink, SigninRequest
from pbem.services.mailout import signin
from tests.support.play import PLAYERS, answer_signin_requests, start
from tests.web.conftest import csrf_of

ANN = "ann@example.org"


def ask(client, email: str = ANN, **extra):
    token = csrf_of(client.get("/signin").get_data(as_text=True))
    response = client.post("/signin", data={"csrf_token": token, "email": email}, **extra)
    answer_signin_requests(client.application.extensions["pbem"])  # the worker's part, as it would be nudged
    return response


def latest_link(runtime) -> tuple[str, str]:
    """``(path, code)`` of the newest sign-in email."""
    with runtime.db.read() as session:
        body = session.scalars(
            select(OutboxMessage.body_text).where(OutboxMessage.kind == "signin").order_by(OutboxMessage.id.desc())
        ).first()
    path = re.search(r"http://pbem\.test(/signin/\S+)", body).group(1)
    code = re.search(r"code on the sign-in page of that\s+browser:\s+([A-Z0-9]{4}-[A-Z0-9]{4})", body).group(1)
    return path, code


def press(client, path: str):
    page = client.get(path)
    return page, client.post(path, data={"csrf_token": csrf_of(client.get("/signin").get_data(as_text=True))})


def signed_in(client) -> bool:
    return client.get("/me.json").status_code == 200


def test_sign_in_links_and_calendar_keys_are_masked_in_the_access_log():
    line = 'GET /signin/AbC123_-x.0123456789abcdef HTTP/1.1 ref="https://x/signin/AbC123_-x.0123456789abcdef"'
    assert "AbC123" not in mask(line) and mask(line).count("/signin/***") == 2
    assert mask("GET /me/deadlines.ics?key=Zm9vYmFy HTTP/1.1") == "GET /me/deadlines.ics?key=*** HTTP/1.1"
    assert mask("GET /signin HTTP/1.1") == "GET /signin HTTP/1.1"

    class Config:
        access_log_format = '%(r)s %(U)s %(q)s "%(f)s"'
        errorlog = accesslog = "-"
        loglevel = "info"
        logconfig_dict = logconfig = syslog = None
        capture_output = False
        syslog_addr = syslog_prefix = syslog_facility = None
        disable_redirect_access_to_syslog = False
        user = group = 0
        umask = 0
        logconfig_json = None

    logger = MaskingLogger.__new__(MaskingLogger)
    logger.cfg = Config()
    environ = {
        "REQUEST_METHOD": "GET", "RAW_URI": "/me/deadlines.ics?key=SECRETKEY", "PATH_INFO": "/me/deadlines.ics",
        "QUERY_STRING": "key=SECRETKEY", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_REFERER": "http://x/signin/TOKEN.mac",
        "REMOTE_ADDR": "127.0.0.1",
    }  # fmt: skip

    class Response:
        status, headers, sent = "200 OK", [], 0
        response_length = 0

    class Request:
        headers: list = []

    atoms = logger.atoms(Response(), Request(), environ, dt.timedelta(seconds=0.01))
    assert not any("SECRETKEY" in str(v) or "TOKEN" in str(v) for v in atoms.values()), atoms


def test_a_link_from_the_log_or_a_scanner_signs_no_one_in_elsewhere(sqlite_runtime, app):
    runtime = sqlite_runtime
    start(runtime, players=PLAYERS[:3])
    player, stranger = app.test_client(), app.test_client()
    ask(player)
    path, _ = latest_link(runtime)
    opened, used = press(stranger, path)  # another browser: the scanner's fetch, the log reader's POST
    assert opened.status_code == 400 and "only in the browser where it was asked" in opened.get_data(as_text=True)
    assert used.status_code == 400 and not signed_in(stranger)
    opened, used = press(player, path)  # the browser that asked: still usable
    assert opened.status_code == 200 and used.status_code == 303 and signed_in(player)
    again = player.get(path)
    assert again.status_code == 400 and "not valid any more" in again.get_data(as_text=True)  # once only
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(SigninLink.id)).where(SigninLink.used_at.is_not(None))) == 1


def test_requests_in_a_players_name_elsewhere_never_keep_the_player_out(sqlite_runtime, app):
    """An attacker's browser asks for Ann's links until her address's allowance is spent: Ann, asking
    in her own browser, is sent nothing more, yet any link in her inbox works there (and only there)."""
    from pbem.services.mailout.signin import MAX_LINKS

    runtime = sqlite_runtime
    start(runtime, players=PLAYERS[:3])
    attacker, ann = app.test_client(), app.test_client()
    for _ in range(MAX_LINKS + 3):
        ask(attacker)
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(SigninLink.id))) == MAX_LINKS  # an inbox is not flooded
    path, _ = latest_link(runtime)
    assert ask(ann).status_code == 200
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(SigninLink.id))) == MAX_LINKS  # nothing more was sent
    opened, used = press(ann, path)
    assert opened.status_code == 200 and used.status_code == 303 and signed_in(ann)
    assert press(attacker, path)[1].status_code == 400 and not signed_in(attacker)
    with runtime.db.read() as session:  # the link used spends the others
        assert session.scalar(select(func.count(SigninLink.id)).where(SigninLink.used_at.is_(None))) == 0


def test_the_code_typed_in_the_asking_browser_signs_in_and_only_there(sqlite_runtime, app):
    runtime = sqlite_runtime
    start(runtime, players=PLAYERS[:3])
    player, stranger = app.test_client(), app.test_client()
    ask(player)
    _, code = latest_link(runtime)

    def type_code(client, typed: str):
        token = csrf_of(client.get("/signin").get_data(as_text=True))
        return client.post("/signin/code", data={"csrf_token": token, "code": typed})

    assert type_code(stranger, code).status_code == 400 and not signed_in(stranger)
    assert type_code(player, "ZZZZ-ZZZZ").status_code == 400 and not signed_in(player)
    assert type_code(player, code.lower().replace("-", " ")).status_code == 303 and signed_in(player)
    assert type_code(player, code).status_code == 400  # used once


def test_wrong_codes_shut_the_browsers_code_entry_but_spend_no_link(sqlite_runtime, app):
    """Wrong codes count against the browser that types them: a stranger who asked in Ann's name and
    guesses her code is stopped, and Ann's link and code still work for her."""
    from pbem.services.mailout.signin import MAX_CODE_TRIES

    start(sqlite_runtime, players=PLAYERS[:3])
    player, guesser = app.test_client(), app.test_client()
    ask(player)
    ask(guesser)  # in Ann's name, from elsewhere
    _, code = latest_link(sqlite_runtime)
    token = csrf_of(guesser.get("/signin").get_data(as_text=True))
    for _ in range(MAX_CODE_TRIES):
        assert guesser.post("/signin/code", data={"csrf_token": token, "code": "2222-2222"}).status_code == 400
    assert guesser.post("/signin/code", data={"csrf_token": token, "code": code}).status_code == 400
    assert not signed_in(guesser)
    own = csrf_of(player.get("/signin").get_data(as_text=True))
    assert player.post("/signin/code", data={"csrf_token": own, "code": code}).status_code == 303 and signed_in(player)


def test_signin_does_the_same_work_for_known_and_unknown_addresses_before_answering(sqlite_runtime, app):
    """The time an answer takes tells nothing: the web stores the request and nothing else, the same
    statements for both (on a reused connection too: nothing is left to run after the answer)."""
    runtime = sqlite_runtime
    start(runtime, players=PLAYERS[:3])
    statements: list[str] = []
    event.listen(runtime.db.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    counts, pages = {}, {}
    client = app.test_client()  # one client for both, as one kept-alive connection
    for email in ("nobody@example.org", ANN):
        token = csrf_of(client.get("/signin").get_data(as_text=True))
        statements.clear()
        response = client.post("/signin", data={"csrf_token": token, "email": email})
        page = response.get_data(as_text=True).replace(email, "X")
        response.close()
        counts[email] = list(statements)
        pages[email] = re.sub(r'value="[^"]*"', "", page)  # the form tokens differ, nothing else
    with runtime.db.read() as session:
        assert session.scalar(select(func.count(SigninLink.id))) == 0  # nothing looked up by the web
    assert counts[ANN] == counts["nobody@example.org"] and pages[ANN] == pages["nobody@example.org"]
    assert not any("accounts" in statement for statement in counts[ANN])
    assert answer_signin_requests(runtime) == 2  # the worker then sends Ann's link, and the new address its own
    with runtime.db.read() as session:
        outcomes = dict(session.execute(select(SigninRequest.address, SigninRequest.outcome)).all())
        assert session.scalar(select(func.count(Account.id)).where(Account.email == "nobody@example.org")) == 0
    assert outcomes == {"nobody@example.org": "sent to a new address", ANN: "sent"}  # no account until it is used


def test_signing_out_ends_the_session_for_every_copy_of_the_cookie(sqlite_runtime, app):
    runtime = sqlite_runtime
    start(runtime, players=PLAYERS[:3])
    player = app.test_client()
    ask(player)
    press(player, latest_link(runtime)[0])
    copied = player.get_cookie("session").value  # taken before signing out
    assert signed_in(player)
    page = player.get("/me").get_data(as_text=True)
    assert "Sign out everywhere" in page and "for 14 days without a visit" in page
    player.post("/signout", data={"csrf_token": csrf_of(page)})
    thief = app.test_client()
    thief.set_cookie("session", copied)
    assert not signed_in(player) and not signed_in(thief)
    assert thief.get("/me").status_code == 302


def test_sign_out_everywhere_and_an_idle_session_lapses(sqlite_runtime, app):
    runtime = sqlite_runtime
    start(runtime, players=PLAYERS[:3])
    phone, laptop = app.test_client(), app.test_client()
    for client in (phone, laptop):
        ask(client)
        press(client, latest_link(runtime)[0])
    assert signed_in(phone) and signed_in(laptop)
    page = laptop.get("/me").get_data(as_text=True)
    assert "signed in on 2 devices" in page
    done = laptop.post("/me/signout-everywhere", data={"csrf_token": csrf_of(page)}, follow_redirects=True)
    assert "signed out everywhere (2 sessions ended)" in done.get_data(as_text=True)
    assert not signed_in(phone) and not signed_in(laptop)

    ask(phone)
    press(phone, latest_link(runtime)[0])
    assert signed_in(phone)
    from pbem.models import PlayerSession
    from pbem.services.people import sessions

    with runtime.db.write() as session:
        session.execute(update(PlayerSession).values(last_seen_at=utcnow() - sessions.IDLE - dt.timedelta(minutes=1)))
    assert not signed_in(phone)


def test_one_client_cannot_make_the_server_mail_many_addresses(sqlite_runtime, app):
    runtime = sqlite_runtime
    game_id = start(runtime, players=PLAYERS[:3])
    client = app.test_client()
    token = csrf_of(client.get(f"/games/{game_id}/follow").get_data(as_text=True))
    statuses = []
    for n in range(30):  # a forged X-Forwarded-For is no other client (PBEM_TRUSTED_PROXIES=0)
        headers = {"X-Forwarded-For": f"198.51.100.{n}"}
        data = {"csrf_token": token, "email": f"target{n}@example.net"}
        statuses.append(client.post(f"/games/{game_id}/follow", data=data, headers=headers).status_code)
    allowed = 10  # per client per 15 minutes (pbem.web.ratelimit.MailLimits)
    assert statuses.count(303) == allowed and statuses.count(429) == 30 - allowed
    with runtime.db.read() as session:
        mailed = session.scalar(select(func.count(OutboxMessage.id)).where(OutboxMessage.kind == "observer_confirm"))
    assert mailed == allowed
    assert ask(client, ANN).status_code == 429  # the same count for every form that sends mail
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "203.0.113.9"
    assert ask(other, ANN).status_code == 200  # another client has its own count


def test_all_clients_together_are_bounded_in_emails_sent_and_links_to_new_addresses_take_a_share_only(
    sqlite_runtime, app, monkeypatch
):
    """The web's forms may send so many emails in all; a crowd of clients asking for links to
    addresses that play nowhere (sign-ups) gets a quarter of that budget, so it never takes the rest."""
    from pbem.services.mailout import budget

    monkeypatch.setattr(budget, "OVERALL", 12)
    game_id = start(sqlite_runtime, players=PLAYERS[:3])

    def client_at(n: int):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = f"203.0.113.{n}"
        return client

    for n in range(30):  # 30 clients, 10 unknown addresses each: 300 requests, all answered alike
        for m in range(10):
            assert ask(client_at(n), f"nobody{n}-{m}@example.net").status_code == 200
    statuses = []
    for n in range(20):
        client = client_at(100 + n)
        token = csrf_of(client.get(f"/games/{game_id}/follow").get_data(as_text=True))
        data = {"csrf_token": token, "email": f"t{n}@example.net"}
        statuses.append(client.post(f"/games/{game_id}/follow", data=data).status_code)
    with sqlite_runtime.db.read() as session:
        new_links = session.scalar(select(func.count(SigninLink.id)).where(SigninLink.account_id.is_(None)))
    assert new_links == 12 // signin.NEW_SHARE == 3
    assert statuses.count(303) == 12 - 3 and statuses.count(400) == 20 - 9 and 429 not in statuses
