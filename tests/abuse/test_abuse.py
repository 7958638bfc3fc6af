"""The abuse suite: a stranger's attacks on a real server, each shown to fail.

Every attack runs against both stacks of :mod:`tests.abuse.stacks` (the embedded
default, ``pbem serve``, and the distributed processes on PostgreSQL and Redis),
from outside: SMTP to the listener, HTTP to the web port, and the ``pbem``
command an admin types.  Each test counts what the attack achieved — emails it
made the server send, secrets it saw, orders it made the server lose — and
asserts the figures (all 0 but the stated budgets).  ``PBEM_ABUSE_REPORT=FILE``
appends the table (RELIABILITY.md holds one run's).
"""

from __future__ import annotations

import contextlib
import http.client
import re
import statistics
import subprocess
import sys
import time

import pytest
from sqlalchemy import func, select

from engines.rng import Rng
from pbem.models import InboundMessage, LogEntry
from tests.abuse import stacks
from tests.abuse.stacks import AUTHSERV, SERVER, Browser, Row, mail, record
from tests.support.celery_proc import wait_until
from tests.support.play import legal_move
from tests.support.services import smtp_reply

pytestmark = [pytest.mark.services, pytest.mark.abuse, pytest.mark.timeout(900)]
PHISH_SUBJECT = "Your account is suspended - verify at https://evil.example now"
PHISH_BODY = "Your account is suspended.\nVerify at https://evil.example/login now."
MARKERS = ("evil.example", "suspended", "Verify at", "verify at")
#: Requests to /signin for each address, after a few that warm every web process up.
ROUNDS, WARM_UP = 10, 3


@pytest.fixture(scope="module", params=["embedded", "distributed"])
def stack(request, tmp_path_factory):
    start = stacks.embedded if request.param == "embedded" else stacks.distributed
    with start(tmp_path_factory.mktemp(f"abuse-{request.param}")) as running:
        yield running


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    print("\n" + stacks.write_report())


@pytest.fixture(scope="module")
def table(stack):
    """A game made by the admin's command: Ann, Bob and Cy, each seat's reply address at hand."""
    game = new_game(stack, "Ann <ann@example.org>", "Bob <bob@example.org>", "cy@example.org")
    seats = {seat["email"]: seat for seat in game["seats"]}
    wait_until(lambda: all(stack.emails_to(a) for a in seats), 60, "the welcome emails")
    return game["id"], seats


def new_game(stack, *players: str) -> dict:
    """``pbem game create --json`` as the admin types it on the server."""
    arguments = [word for player in players for word in ("--player", player)]
    return stacks.created(
        stack.pbem("game", "create", "--engine", "kidsprout", *arguments, "--deadline", "2d", "--json")
    )


def applied(stack, game_id: int) -> int:
    with stack.runtime.db.read() as session:
        return len(session.scalars(select(LogEntry.id).where(LogEntry.game_id == game_id)).all())


def inbound(stack, message_id: str) -> list[InboundMessage]:
    with stack.runtime.db.read() as session:
        return list(session.scalars(select(InboundMessage).where(InboundMessage.message_id == message_id)))


# -- 1. the server address reflects a forged sender's text --------------------------------------


def test_1_forged_senders_get_only_the_servers_words_within_a_budget(stack, table):
    budget = int(stacks.BUDGET["PBEM_STRANGER_EMAILS_TOTAL"])
    victims = [f"victim{n}@bank.example" for n in range(12)]
    for victim in victims:  # the reproduction: phishing text and nothing else
        stack.send(mail(victim, SERVER, PHISH_BODY, subject=PHISH_SUBJECT), victim, [SERVER])
    stack.settle()
    silent = sum(len(stack.emails_to(v)) for v in victims)
    for victim in victims:  # the same, with commands the server does answer
        stack.send(mail(victim, SERVER, f"{PHISH_BODY}\nhelp\ngames", subject=PHISH_SUBJECT), victim, [SERVER])
    stack.settle()
    answers = [m for v in victims for m in stack.emails_to(v)]
    reflected = [m for m in answers if any(x in m.as_string() for x in MARKERS)]
    assert silent == 0 and 0 < len(answers) <= budget and reflected == []
    assert all(m["Subject"] == f"Re: your message to {SERVER}" for m in answers)
    from pbem.services.ops import strangers

    with stack.runtime.db.read() as session:
        assert strangers.withheld(session).total >= len(victims) - budget
    assert "stops answering strangers" in (stack.log() + _worker_log(stack))
    metrics = _metrics(stack)
    assert re.search(r"^pbem_stranger_answers_withheld_total [1-9]", metrics, re.MULTILINE), metrics
    record(
        Row(
            stack.name,
            "1. forged senders to the server address (phishing text; then commands)",
            2 * len(victims),
            len(answers),
            stack.exposed(*(m.as_string() for m in answers)),
            0,
            f"no answer to text alone; answers in the server's words only, {budget}/h budget, then silence",
        )
    )


