"""Gunboat: a game with ``press none`` keeps its players anonymous until it is over.

Seven players with names found nowhere else play Classical by email and on the web; every email
each one gets, every seat page (HTML and JSON), the status page, its JSON and history, and the
players' public pages are searched for any other player's name, address or page.  Once the game
is over (here: a draw), the status page names them.
"""

from __future__ import annotations

import re

from pbem.services.people.profiles import player_page
from pbem.services.play import games, house_rules
from tests.mail.support import Mailboxes, mail_world, text_of
from tests.play.test_draws import ADDRESSES
from tests.play.test_resign_rematch import seat_of, write
from tests.support.play import game_row
from tests.web.conftest import web_tokens

NAMES = ("Zenobia", "Quillon", "Wolfhart", "Yseult", "Xanthe", "Vortigern", "Ulfberht")
TABLE = tuple(f"{name} <{address}>" for name, address in zip(NAMES, ADDRESSES, strict=True))


def identities(address: str) -> dict[str, str]:
    """What would give away the player of ``address``: name, address, its local part, page handle."""
    name = NAMES[ADDRESSES.index(address)]
    return {"name": name, "address": address, "local": address.split("@")[0] + "@", "handle": name.lower()}


def leaks(text: str, readers: list[str]) -> list[str]:
    """The identities of players other than ``readers`` found in ``text`` (case-insensitive, as whole
    words: a random token of a header that happens to end in "ed" before an "@" is no address)."""
    return [
        f"{kind} of {address}: {value}"
        for address in ADDRESSES
        if address not in readers
        for kind, value in identities(address).items()
        if re.search(rf"(?<![\w.+=-]){re.escape(value)}", text, re.IGNORECASE)
    ]


def whole(message) -> str:
    """Every header and the text and HTML parts of an email."""
    headers = "\n".join(f"{key}: {value}" for key, value in message.items())
    parts = [part.get_content() for part in message.walk() if part.get_content_type() in ("text/plain", "text/html")]
    return headers + "\n" + text_of(message) + "\n".join(parts)


def test_press_none_hides_every_player_from_the_others_until_the_game_ends(sqlite_runtime, client):
    runtime = sqlite_runtime
    with mail_world(runtime) as (sink, port, pump):
        rules = house_rules.parse_rules(press="none")
        request = games.NewGame(engine="classical", players=list(TABLE), seed=5, deadline_seconds=86400)
        game_id = runtime.in_unit(games.create_game, request, rules)
        pump.drain()
        box = Mailboxes(sink)
        assert game_row(runtime, game_id).anonymous
        ann, bob, cy, *rest = ADDRESSES
        write(box, port, pump, ann, "status\nhelp")
        write(box, port, pump, bob, "draw")  # the table is told a draw is proposed
        write(box, port, pump, cy, "resign yes")  # and that a seat left
        write(box, port, pump, ann, "A Vie-Bud")
        cy_seat = seat_of(runtime, game_id, cy).seat
        assert any(f"{cy_seat} (Player" in text_of(m) for m in box(ann)), "the table reads of the seat, not the player"

        for address in ADDRESSES:
            assert box(address), address
            for message in box(address):
                assert not leaks(whole(message), [address]), (
                    address,
                    message["Subject"],
                    leaks(whole(message), [address]),
                )
                assert [a.addr_spec for a in message["To"].addresses] == [address]

        tokens = web_tokens(runtime, game_id)
        for seat in game_row(runtime, game_id).seats:
            reader = seat.account.email
            for path in (f"/play/{tokens[seat.seat]}", f"/play/{tokens[seat.seat]}.json"):
                page = client.get(path).get_data(as_text=True)
                assert not leaks(page, [reader]), (path, leaks(page, [reader]))
        public = ("", ".json", "?replay=1", "/feed.atom", "/export.json")
        for path in [f"/games/{game_id}{suffix}" for suffix in public] + ["/"]:
            response = client.get(path)
            assert response.status_code == 200, path
            assert not leaks(response.get_data(as_text=True), []), (path, leaks(response.get_data(as_text=True), []))
        for seat in game_row(runtime, game_id).seats:
            profile = runtime.in_reading(player_page, seat.account.handle)
            assert game_id not in [g["id"] for g in profile["games"]], "a player's page does not say where they sit"
            page = client.get(f"/players/{seat.account.handle}").get_data(as_text=True)
            assert f"/games/{game_id}" not in page

        for address in [ann, *rest]:
            write(box, port, pump, address, "draw")
        game = game_row(runtime, game_id)
        assert game.status == "finished" and not game.anonymous
        status = client.get(f"/games/{game_id}").get_data(as_text=True)
        assert all(name in status for name in NAMES), "once the game is over, the players are named"
