"""A request is one unit of work: every route of the app opens at most one transaction, a ``GET``
only a reading one, and a request that fails keeps nothing of what it wrote and sends no nudge.

The count wraps the methods that open a transaction (``Runtime.unit``, ``Runtime.reading``, and
``Database.read``, ``write``, ``open``, ``statements``): each wrapper only notes the call and hands
it on to the real method, so this counts, it mocks nothing.  A method opened by another while that
one is being entered (``Runtime.unit`` opens ``Database.open``) is the same transaction, counted once.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from flask import flash
from sqlalchemy import func, select, text, update

from engines.rng import Rng
from pbem.app import create_app
from pbem.clock import utcnow
from pbem.db import Database
from pbem.models import Account, AdminUser, Game, LogEntry, Observer, PlayerSession, PressMessage, SigninLink
from pbem.runtime import Runtime, set_runtime
from pbem.services import ServiceError
from pbem.services.mailout import observers, preferences, unsubscribe
from pbem.services.mailout.signin import make_token
from pbem.services.ops import admin_links
from pbem.services.people import accounts, sessions
from pbem.services.play import invites, press
from pbem.web import common
from pbem.web.admin import FORM_DEFAULTS
from pbem.web.newgame import FIELDS
from pbem.web.signin import SESSION_KEY
from tests.conftest import build_runtime
from tests.support.play import answer_signin_requests, game_row, legal_move, start
from tests.web.conftest import ADMIN_PASSWORD, password_hash, web_tokens

CSRF = "the-tests-csrf-token"
INBOUND_SECRET = "the-tests-inbound-secret"
ANN = "ann@example.org"
#: Routes left out of the count, and why: each hands the request to another entry point.
NOT_COUNTED = {
    "devmail.reply": "the reply goes in as mail: stored, then processed in the inbound pipeline's own units",
}
#: The methods that open a transaction, by the name the count gives them.
OPENERS = {
    "Runtime.unit": (Runtime, "unit"),
    "Runtime.reading": (Runtime, "reading"),
    "Database.read": (Database, "read"),
    "Database.write": (Database, "write"),
    "Database.open": (Database, "open"),
    "Database.statements": (Database, "statements"),
}


class Opens:
    """The transactions opened since :meth:`clear`, by the name of the method that opened each."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.entering = 0

    def clear(self) -> None:
        self.opened = []

    def wrap(self, name: str, method: Any) -> Any:
        opens = self

        @functools.wraps(method)
        def counted(*args: Any, **kwargs: Any) -> Any:
            return _Counted(opens, name, method(*args, **kwargs))

        return counted


@dataclass
class _Counted:
    """The real context manager, its entry noted (unless another opener is entering it)."""

    opens: Opens
    name: str
    inner: Any

    def __enter__(self) -> Any:
        if not self.opens.entering:
            self.opens.opened.append(self.name)
        self.opens.entering += 1
        try:
            return self.inner.__enter__()
        finally:
            self.opens.entering -= 1

    def __exit__(self, *error: Any) -> Any:
        return self.inner.__exit__(*error)


@pytest.fixture
def opens(monkeypatch) -> Opens:
    found = Opens()
    for name, (owner, attribute) in OPENERS.items():
        monkeypatch.setattr(owner, attribute, found.wrap(name, getattr(owner, attribute)))
    return found


@dataclass
class Site:
    """An app on a database with a running game, an open game of Ann's, and every secret link to them."""

    runtime: Runtime
    app: Any
    clients: dict[str, Any]
    game_id: int
    open_id: int
    values: dict[str, Any] = field(default_factory=dict)
    nudges: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def client(self, who: str):
        return self.clients[who]


def _client(app, **values: Any):
    client = app.test_client()
    with client.session_transaction() as cookie:
        cookie.update({"_csrf": CSRF, **values})
    return client