def _worker_log(stack) -> str:
    return "\n".join(p.read_text(errors="replace") for p in stack.log_path.parent.glob("*.log"))


def _metrics(stack) -> str:
    client = Browser(stack, "127.0.0.1")
    headers = {"Authorization": f"Bearer {stack.metrics_token}"} if stack.metrics_token else {}
    status, _, body = client.get("/metrics", headers=headers)
    assert status == 200, body
    if stack.metrics_token:  # with a token configured, nobody reads it without
        assert client.get("/metrics")[0] == 401
    return body


# -- 2. a Message-ID shared by two different messages drops the second ------------------------


def test_2_a_shared_message_id_or_a_second_reply_address_loses_no_order(stack, table):
    game_id, seats = table
    ann, bob = seats["ann@example.org"], seats["bob@example.org"]
    shared = f"<shared-{stack.name}@client.example>"
    before = applied(stack, game_id)
    with stack.runtime.db.read() as session:
        from pbem.models import Game

        state_game = session.get(Game, game_id)
        seat_names = {s.account.email: s.seat for s in state_game.seats}
    order = legal_move(stack.runtime, game_id, seat_names["bob@example.org"], Rng(5))
    stack.send(
        mail("ann@example.org", ann["reply_address"], "status", Message_ID=shared),
        "ann@example.org",
        [ann["reply_address"]],
    )
    stack.send(
        mail("bob@example.org", bob["reply_address"], order, Message_ID=shared),
        "bob@example.org",
        [bob["reply_address"]],
    )
    stack.settle()
    rows = inbound(stack, shared)
    assert sorted(r.status for r in rows) == ["done", "done"], [(r.status, r.verdict) for r in rows]
    assert any(r.verdict == "orders: 1 accepted, 0 refused" for r in rows)
    assert applied(stack, game_id) == before + 1
    # One email to two reply addresses (a player with two seats), in one SMTP transaction.
    second = new_game(stack, "ann@example.org", "di@example.org", "ed@example.org")
    other = next(s for s in second["seats"] if s["email"] == "ann@example.org")
    both = [ann["reply_address"], other["reply_address"]]
    twice = f"<two-seats-{stack.name}@client.example>"
    stack.send(mail("ann@example.org", both, "status", Message_ID=twice), "ann@example.org", both)
    stack.settle()
    copies = inbound(stack, twice)
    assert sorted((r.game_id, r.status) for r in copies) == sorted([(game_id, "done"), (second["id"], "done")])
    record(
        Row(
            stack.name,
            "2. two messages sharing a Message-ID; one email to two reply addresses",
            4,
            0,
            0,
            4 - sum(r.status == "done" for r in [*rows, *copies]),
            "each message and each copy applied",
        )
    )


# -- 3. the dev mailbox is live in a deployment ----------------------------------------------


def test_3_no_dev_mailbox_where_mail_leaves_the_machine(stack, table):
    client = Browser(stack, "127.0.0.3")  # straight on the loopback, no proxy header: the old way in
    pages = [client.get(path) for path in ("/dev/mail/", "/dev/mail/to?address=ann%40example.org")]
    posted = client.request("POST", "/dev/mail/reply/1", data={"body": "play 2"})
    front = client.get("/")[2]
    assert [status for status, _, _ in [*pages, posted]] == [404, 404, 404] and "Dev mailbox" not in front
    secrets = stack.exposed(*(body for _, _, body in [*pages, posted]), front)
    assert secrets == 0
    record(Row(stack.name, "3. the dev mailbox and its reply box from the loopback", 3, 0, secrets, 0, "404"))


# -- 4. sign-in links land in the access log and stay usable; 7. /signin tells by time ---------


def _ask_link(client: Browser, email: str):
    return client.post_form("/signin", "/signin", {"email": email})


def _links_to(stack, address: str) -> int:
    return sum(m["Subject"] == "Your sign-in link" for m in stack.emails_to(address))


def _latest_link(stack, address: str, after: int = 0) -> str:
    """The path of the newest sign-in link to ``address``, once more than ``after`` have come."""
    wait_until(lambda: _links_to(stack, address) > after, 60, "a link")
    body = [m for m in stack.emails_to(address) if m["Subject"] == "Your sign-in link"][-1]
    text = body.get_body(("plain",)).get_content()
    return re.search(r"http://127\.0\.0\.1:\d+(/signin/\S+)", text).group(1)


