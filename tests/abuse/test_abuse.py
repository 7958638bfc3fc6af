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

import re
import statistics
import time

import pytest
from sqlalchemy import select

from engines.rng import Rng
from pbem.models import InboundMessage, LogEntry
from tests.abuse import stacks
from tests.abuse.stacks import AUTHSERV, SERVER, Browser, Row, mail, record
from tests.support.celery_proc import wait_until
from tests.support.play import legal_move

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


def _latest_link(stack, address: str) -> str:
    wait_until(lambda: any(m["Subject"] == "Your sign-in link" for m in stack.emails_to(address)), 60, "a link")
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