@pytest.fixture
def site(tmp_path, migrated_db_url) -> Site:
    """On SQLite and on PostgreSQL (the PostgreSQL run is in the slow lane)."""
    rt = build_runtime(tmp_path, migrated_db_url, inbound_secret=INBOUND_SECRET)
    app = create_app(runtime=rt)
    app.config.update(TESTING=True)
    with rt.db.write() as session:
        session.add(AdminUser(username="root", password_hash=password_hash(ADMIN_PASSWORD)))
    game_id = start(rt)
    with rt.reading() as uow:
        ann = uow.session.scalars(select(Account).where(Account.email == ANN)).one()
        admin = uow.session.scalars(select(AdminUser)).one()
        ann_id, handle, admin_id, epoch = ann.id, accounts.handle(ann), admin.id, admin.session_epoch
    player = _client(app, **{SESSION_KEY: rt.in_unit(sessions.begin, ann_id)})
    form = {**FIELDS, "csrf_token": CSRF, "engine": "kidsprout", "seats": "3", "visibility": "open"}
    created = player.post("/games/new", data=form)
    assert created.status_code == 303, created.get_data(as_text=True)
    open_id = int(re.search(r"/games/(\d+)/invite", created.headers["Location"]).group(1))
    clients = {
        "anyone": _client(app),
        "player": player,
        "admin": _client(app, admin_id=admin_id, admin_epoch=epoch, admin_name="root"),
        "login": _client(app),  # an admin about to log in
        "linker": _client(app),  # an admin about to log in by a one-time link
        "newcomer": _client(app),  # about to sign up
    }
    site = Site(rt, app, clients, game_id, open_id)
    rt.nudger = lambda task, args: site.nudges.append((task, args))
    game = game_row(rt, game_id)
    seat = next(s for s in game.seats if s.account.email == ANN)
    other = next(s for s in game.seats if s.account.email != ANN)
    site.values = {
        "ann_id": ann_id,
        "handle": handle,
        "seat": seat.seat,
        "token": web_tokens(rt, game_id)[seat.seat],
        "order": legal_move(rt, game_id, seat.seat, Rng(3)),
        "unsubscribe": unsubscribe.token(rt.settings.secret_key, seat),
        "notify": preferences.preference_token(rt.settings.secret_key, ann_id),
        "code": rt.in_reading(invites.game_code, open_id, ann_id),
        "admin_link": rt.in_reading(admin_links.make_link, "root").rsplit("/", 1)[1],
        "press_id": rt.in_unit(press.send_press, game_id, other.id, "all", "Good luck, all").press_id,
    }
    observer = rt.in_unit(observers.subscribe, game_id, "fan@example.org").observer_id
    with rt.reading() as uow:
        site.values["observer"] = uow.session.get(Observer, observer).token
    yield site
    set_runtime(None)


def get_paths(site: Site) -> list[str]:
    """A path of every page a ``GET`` reaches (with the site's real ids and secret links)."""
    v, game, mine = site.values, site.game_id, site.open_id
    return [
        "/", "/healthz", "/robots.txt", "/static/style.css", "/readyz", "/metrics",
        "/rules", "/rules/", "/rules/kidsprout",
        f"/games/{game}", f"/games/{game}.json", f"/games/{game}/export.json", f"/games/{game}/feed.atom",
        f"/games/{game}/follow", f"/games/{game}/map.png", f"/games/{mine}/invite", "/games/new",
        f"/games/{game}?replay=1", f"/invite/{v['code']}",
        "/me", "/me.json", "/me/deadlines.ics", "/me/profile",
        f"/notify/{v['notify']}", f"/unsubscribe/{v['unsubscribe']}",
        f"/observe/confirm/{v['observer']}", f"/observe/stop/{v['observer']}",
        f"/play/{v['token']}", f"/play/{v['token']}.json", f"/play/{v['token']}/map.png",
        f"/players/{v['handle']}", "/ratings/kidsprout", "/signin",
        "/admin/", "/admin/games", f"/admin/games/{game}", "/admin/games/new", "/admin/login",
        f"/admin/link/{v['admin_link']}", "/dev/mail/", f"/dev/mail/to?address={ANN}",
    ]  # fmt: skip