def test_4_a_sign_in_link_is_neither_logged_nor_usable_elsewhere(stack, table):
    ann, scanner = Browser(stack, "127.0.0.4"), Browser(stack, "127.0.0.40")
    assert _ask_link(ann, "ann@example.org")[0] == 200
    path = _latest_link(stack, "ann@example.org")
    status, _, _ = scanner.get(path)  # a mail scanner, or whoever read the link somewhere
    used = scanner.post_form(path, "/signin", {})
    assert status == 400 and used[0] == 400 and scanner.get("/me.json")[0] == 401
    assert ann.get(path)[0] == 200 and ann.post_form(path, "/signin", {})[0] == 303
    assert ann.get("/me.json")[0] == 200
    again = Browser(stack, "127.0.0.4")
    again.cookies = dict(ann.cookies)
    assert again.post_form(path, "/signin", {})[0] == 400  # used once
    token = path.rsplit("/", 1)[1]
    wait_until(lambda: "/signin/***" in stack.log(), 30, "the access log lines")
    assert token not in stack.log() and token not in _worker_log(stack)
    record(
        Row(
            stack.name,
            "4. a sign-in link from a log or a scanner, in another browser; used twice",
            3,
            0,
            int(token in _worker_log(stack)) + int(scanner.get("/me.json")[0] == 200),
            0,
            "masked in the log; bound to the asking browser; single use",
        )
    )


