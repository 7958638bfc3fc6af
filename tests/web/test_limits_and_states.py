"""Out-of-range input is a clean 404 or a form error in words; seat states, clocks, history
numbers, admin notes and player names read right; the console's lists are bounded."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from sqlalchemy import select

from engines import get_engine
from pbem.app import create_app
from pbem.config import ConfigError, load_settings
from pbem.models import Game, InboundMessage
from pbem.services.ops.console import dashboard
from pbem.services.play import games, orders
from pbem.web import admin as admin_views
from tests.support.play import game_row, play_some, seat_ids, start
from tests.web.conftest import csrf_of, fresh_csrf, login

HUGE = "99999999999999999999"


def page_csrf(client, path: str) -> str:
    return csrf_of(client.get(path).get_data(as_text=True))


def act(client, game_id, action, **data):
    return client.post(
        f"/admin/games/{game_id}/{action}", data={"csrf_token": page_csrf(client, f"/admin/games/{game_id}"), **data}
    )


def assert_clean(response, status: int = 404) -> str:
    assert response.status_code == status
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and "Something went wrong" not in text
    return text


# -- ids, pages and durations out of range ----------------------------------------------------


def test_huge_ids_and_pages_are_clean_404s(client, admin_client, sqlite_runtime, game_id):
    for path in (f"/games/{HUGE}", f"/games/{HUGE}.json", "/games/2147483648", f"/games/{HUGE}/feed.atom",
                 f"/games/{HUGE}/export.json", f"/games/{game_id}?page={HUGE}", f"/games/{game_id}?page=2",
                 f"/games/{game_id}?page=x", f"/play/{HUGE}"):  # fmt: skip
        assert_clean(client.get(path))
    assert_clean(admin_client.get(f"/admin/games/{HUGE}"))
    assert_clean(admin_client.get(f"/admin/games/{game_id}?log={HUGE}"))
    assert_clean(admin_client.get(f"/admin/games/{game_id}?log=2"))
    csrf = page_csrf(admin_client, "/admin/")
    assert_clean(admin_client.post(f"/admin/games/{HUGE}/pause", data={"csrf_token": csrf}))
    assert_clean(admin_client.post("/admin/games/2147483648/pause", data={"csrf_token": csrf}))
    assert_clean(admin_client.post(f"/dev/mail/reply/{HUGE}", data={"csrf_token": csrf, "body": "x"}))
    assert game_row(sqlite_runtime, game_id).status == "active"


@pytest.mark.parametrize(
    ("by", "message"),
    [(f"{HUGE}d", "is too long"), ("400d", "at most 365 days"), ("53w", "at most 365 days"), ("0s", "not a positive")],
)
def test_huge_extensions_are_form_errors(admin_client, sqlite_runtime, by, message):
    game_id = start(sqlite_runtime, deadline_seconds=3600)
    before = game_row(sqlite_runtime, game_id).deadline
    text = assert_clean(act(admin_client, game_id, "extend", by=by), 400)
    assert message in text and f'value="{by}"' in text
    assert game_row(sqlite_runtime, game_id).deadline == before


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"deadline": f"{HUGE}d"}, "is too long"),
        ({"deadline": "366d"}, "at most 365 days"),
        ({"reminders": "1h, 400d"}, "at most 365 days"),
        ({"phase_deadlines": "coins=9999999999w"}, "is too long"),
        ({"vacation_per_game": HUGE}, "is not a whole number of days"),
        ({"vacation_per_year": "400"}, "from 0 to 366"),
        ({"late": "grace", "late_n": "0"}, "N must be from 1"),
        ({"late": "bot", "late_n": "x"}, "is not one of"),
        ({"press": "loud"}, "is not one of: full, public, none"),
        ({"press_identity": "masked"}, "is not one of: signed, anonymous"),
    ],
)
def test_new_game_form_errors_in_words(admin_client, sqlite_runtime, fields, message):
    data = {"csrf_token": page_csrf(admin_client, "/admin/games/new"), "engine": "kidsprout",
            "players": "a@x.org\nb@x.org\nc@x.org", **fields}  # fmt: skip
    text = assert_clean(admin_client.post("/admin/games/new", data=data), 400)
    assert "The game was not created" in text and message in text.replace("&#39;", "'")
    with sqlite_runtime.db.read() as session:
        assert session.scalars(select(Game)).first() is None


def test_any_value_error_of_a_service_is_a_form_error(admin_client, sqlite_runtime, monkeypatch):
    game_id = start(sqlite_runtime, deadline_seconds=3600)

    def refuse(*args, **kwargs):
        raise ValueError("the deadline cannot move that far")

    monkeypatch.setattr(games, "extend_deadline", refuse)
    assert "the deadline cannot move that far" in assert_clean(act(admin_client, game_id, "extend", by="1d"), 400)

    def overflow(*args, **kwargs):
        raise OverflowError("date value out of range")

    monkeypatch.setattr(games, "create_game", overflow)
    data = {"csrf_token": page_csrf(admin_client, "/admin/games/new"), "engine": "kidsprout",
            "players": "a@x.org\nb@x.org\nc@x.org"}  # fmt: skip
    assert "date value out of range" in assert_clean(admin_client.post("/admin/games/new", data=data), 400)


def test_house_rules_from_the_create_form(admin_client, sqlite_runtime):
    html = admin_client.get("/admin/games/new").get_data(as_text=True)
    for name in (
        "press",
        "press_identity",
        "late",
        "late_n",
        "drop_after",
        "draw_votes",
        "vacation_per_game",
        "vacation_per_year",
    ):
        assert f'name="{name}"' in html
    data = {"csrf_token": csrf_of(html), "engine": "kidsprout", "players": "a@x.org\nb@x.org\nc@x.org",
            "press": "public", "press_identity": "anonymous", "late": "bot", "late_n": "2",
            "vacation_per_game": "5", "vacation_per_year": "10", "draw_votes": "public"}  # fmt: skip
    response = admin_client.post("/admin/games/new", data=data)
    assert response.status_code == 303
    game = game_row(sqlite_runtime, int(response.location.rsplit("/", 1)[1]))
    assert game.house_rules == {"press": "public", "press_signed": False, "late": "bot:2", "drop_after": 0,
                                "draw_votes": "public", "vacation_days_per_game": 5,
                                "vacation_days_per_year": 10}  # fmt: skip


# -- who has acted ---------------------------------------------------------------------------------


def flags(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-seat="([^"]+)" data-submitted="([^"]+)"', html))


def json_flags(client, game_id: int) -> dict[str, object]:
    return {s["name"]: s["submitted"] for s in client.get(f"/games/{game_id}.json").get_json()["seats"]}


def test_turn_by_turn_seats_not_on_move_are_neither_waiting_nor_submitted(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org", "c@x.org"])
    play_some(sqlite_runtime, game_id, seed=4, count=3)
    [mover] = get_engine("rankchain").to_act(game_row(sqlite_runtime, game_id).state)
    expected = {seat: (False if seat == mover else None) for seat in seat_ids(sqlite_runtime, game_id)}
    assert json_flags(client, game_id) == expected
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert flags(html) == {seat: ("no" if seat == mover else "none") for seat in expected}
    assert "✓ submitted" not in html and html.count("not asked to act now") == 2


def test_sealed_orders_count_as_submitted_and_a_pause_shows_no_one_waiting(client, sqlite_runtime, game_id):
    ids = seat_ids(sqlite_runtime, game_id)
    sqlite_runtime.in_unit(orders.submit, game_id, ids["Moons"], ["play 3"], source="web")
    assert json_flags(client, game_id) == {"Suns": False, "Moons": True, "Crowns": False, "Arms": False}
    sqlite_runtime.in_unit(games.pause, game_id)
    assert json_flags(client, game_id) == {"Suns": None, "Moons": True, "Crowns": None, "Arms": None}
    assert flags(client.get(f"/games/{game_id}").get_data(as_text=True)) == {
        "Suns": "none", "Moons": "yes", "Crowns": "none", "Arms": "none"}  # fmt: skip
    sqlite_runtime.in_unit(games.resume, game_id)
    sqlite_runtime.in_unit(games.cancel, game_id)
    assert set(json_flags(client, game_id).values()) == {None}


def test_a_new_turn_clears_the_submitted_flags(client, sqlite_runtime, game_id):
    ids = seat_ids(sqlite_runtime, game_id)
    for seat, coin in zip(ids, ("2", "3", "4", "5"), strict=True):
        sqlite_runtime.in_unit(orders.submit, game_id, ids[seat], [f"play {coin}"], source="web")
    data = client.get(f"/games/{game_id}.json").get_json()
    assert data["turn"] == 2 and data["to_act"], "the coins were revealed and a new turn asks someone"
    assert json_flags(client, game_id) == {seat: (False if seat in data["to_act"] else None) for seat in ids}


# -- the paused clock, history numbers, admin notes --------------------------------------------------


def test_the_paused_clock_reads_in_words(client, admin_client, sqlite_runtime):
    game_id = start(sqlite_runtime, deadline_seconds=3 * 86400)
    sqlite_runtime.in_unit(games.pause, game_id)
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert re.search(r"(2 days 23 hours 59 minutes|3 days) will remain before the deadline", html)
    assert " min will remain" not in html
    admin = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    assert re.search(r"Paused with (2 days 23 hours 59 minutes|3 days) left", admin)


def history_numbers(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<li value="(\d+)" id="log-\1">', html)]


def test_history_is_numbered_by_log_sequence_on_every_page(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org"])
    play_some(sqlite_runtime, game_id, seed=2, count=30)
    first = history_numbers(client.get(f"/games/{game_id}").get_data(as_text=True))
    second = history_numbers(client.get(f"/games/{game_id}?page=2").get_data(as_text=True))
    assert first == list(range(30, 5, -1)) and second == list(range(5, 0, -1))
    assert '<ol class="history" reversed>' not in client.get(f"/games/{game_id}?page=2").get_data(as_text=True)


def test_admin_actions_read_as_sentences_without_their_notes(client, sqlite_runtime, game_id):
    sqlite_runtime.in_unit(games.pause, game_id, "ask ops@example.org")
    sqlite_runtime.in_unit(games.resume, game_id)
    sqlite_runtime.in_unit(games.replace_player, game_id, "Suns", "New <new@example.org>")
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    history = html.split('id="history-h"')[1]
    for sentence in ("Paused", "Resumed", "A seat was handed to a new player"):
        assert f"{sentence} by the admin." in history
    assert "ops@example.org" not in html and "new@example.org" not in html and "admin action" not in html


def test_cancel_needs_its_confirmation_box(admin_client, sqlite_runtime, game_id):
    html = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    assert 'name="confirm" value="yes" required' in html
    text = assert_clean(act(admin_client, game_id, "cancel", reason="bored"), 400)
    assert "tick the box to confirm" in text and 'value="bored"' in text
    assert game_row(sqlite_runtime, game_id).status == "active"
    assert act(admin_client, game_id, "cancel", reason="bored", confirm="yes").status_code == 303
    assert game_row(sqlite_runtime, game_id).status == "cancelled"


# -- names on public pages ----------------------------------------------------------------------------


def test_players_without_a_name_are_shown_by_their_local_part_in_public(client, sqlite_runtime):
    game_id = start(sqlite_runtime, players=["zed.local@example.org", "Bee <bee@example.org>", "kay@example.org"])
    named = {s.seat: s.account.name for s in game_row(sqlite_runtime, game_id).seats}
    local = {s.seat: s.account.email.split("@")[0] for s in game_row(sqlite_runtime, game_id).seats}
    expected = {seat: named[seat] or local[seat] for seat in named}
    data = client.get(f"/games/{game_id}.json").get_json()
    assert {s["name"]: s["player"] for s in data["seats"]} == expected
    seats_table = client.get(f"/games/{game_id}").get_data(as_text=True).split("<caption>Seats</caption>")[1]
    seats_table = seats_table.split("</table>")[0]
    index = client.get("/").get_data(as_text=True)
    for text in (seats_table, index, str(data["seats"])):
        assert "zed.local" in text and "kay" in text and "@" not in text and "Player " not in text
    assert "Bee" in index


# -- the console's lists ---------------------------------------------------------------------------


def test_dashboard_lists_dropped_mail_and_bounds_the_games(admin_client, sqlite_runtime):
    first = start(sqlite_runtime)
    second = start(sqlite_runtime, players=["e@x.org", "f@x.org", "g@x.org"])
    third = start(sqlite_runtime, players=["h@x.org", "i@x.org", "j@x.org"])
    sqlite_runtime.in_unit(games.cancel, third)
    with sqlite_runtime.db.write() as session:
        session.add(InboundMessage(message_id="<b@x>", raw=b"Subject: Undelivered Mail\r\n\r\n", status="dropped",
                                   verdict="delivery report", sender="MAILER-DAEMON@x.org"))  # fmt: skip
    html = admin_client.get("/admin/").get_data(as_text=True)
    dropped = html.split('id="dropped-h"')[1].split('id="outbox-h"')[0]
    assert "Undelivered Mail" in dropped and "delivery report" in dropped
    refused = html.split('id="inbound-h"')[1].split('id="dropped-h"')[0]
    assert "Undelivered Mail" not in refused
    data = sqlite_runtime.in_reading(dashboard, games_limit=2)
    assert [g["id"] for g in data.games] == [second, first] and data.games_total == 3  # open games first


def test_the_admin_log_is_paged(admin_client, sqlite_runtime, monkeypatch):
    monkeypatch.setattr(admin_views, "LOG_PAGE", 4)
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org"])
    play_some(sqlite_runtime, game_id, seed=6, count=10)
    first = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    assert "Game log (10 entries" in first and "page 1 of 3" in first and "?log=2#log" in first
    seqs = lambda html: [int(n) for n in re.findall(r'<td data-label="#">(\d+)</td>', html)]  # noqa: E731
    assert seqs(first) == [10, 9, 8, 7]
    last = admin_client.get(f"/admin/games/{game_id}?log=3").get_data(as_text=True)
    assert seqs(last) == [2, 1] and "page 3 of 3" in last
    assert_clean(admin_client.get(f"/admin/games/{game_id}?log=4"))


# -- proxies --------------------------------------------------------------------------------------------


def test_trusted_proxies_setting(tmp_path, monkeypatch):
    for given, hops in (("", 0), ("2", 2)):
        monkeypatch.setenv("PBEM_TRUSTED_PROXIES", given)
        assert load_settings(instance=tmp_path).trusted_proxies == hops
    for bad in ("-1", "many", "9"):
        monkeypatch.setenv("PBEM_TRUSTED_PROXIES", bad)
        with pytest.raises(ConfigError, match="PBEM_TRUSTED_PROXIES"):
            load_settings(instance=tmp_path)


@pytest.mark.slow  # forty-two refused log-ins, each checked against a real (scrypt) hash
def test_forwarded_addresses_count_only_behind_trusted_proxies(sqlite_runtime, admin_user, monkeypatch):
    def fail_from(client, address: str, times: int) -> int:
        status = 0
        for index in range(times):
            data = {"csrf_token": fresh_csrf(client), "username": f"guess{index}", "password": "no"}
            status = client.post("/admin/login", headers={"X-Forwarded-For": address}, data=data).status_code
        return status

    # Behind a trusted proxy another client is not throttled; without one, a forged header changes nothing.
    for proxies, other_status in ((1, 401), (0, 429)):
        sqlite_runtime.settings = sqlite_runtime.settings.with_(trusted_proxies=proxies)
        client = create_app(runtime=sqlite_runtime).test_client()
        assert fail_from(client, "198.51.100.1", 21) == 429
        data = {"csrf_token": fresh_csrf(client), "username": "root", "password": "no"}
        other = client.post("/admin/login", headers={"X-Forwarded-For": "198.51.100.2"}, data=data)
        assert other.status_code == other_status, f"trusted proxies: {proxies}"


def test_the_dev_mailbox_behind_a_proxy_needs_an_admin(app, sqlite_runtime, admin_user, game_id):
    client = app.test_client()
    assert client.get("/dev/mail/").status_code == 200  # straight from loopback
    for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded"):
        assert client.get("/dev/mail/", headers={header: "127.0.0.1"}).status_code == 404, header
    assert login(client).status_code == 303
    assert client.get("/dev/mail/", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 200


# -- boards that do not rely on colour alone ------------------------------------------------------------


def svg_texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [(t.text or "") for t in root.iter("{http://www.w3.org/2000/svg}text")]


def board_svg(client, game_id: int) -> str:
    """The drawn board of the public status page."""
    return re.search(r"<svg.*?</svg>", client.get(f"/games/{game_id}").get_data(as_text=True), re.S).group(0)


def test_rankchain_pawns_carry_their_seats_initial(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="rankchain", players=["a@x.org", "b@x.org", "c@x.org"])
    play_some(sqlite_runtime, game_id, seed=8, count=3)
    svg = board_svg(client, game_id)
    for seat in ("Red", "Blue", "Green"):
        pawn = re.search(rf"<circle [^>]*><title>{seat}</title></circle>\n<text [^>]*>([A-Z])</text>", svg)
        assert pawn and pawn.group(1) == seat[0], seat
    assert "R" in svg_texts(svg) and "B" in svg_texts(svg) and "G" in svg_texts(svg)


def test_sprawl_towers_show_owner_letters_and_solid_digits(client, sqlite_runtime):
    game_id = start(sqlite_runtime, engine="sprawl", players=["a@x.org", "b@x.org", "c@x.org"])
    play_some(sqlite_runtime, game_id, seed=9, count=6)
    svg = board_svg(client, game_id)
    assert 'stroke="#000" stroke-width="0.6"' not in svg  # no hollow, outlined digits
    digits = re.findall(r'fill="#111">([123]+)</text>', svg)
    letters = re.findall(r'fill="#111">([RYGBPOKW]+)</text>', svg)
    assert digits and letters and len(letters) >= len(digits)
    assert "Letters: each piece&#39;s owner" in svg or "Letters: each piece's owner" in svg