def posts(site: Site) -> list[tuple[str, str, dict[str, Any]]]:
    """``(who, path, form)`` of the forms that change things, in an order where each still makes sense."""
    v, game, mine = site.values, site.game_id, site.open_id
    token = v["token"]
    new_game = {**FORM_DEFAULTS, "engine": "kidsprout", "players": "eve@example.org\nfay@example.org\ngus@example.org"}
    return [
        ("player", f"/play/{token}", {"orders": v["order"], "turn": "1"}),
        ("player", f"/play/{token}/press", {"to": "all", "text": "Who moves first?"}),
        ("player", f"/play/{token}/press/{v['press_id']}/reply", {"text": "Not me."}),
        ("player", "/me/profile", {"name": "Annabel"}),
        ("player", "/me/tz", {"tz": "Europe/Paris"}),
        ("player", "/me/notify", {"preference": "my_turn"}),
        ("player", "/me/calendar", {}),
        ("player", f"/games/{mine}/leave", {}),
        ("player", f"/games/{mine}/join", {}),
        ("player", f"/invite/{v['code']}", {}),
        ("player", f"/games/{mine}/cancel", {}),
        ("anyone", f"/games/{game}/follow", {"email": "friend@example.org"}),
        ("anyone", f"/observe/confirm/{v['observer']}", {}),
        ("anyone", f"/observe/stop/{v['observer']}", {}),
        ("anyone", f"/notify/{v['notify']}", {"preference": "digest"}),
        ("anyone", f"/unsubscribe/{v['unsubscribe']}", {"action": "news"}),
        ("login", "/admin/login", {"username": "root", "password": ADMIN_PASSWORD}),
        ("player", "/games/new", {**FIELDS, "engine": "kidsprout", "seats": "3", "name": "Friends only"}),
        ("admin", "/admin/games/new", new_game),
        ("admin", f"/admin/games/{game}/pause", {"reason": "a short break"}),
        ("admin", f"/admin/games/{game}/resume", {}),
        ("admin", f"/admin/games/{game}/extend", {"by": "1d"}),
        ("admin", f"/admin/accounts/{v['ann_id']}/reachable", {}),
        ("linker", f"/admin/link/{v['admin_link']}", {}),  # a new admin session: the old cookies stop working
        ("player", "/me/signout-everywhere", {}),
    ]


def _request(site: Site, opens: Opens, who: str, method: str, path: str, **kwargs: Any) -> tuple[Any, list[str]]:
    opens.clear()
    response = site.client(who).open(path, method=method, **kwargs)
    return response, list(opens.opened)


def test_every_route_opens_at_most_one_unit_and_a_page_only_a_reading_one(site, opens):
    endpoints = set()
    adapter = site.app.url_map.bind("pbem.test")
    problems = []

    def check(who: str, method: str, path: str, **kwargs: Any):
        response, opened = _request(site, opens, who, method, path, **kwargs)
        endpoints.add(adapter.match(path.split("?")[0], method=method)[0])
        assert response.status_code < 500, (who, method, path, response.get_data(as_text=True)[:500])
        if len(opened) > 1 or (method == "GET" and set(opened) - {"Runtime.reading"}):
            problems.append((who, method, path, opened))
        return response

    for who in ("anyone", "player", "admin"):
        for path in get_paths(site):
            response = check(who, "GET", path)
            if response.headers.get("ETag"):  # the page again, as a browser that holds it asks: a 304
                again = check(who, "GET", path, headers={"If-None-Match": response.headers["ETag"]})
                assert again.status_code in (200, 304)
    polled = f"/play/{site.values['token']}.json"  # a bot's long poll: one unit, its snapshot let go between checks
    tag = site.client("anyone").get(polled).headers["ETag"]
    waited = check("anyone", "GET", f"{polled}?wait=1", headers={"If-None-Match": tag})
    assert waited.status_code == 304
    for who, path, form in posts(site):
        response = check(who, "POST", path, data={"csrf_token": CSRF, **form})
        assert response.status_code in (200, 303, 302), (path, response.get_data(as_text=True)[:500])
    with site.client("linker").session_transaction() as cookie:
        cookie["_csrf"] = CSRF  # logged in afresh: a new form token
    assert check("linker", "POST", "/admin/logout", data={"csrf_token": CSRF}).status_code == 303
    token = site.values["token"]
    assert check("anyone", "POST", f"/play/{token}.json", json={"orders": "help"}).status_code == 200
    assert check("anyone", "POST", "/signin/code", data={"csrf_token": CSRF, "code": "12345678"}).status_code == 400
    _signing_in(site, check)
    raw = _email(ANN, f"seat+{token}@pbem.test", "help")
    webhook = check("anyone", "POST", "/inbound/email", data=raw, headers={"X-PBEM-Secret": INBOUND_SECRET})
    assert webhook.status_code == 202
    assert not problems, problems
    every = {rule.endpoint for rule in site.app.url_map.iter_rules()}
    assert every - endpoints - set(NOT_COUNTED) == set(), "a route the count does not reach"