def test_7_signin_answers_known_and_unknown_addresses_alike(stack, table):
    """The same answer; the time of each is recorded (the lookup happens after the answer)."""
    times: dict[str, list[float]] = {"ann@example.org": [], "nobody@example.org": []}
    pages: dict[str, set[str]] = {"ann@example.org": set(), "nobody@example.org": set()}
    clients = (Browser(stack, f"127.0.7.{n}") for n in range(1, 200))
    for round_ in range(ROUNDS + WARM_UP):
        for address in times:
            client = next(clients)  # each request a client of its own: no limit in the way
            _, _, form = client.get("/signin")
            data = {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', form).group(1), "email": address}
            began = time.perf_counter()
            status, _, body = client.request("POST", "/signin", data=data)
            if round_ >= WARM_UP:  # every web process has answered a few first
                times[address].append(time.perf_counter() - began)
            assert status == 200
            pages[address].add(re.sub(r'value="[^"]*"', "", body.replace(address, "X")))
    assert pages["ann@example.org"] == pages["nobody@example.org"] and len(pages["ann@example.org"]) == 1
    known, unknown = (statistics.median(v) * 1000 for v in times.values())
    record(
        Row(
            stack.name,
            "7. /signin for a known and an unknown address",
            2 * (ROUNDS + WARM_UP),
            0,
            0,
            0,
            f"same page; median {known:.0f} ms known, {unknown:.0f} ms unknown",
        )
    )


# -- 5. a player's sign-out does not end the session -------------------------------------------


def test_5_a_copied_cookie_dies_with_the_sign_out(stack, table):
    player = Browser(stack, "127.0.0.5")
    _ask_link(player, "bob@example.org")
    path = _latest_link(stack, "bob@example.org")
    player.post_form(path, "/signin", {})
    thief = Browser(stack, "127.0.0.50")
    thief.cookies = dict(player.cookies)  # copied before signing out
    assert thief.get("/me.json")[0] == 200
    player.post_form("/signout", "/me", {})
    assert thief.get("/me.json")[0] == 401 and thief.get("/me")[0] == 302 and player.get("/me.json")[0] == 401
    record(Row(stack.name, "5. a session cookie copied before sign-out", 1, 0, 0, 0, "the session ends on the server"))


# -- 6. one web client makes the server mail any number of addresses; 9. forged X-Forwarded-For --


def test_6_and_9_one_client_cannot_make_the_server_mail_many_addresses(stack, table):
    game_id, _ = table
    attacker = Browser(stack, "127.0.0.6")
    statuses = []
    for n in range(30):
        headers = {"X-Forwarded-For": f"198.51.100.{n}", "X-Real-IP": f"198.51.100.{n}"}
        status, _, _ = attacker.post_form(
            f"/games/{game_id}/follow", "/signin", {"email": f"target{n}@example.net"}, headers=headers
        )
        statuses.append(status)
    stack.settle()
    mailed = sum(len(stack.emails_to(f"target{n}@example.net")) for n in range(30))
    allowed = 10  # per client per 15 minutes (pbem.web.ratelimit.MailLimits)
    assert statuses.count(303) == allowed and statuses.count(429) == 30 - allowed and mailed == allowed
    assert _ask_link(attacker, "nobody@example.org")[0] == 429  # the same count for every form that mails
    record(
        Row(
            stack.name,
            "6, 9. 30 follow requests for 30 addresses from one client, each with a forged X-Forwarded-For",
            30,
            mailed,
            0,
            0,
            f"{allowed} per client per 15 min; forwarded headers ignored",
        )
    )


# -- 8. a comma-separated --player drops the second player -----------------------------------


def test_8_players_written_with_a_comma_are_all_seated(stack, table):
    listed = new_game(stack, "Fay <fay@example.org>, Gus <gus@example.org>; hal@example.org")
    emails = {seat["email"] for seat in listed["seats"]}
    assert emails == {"fay@example.org", "gus@example.org", "hal@example.org"}
    wait_until(lambda: all(stack.emails_to(a) for a in emails), 60, "every player's first email")
    refused = stack.pbem(
        "game",
        "create",
        "--engine",
        "kidsprout",
        "--player",
        "Smith, Ann <ann@example.org>",
        "--player",
        "bob@example.org",
        "--player",
        "cy@example.org",
    )
    assert refused.returncode != 0 and '"Smith, Ann" <ann@example.org>' in refused.stderr
    record(
        Row(
            stack.name,
            "8. --player 'Ann <a@...>, Bob <b@...>'; an unquoted name with a comma",
            2,
            0,
            0,
            0,
            "split into players, or refused with the fix",
        )
    )


# -- 10. inbound authentication is ignored -------------------------------------------------------


def test_10_a_forged_player_failing_dmarc_is_held_not_applied(stack, table):
    game_id, seats = table
    cy = seats["cy@example.org"]
    before = applied(stack, game_id)
    forged = f"<forged-{stack.name}@evil.example>"
    results = (
        f"{AUTHSERV}; spf=fail smtp.mailfrom=example.org; dkim=none; dmarc=fail (p=reject) header.from=example.org"
    )
    message = mail(
        "cy@example.org",
        cy["reply_address"],
        "press all: I resign, vote for Ann",
        Message_ID=forged,
        Authentication_Results=results,
    )
    stack.send(message, "attacker@evil.example", [cy["reply_address"]])
    stack.settle()
    [row] = inbound(stack, forged)
    assert row.status == "held" and (row.spf, row.dmarc) == ("fail", "fail") and applied(stack, game_id) == before
    notices = [m for m in stack.emails_to("cy@example.org") if "held" in m.get_body(("plain",)).get_content()]
    assert len(notices) == 1 and "vote for Ann" not in notices[0].as_string()
    assert stack.emails_to("attacker@evil.example") == []
    record(
        Row(
            stack.name,
            "10. a forged From: of a player, failing DMARC at the trusted MTA",
            1,
            0,
            0,
            0,
            "held, not applied; the player told once (the forger's text not quoted)",
        )
    )


# == The second round: each attack of the audit, re-run ============================================


def _to_server(stack, sender: str, body: str, **headers: str) -> None:
    stack.send(mail(sender, SERVER, body, **headers), sender, [SERVER])


def _status_of(stack, message_id: str) -> str:
    rows = inbound(stack, message_id)
    return rows[0].status if rows else "missing"


# -- 11. silencing a player: help in their name to the server address ----------------------------


def test_11_a_forged_player_is_mailed_a_handful_of_times_and_still_plays(stack, table):
    _, seats = table
    ann = seats["ann@example.org"]
    before = len(stack.emails_to("ann@example.org"))
    for n in range(121):
        _to_server(stack, "ann@example.org", "help", Message_ID=f"<silence-{stack.name}-{n}@evil.example>")
    stack.settle(timeout=180)
    caused = len(stack.emails_to("ann@example.org")) - before
    own = f"<own-{stack.name}@example.org>"
    began = time.perf_counter()
    stack.send(mail("ann@example.org", ann["reply_address"], "status", Message_ID=own), "ann@example.org",
               [ann["reply_address"]])  # fmt: skip
    stack.settle()
    waited = time.perf_counter() - began
    [row] = inbound(stack, own)
    per_address = int(stacks.BUDGET["PBEM_STRANGER_EMAILS_SENDER"])
    assert row.status == "done" and not row.verdict.startswith("rate limit"), row.verdict
    assert caused <= per_address, caused
    record(
        Row(
            stack.name,
            "11. 121 help to the server address in a player's name, then the player's own reply",
            122,
            caused,
            0,
            0,
            f"{caused} emails to the player (at most {per_address}/h per address); her reply applied in {waited:.1f} s",
        )
    )


# -- 12. one message stalls everything: a To: of 40,000 addresses --------------------------------


def _crowded(n: int, stack) -> bytes:
    """A message to the server address whose folded To: names 40,000 addresses (about 900 kB)."""
    crowd = [f"user{k}@example{k % 50}.org" for k in range(40_000)]
    folded = ",\r\n ".join(", ".join(crowd[i : i + 20]) for i in range(0, len(crowd), 20))
    head = f"From: crowd{n}@evil.example\r\nTo: {SERVER},\r\n {folded}\r\nSubject: hi\r\n"
    return f"{head}Message-ID: <crowd-{stack.name}-{n}@evil.example>\r\n\r\nhelp\r\n".encode()


def _order_round_trip(stack, game_id: int, seat: dict, serial: int) -> float:
    """Seconds for a player's order through the web (the JSON API), answered."""
    try:
        text = legal_move(stack.runtime, game_id, seat["seat"], Rng(serial), serial)
    except IndexError:  # not this seat's turn: its answer goes through the same unit of work
        text = "status"
    path = seat["play_url"].split(str(stack.web_port), 1)[1] + ".json"
    began = time.perf_counter()
    status, _, body = Browser(stack, "127.0.0.21").request("POST", path, json_body={"orders": text})
    assert status == 200, body
    return time.perf_counter() - began


def test_12_a_huge_recipient_list_stalls_no_one(stack, table):
    import smtplib
    import threading

    game = new_game(stack, "Ivy <ivy@example.org>", "Jo <jo@example.org>", "kim@example.org")
    seats = {seat["email"]: seat for seat in game["seats"]}
    wait_until(lambda: all(stack.emails_to(a) for a in seats), 60, "the welcome emails")
    baseline = statistics.median(_order_round_trip(stack, game["id"], seats["ivy@example.org"], n) for n in range(3))
    refused: list[str] = []

    def attack() -> None:
        for n in range(3):
            try:
                with smtplib.SMTP("127.0.0.1", stack.smtp_port, timeout=60) as client:
                    client.sendmail(f"crowd{n}@evil.example", [SERVER], _crowded(n, stack))
            except smtplib.SMTPException as error:
                refused.append(str(error))

    sender = threading.Thread(target=attack)
    sender.start()
    time.sleep(0.5)
    under_attack = [_order_round_trip(stack, game["id"], seats["jo@example.org"], 10 + n) for n in range(3)]
    emailed = f"<order-under-attack-{stack.name}@example.org>"
    began = time.perf_counter()
    kim = seats["kim@example.org"]
    stack.send(mail("kim@example.org", kim["reply_address"], "status", Message_ID=emailed), "kim@example.org",
               [kim["reply_address"]])  # fmt: skip
    wait_until(lambda: _status_of(stack, emailed) == "done", 120, "the emailed order")
    emailed_wait = time.perf_counter() - began
    sender.join()
    stack.settle(timeout=180)
    crowds = [inbound(stack, f"<crowd-{stack.name}-{n}@evil.example>") for n in range(3)]
    assert refused == [] and all(rows and rows[0].status in ("done", "dropped") for rows in crowds)
    worst = max(under_attack)
    assert worst < 10 * baseline + 2, (worst, baseline)  # before: 27.8 s on SQLite
    record(
        Row(
            stack.name,
            "12. three messages with a To: of 40,000 addresses, with a player's web and emailed order",
            3,
            0,
            0,
            0,
            f"web order {baseline * 1000:.0f} ms alone, {worst * 1000:.0f} ms under attack at worst; "
            f"emailed order done in {emailed_wait:.1f} s",
        )
    )


# -- 13. web starvation: half-sent requests and long polls ---------------------------------------


def _pages_answered(stack, game_id: int, count: int = 20) -> tuple[int, list[float]]:
    paths = ["/healthz", "/", f"/games/{game_id}", f"/games/{game_id}.json"]
    answered, times = 0, []
    for n in range(count):
        began = time.perf_counter()
        status, _, _ = Browser(stack, f"127.0.13.{n + 1}").get(paths[n % len(paths)])
        times.append(time.perf_counter() - began)
        answered += status == 200
    return answered, times


def test_13_slow_connections_and_long_polls_leave_pages_answering(stack, table):
    from concurrent.futures import ThreadPoolExecutor

    game_id, _ = table
    _, headers, _ = Browser(stack, "127.0.0.13").get(f"/games/{game_id}.json")
    tag = headers["ETag"]
    with stacks.half_sent_requests(stack, 16):
        time.sleep(1)
        slow_answered, slow_times = _pages_answered(stack, game_id)

        def poll(n: int) -> int:
            client = Browser(stack, f"127.0.14.{n % 8 + 1}")  # 8 addresses, 2 polls each
            return client.get(f"/games/{game_id}.json?wait=20", headers={"If-None-Match": tag})[0]

        with ThreadPoolExecutor(16) as pool:
            polls = [pool.submit(poll, n) for n in range(16)]
            time.sleep(1)
            poll_answered, poll_times = _pages_answered(stack, game_id)
            statuses = [future.result() for future in polls]
    assert slow_answered == 20 and poll_answered == 20, (slow_times, poll_times)
    assert set(statuses) <= {200, 304}
    record(
        Row(
            stack.name,
            "13. 16 half-sent requests; then 16 long polls from 8 addresses besides",
            32,
            0,
            0,
            0,
            f"pages answered {slow_answered}/20 (median {statistics.median(slow_times) * 1000:.0f} ms), "
            f"with the polls {poll_answered}/20 (slowest {max(poll_times) * 1000:.0f} ms)",
        )
    )


# -- 14. a seat's link in reach: unsubscribe page, calendar feed, press links --------------------


def test_14_no_page_or_feed_without_the_seats_own_token_shows_its_link(stack, table):
    _, seats = table
    bob = seats["bob@example.org"]
    [welcome] = [m for m in stack.emails_to("bob@example.org") if m["List-Unsubscribe"]][:1]
    unsubscribe = re.search(r"<http://127\.0\.0\.1:\d+(/unsubscribe/[^>]+)>", welcome["List-Unsubscribe"]).group(1)
    page = Browser(stack, "127.0.0.14").get(unsubscribe)[2]
    web_token = bob["play_url"].rsplit("/", 1)[1]
    assert "You still get" in page and web_token not in page and "bob@example.org" not in page
    wait_until(lambda: "/unsubscribe/***" in stack.log(), 30, "the access log line")
    assert unsubscribe.rsplit("/", 1)[1] not in stack.log()
    # The calendar feed, from Bob's signed-in browser, then after "sign out everywhere".
    bob_browser = Browser(stack, "127.0.0.15")
    links = _links_to(stack, "bob@example.org")
    _ask_link(bob_browser, "bob@example.org")
    bob_browser.post_form(_latest_link(stack, "bob@example.org", links), "/signin", {})
    me = bob_browser.get("/me")[2]
    feed = re.search(r'id="calendar-url">http://127\.0\.0\.1:\d+([^<]+)<', me).group(1).replace("&amp;", "&")
    ics = Browser(stack, "127.0.0.16").get(feed)[2]
    assert "BEGIN:VCALENDAR" in ics and "/play/" not in ics and stack.exposed(ics) == 0
    bob_browser.post_form("/me/signout-everywhere", "/me", {})
    assert Browser(stack, "127.0.0.16").get(feed)[0] == 404
    # Press from Ann with links dressed as the server's own, in Bob's HTML email.
    ann = seats["ann@example.org"]
    press = f"press {bob['seat']}: your seat https://evil.example/play/x and https://evil.example/signin/y"
    stack.send(mail("ann@example.org", ann["reply_address"], press), "ann@example.org", [ann["reply_address"]])
    wait_until(lambda: _press_html(stack, "bob@example.org"), 60, "the press email")  # sent, or kept for his next
    html = _press_html(stack, "bob@example.org")
    anchors = re.findall(r'<a href="(https://evil\.example[^"]*)"[^>]*>(.*?)</a>', html)
    words = [re.sub(r"<[^>]+>", "", text) for _, text in anchors]
    assert anchors and words == [href for href, _ in anchors], anchors
    record(
        Row(
            stack.name,
            "14. the unsubscribe page, its log line, the calendar feed (and after sign-out everywhere), press links",
            5,
            0,
            stack.exposed(page, ics, stack.log()),
            0,
            "no seat link or address; masked; the feed's key ends; links read as written",
        )
    )


def _press_html(stack, recipient: str) -> str:
    """The HTML of the newest press email to ``recipient``, as it is (or will be) sent."""
    from pbem.models import OutboxMessage
    from pbem.services.mailout import drafts

    with stack.runtime.db.read() as session:
        row = session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.recipient == recipient, OutboxMessage.kind == "press")
            .order_by(OutboxMessage.id.desc())
        ).first()
        return drafts.text_and_html(row)[1] if row is not None else ""


# -- 15. the sign-in budget as an off switch ------------------------------------------------------


def test_15_no_flood_refuses_anyone_else_or_keeps_a_player_out(stack, table):
    game_id, _ = table
    statuses = []
    for client in range(12):  # 120 requests for addresses that play nowhere, from 12 clients
        attacker = Browser(stack, f"127.0.15.{client + 1}")
        statuses += [_ask_link(attacker, f"nobody{client}-{n}@example.net")[0] for n in range(10)]
    others = Browser(stack, "127.0.16.1")
    follow = others.post_form(f"/games/{game_id}/follow", "/signin", {"email": "fan15@example.net"})[0]
    # Three requests for Cy from an attacker's browser, then Cy in her own: a link in her inbox works there.
    attacker, cy = Browser(stack, "127.0.16.2"), Browser(stack, "127.0.16.3")
    for _ in range(3):
        _ask_link(attacker, "cy@example.org")
    wait_until(lambda: _links_to(stack, "cy@example.org") >= 3, 60, "the links the attacker asked for")
    assert _ask_link(cy, "cy@example.org")[0] == 200
    stack.settle()
    path = _latest_link(stack, "cy@example.org")
    assert cy.post_form(path, "/signin", {})[0] == 303 and cy.get("/me.json")[0] == 200
    links = _links_to(stack, "cy@example.org")
    assert statuses.count(200) == 120 and follow == 303 and links <= 3
    record(
        Row(
            stack.name,
            "15. 120 sign-in requests for unknown addresses from 12 clients; 3 for a player from another browser",
            124,
            links + 1,
            0,
            0,
            f"nobody else refused (a follow: {follow}); {links} links to the player, who signed in with one",
        )
    )