def _signing_in(site: Site, check) -> None:
    """A newcomer asks for a link (the worker answers it), opens it and presses its button."""
    asked = check("newcomer", "POST", "/signin", data={"csrf_token": CSRF, "email": "newcomer@example.org"})
    assert "on its way" in asked.get_data(as_text=True)
    assert answer_signin_requests(site.runtime) == 1
    with site.runtime.reading() as uow:
        nonce = uow.session.scalars(select(SigninLink.nonce).order_by(SigninLink.id.desc())).first()
    link = make_token(site.runtime.settings.secret_key, nonce)
    assert check("newcomer", "GET", f"/signin/{link}").status_code == 200
    assert check("newcomer", "POST", f"/signin/{link}", data={"csrf_token": CSRF}).status_code == 303
    assert check("newcomer", "GET", "/me/profile").status_code == 200  # signed up: a name to choose
    with site.client("newcomer").session_transaction() as cookie:
        cookie["_csrf"] = CSRF  # a fresh session has a new form token; the next form carries it
    assert check("newcomer", "POST", "/signout", data={"csrf_token": CSRF}).status_code == 303


def _email(sender: str, to: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, "orders"
    message["Message-ID"] = "<one-unit@example.org>"
    message.set_content(body)
    return bytes(message)


def test_a_session_due_to_be_noted_is_written_once_in_the_requests_one_unit(site, opens):
    an_hour_ago = utcnow() - dt.timedelta(hours=1)
    with site.runtime.db.write() as session:
        session.execute(update(PlayerSession).values(last_seen_at=an_hour_ago))
    response, opened = _request(site, opens, "player", "GET", "/me")
    assert response.status_code == 200 and opened == ["Runtime.reading"]
    with site.runtime.reading() as uow:
        seen = uow.session.scalars(select(PlayerSession.last_seen_at)).one()
    assert seen > an_hour_ago + dt.timedelta(minutes=59)  # noted as used just now, in that one unit


def test_me_reads_only_and_offers_to_make_the_calendar_link(site, opens):
    page = site.client("player").get("/me").get_data(as_text=True)
    assert 'id="calendar-url"' not in page and "Make my calendar link" in page  # signed in without the link
    response, opened = _request(site, opens, "player", "POST", "/me/calendar", data={"csrf_token": CSRF})
    assert response.status_code == 302 and opened == ["Runtime.unit"]
    page = site.client("player").get("/me").get_data(as_text=True)
    assert re.search(r'id="calendar-url">http://pbem\.test/me/deadlines\.ics\?key=\w', page)


# -- a request that fails keeps nothing ---------------------------------------------------------


#: An email that cannot be stored: the database refuses every row of the outbox.
NO_MAIL = {
    "sqlite": ["CREATE TRIGGER no_mail BEFORE INSERT ON outbox BEGIN SELECT RAISE(ABORT, 'the disk is full'); END"],
    "postgresql": [
        "CREATE FUNCTION no_mail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'the disk is full'; END $$ "
        "LANGUAGE plpgsql",
        "CREATE TRIGGER no_mail BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION no_mail()",
    ],
}


def _counts(site: Site) -> tuple[int, int, str]:
    with site.runtime.reading() as uow:
        session = uow.session
        return (
            session.scalar(select(func.count()).select_from(LogEntry)),
            session.scalar(select(func.count()).select_from(PressMessage)),
            session.get(Game, site.game_id).status,
        )


@pytest.mark.parametrize(
    ("who", "path", "form"),
    [
        ("admin", "/admin/games/{game}/pause", {"reason": "a short break"}),
        ("player", "/play/{token}/press", {"to": "all", "text": "Anyone for a truce?"}),
    ],
)
def test_a_post_whose_service_fails_half_way_leaves_nothing_written(site, who, path, form):
    """The service writes its rows (the game paused and logged, the press stored), then the email it
    queues cannot be stored: the request answers with a clean page, nothing of it is in the database,
    and no nudge was sent."""
    with site.runtime.db.write() as session:
        for statement in NO_MAIL[session.get_bind().dialect.name]:
            session.execute(text(statement))
    before = _counts(site)
    site.nudges.clear()
    url = path.format(game=site.game_id, token=site.values["token"])
    response = site.client(who).post(url, data={"csrf_token": CSRF, **form})
    body = response.get_data(as_text=True)
    assert response.status_code in (500, 503) and "nothing was changed" in body and "Traceback" not in body
    assert _counts(site) == before and site.nudges == []
    page = url.rsplit("/", 1)[0] if who == "admin" else f"/play/{site.values['token']}"
    assert site.client(who).get(page).status_code == 200  # and the next page reads as ever


def _refused_half_way(uow) -> None:
    uow.session.add(AdminUser(username="half-way", password_hash="x"))
    uow.session.flush()
    uow.nudge("deliver_outbox", 1)
    raise ServiceError("refused half-way")


def _half_way_view():
    """A view in the shape of the app's: the service refuses after writing; the page reads and says so."""
    try:
        common.run(_refused_half_way)
    except ServiceError as error:
        found = common.db().scalar(select(func.count()).select_from(AdminUser).where(AdminUser.username == "half-way"))
        return f"{error}; rows seen: {found}", 400
    return "done", 200


def _fails_at_commit_view():
    """A row that can only fail when the unit commits (the ORM writes it then): a name taken."""
    common.uow().session.add(AdminUser(username="root", password_hash="x"))
    flash("Saved, the page said")
    return "saved", 200


def test_a_refusal_rolls_back_the_whole_unit_and_the_page_reads_on(tmp_path, sqlite_url):
    rt = build_runtime(tmp_path, sqlite_url)
    sent: list[Any] = []
    rt.nudger = lambda task, args: sent.append(task)
    app = create_app(runtime=rt)
    app.add_url_rule("/half-way", "half_way", _half_way_view, methods=["POST"])
    app.add_url_rule("/at-commit", "at_commit", _fails_at_commit_view, methods=["POST"])
    with rt.db.write() as session:
        session.add(AdminUser(username="root", password_hash="x"))
    client = _client(app)
    response = client.post("/half-way")
    assert response.status_code == 400 and response.get_data(as_text=True) == "refused half-way; rows seen: 0"
    failed = client.post("/at-commit")
    body = failed.get_data(as_text=True)
    assert failed.status_code == 503 and "nothing was changed" in body and "Traceback" not in body
    assert "Saved, the page said" not in client.get("/signin").get_data(as_text=True)  # its message went with it
    with rt.reading() as uow:
        assert uow.session.scalars(select(AdminUser.username)).all() == ["root"]
    assert sent == []
    set_runtime(None)


# -- the one place --------------------------------------------------------------------------------


#: What opens a transaction; in ``pbem/web`` only :func:`pbem.web.common._opened` may.
OPENING = re.compile(
    r"\.(in_unit|in_reading|unit|reading|writing)\(|\bdb\.(read|write|open|statements)\(|engine\.connect\("
)


def test_only_the_requests_unit_opens_a_transaction_in_the_web_package():
    web = Path(__file__).resolve().parents[2] / "pbem" / "web"
    found = [
        (path.name, line.strip())
        for path in sorted(web.glob("*.py"))
        for line in path.read_text().splitlines()
        if OPENING.search(line)
    ]
    assert found == [("common.py", "with rt.unit() if writing else rt.reading() as unit:")]