def test_15b_a_reused_connection_tells_known_from_unknown_by_nothing(stack, table):
    """On one kept-alive connection: POST /signin, then a GET at once; the GET waits for no lookup."""
    times: dict[str, list[float]] = {"ann@example.org": [], "nobody@example.org": []}
    for round_ in range(ROUNDS + WARM_UP):
        for address in times:
            connection = http.client.HTTPConnection("127.0.0.1", stack.web_port, timeout=30,
                                                    source_address=(f"127.0.17.{round_ + 1}", 0))  # fmt: skip
            connection.request("GET", "/signin")
            answer = connection.getresponse()
            cookie = answer.getheader("Set-Cookie").split(";", 1)[0]
            token = re.search(r'name="csrf_token" value="([^"]+)"', answer.read().decode()).group(1)
            body = f"csrf_token={token}&email={address.replace('@', '%40')}"
            headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
            connection.request("POST", "/signin", body=body, headers=headers)
            connection.getresponse().read()
            began = time.perf_counter()
            connection.request("GET", "/healthz")  # the same connection, at once
            assert connection.getresponse().read()
            if round_ >= WARM_UP:
                times[address].append(time.perf_counter() - began)
            connection.close()
    known, unknown = (statistics.median(v) * 1000 for v in times.values())
    assert known < 3 * unknown + 5, (known, unknown)
    record(
        Row(
            stack.name,
            "15. /signin then a request on the same kept-alive connection, known and unknown address",
            2 * (ROUNDS + WARM_UP),
            0,
            0,
            0,
            f"the next request's median {known:.0f} ms after a known address, {unknown:.0f} ms after an unknown",
        )
    )


# -- 16. sessions and secrets ---------------------------------------------------------------------


def test_16_admin_sessions_end_with_a_new_password_and_guesses_from_everywhere_are_capped(stack, table):
    created = stack.pbem("admin", "create", "chief", "--password", "first-password-1")
    assert created.returncode == 0, created.stderr
    admin = Browser(stack, "127.0.18.1")
    login = admin.post_form("/admin/login", "/admin/login", {"username": "chief", "password": "first-password-1"})
    assert login[0] == 303 and admin.get("/admin/")[0] == 200
    thief = Browser(stack, "127.0.18.2")
    thief.cookies = dict(admin.cookies)
    assert thief.get("/admin/")[0] == 200
    assert stack.pbem("admin", "create", "chief", "--password", "second-password-2").returncode == 0
    assert thief.get("/admin/")[0] == 302 and admin.get("/admin/")[0] == 302
    statuses = []
    for n in range(56):  # each guess from an address of its own
        guesser = Browser(stack, f"127.0.19.{n + 1}")
        statuses.append(
            guesser.post_form("/admin/login", "/admin/login", {"username": "chief", "password": f"g{n}"})[0]
        )
    fresh = Browser(stack, "127.0.20.1")
    right = fresh.post_form("/admin/login", "/admin/login", {"username": "chief", "password": "second-password-2"})
    link = stack.pbem("admin", "link", "chief")
    assert link.returncode == 0, link.stderr
    path = link.stdout.strip().split(str(stack.web_port), 1)[1]
    assert fresh.post_form(path, path, {})[0] == 303 and fresh.get("/admin/")[0] == 200
    assert statuses.count(401) == 50 and statuses[50:] == [429] * 6 and right[0] == 429
    placeholder = dict(stack.env, PBEM_SECRET_KEY="change-me")
    refused = subprocess.run([sys.executable, "-m", "pbem.cli", "web", "--port", "1"], env=placeholder,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert refused.returncode != 0 and "placeholder" in refused.stderr
    record(
        Row(
            stack.name,
            "16. a stolen admin cookie, then a new password; 56 guesses from 56 addresses; the placeholder key",
            58,
            0,
            0,
            0,
            "the cookie ends; 50 tries in all, then 429 for every client; in by pbem admin link; refused to start",
        )
    )


# -- 17. the smaller ones -------------------------------------------------------------------------


#: Messages of 1.4 MB with no command, from strangers to the server address (the audit sent 40).
JUNK = 12


def _smtpd_pid(stack) -> int:
    root = stack.processes[0].pid if stack.name == "embedded" else stack.processes[1].pid
    return stacks.process_of(root, "smtpd")


def test_17_long_lines_deep_mime_junk_two_senders_tags_and_the_unsubscribe_mailto(stack, table):
    import smtplib
    import socket

    game_id, seats = table
    pid = _smtpd_pid(stack)
    before = stacks.rss_mb(pid)
    with socket.create_connection(("127.0.0.1", stack.smtp_port), timeout=30) as client:
        reader = client.makefile("rb")
        reader.readline()
        for command in ("EHLO x", "MAIL FROM:<a@evil.example>", f"RCPT TO:<{SERVER}>", "DATA"):
            client.sendall(command.encode() + b"\r\n")
            smtp_reply(reader)
        sent = 0
        with contextlib.suppress(OSError):  # the listener hangs up on the endless line: what is tested
            while sent < 50_000_000:
                client.sendall(b"x" * 1_048_576)
                sent += 1_048_576
    grown = stacks.rss_mb(pid) - before
    assert sent < 50_000_000 and grown < 20, (sent, grown)
    deep = "From: a@evil.example\r\nTo: " + SERVER + "\r\nSubject: deep\r\nMIME-Version: 1.0\r\n"
    deep += "".join(f'Content-Type: multipart/mixed; boundary="b{n}"\r\n\r\n--b{n}\r\n' for n in range(5000))
    deep += "Content-Type: text/plain\r\n\r\nhelp\r\n"
    with pytest.raises(smtplib.SMTPDataError) as info, smtplib.SMTP("127.0.0.1", stack.smtp_port, 60) as client:
        client.sendmail("a@evil.example", [SERVER], deep.encode())
    assert info.value.smtp_code == 554
    junk = "Nothing here.\n" + ("z" * 70 + "\n") * 20_000  # 1.4 MB, no command
    for n in range(JUNK):
        _to_server(stack, f"junk{n}@evil.example", junk, Message_ID=f"<junk-{stack.name}-{n}@evil.example>")
    two = mail("ann@example.org, mallory@evil.example", SERVER, "help", Message_ID=f"<two-{stack.name}@evil.example>")
    stack.send(two, "mallory@evil.example", [SERVER])
    spellings = [f"victim+{k}@example.net" for k in range(6)] + ["v.i.c.t.i.m@example.net"]
    for n, spelling in enumerate(spellings):
        Browser(stack, f"127.0.21.{n + 1}").post_form(f"/games/{game_id}/follow", "/signin", {"email": spelling})
    stack.settle(timeout=180)
    with stack.runtime.db.read() as session:
        kept = session.scalar(
            select(func.sum(func.length(InboundMessage.raw))).where(InboundMessage.message_id.like("<junk-%"))
        )
    tagged = sum(len(stack.emails_to(spelling)) for spelling in spellings)
    assert kept < JUNK * 20_000 and _status_of(stack, f"<two-{stack.name}@evil.example>") == "dropped"
    assert tagged == 5 and not stack.emails_to("mallory@evil.example")
    bob = seats["bob@example.org"]
    [welcome] = [m for m in stack.emails_to("bob@example.org") if m["List-Unsubscribe"]][:1]
    mailto = re.search(r"<mailto:([^?>]+)", welcome["List-Unsubscribe"]).group(1).replace("%2B", "+")
    stack.send(mail("bob@example.org", mailto, "unsubscribe"), "bob@example.org", [mailto])
    stack.settle()
    assert _seat_notify(stack, bob) == "my_turn"
    record(
        Row(
            stack.name,
            f"17. 50 MB without a line break; 5,000-deep MIME; {JUNK} x 1.4 MB of junk; two From:; +tags; the mailto",
            50,
            tagged,
            0,
            0,
            f"cut off at {sent // 1_048_576} MB, listener +{grown:.0f} MB; 554; {kept // 1024} kB kept; "
            f"not answered; {tagged} confirmations (5/day per mailbox); unsubscribed by mail",
        )
    )


def _seat_notify(stack, seat: dict) -> str | None:
    from pbem.models import Seat

    token = seat["play_url"].rsplit("/", 1)[1]
    with stack.runtime.db.read() as session:
        return session.scalar(select(Seat.notify).where(Seat.web_token == token))
