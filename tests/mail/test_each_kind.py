"""What each kind of email says first, how it is signed and threaded, and that its ids are new.

* The thread root of a seat has a random part: a fresh install on the same domain
  (same settings, same seed, same game and seat numbers) uses no Message-ID again.
* ``From:`` names the game (``"Sprawl #12" <pbem@...>``).
* Observer updates of a game make one conversation.
* The reason for an email (a vacation, a pause, a reminder) is its first line after the turn.
* The sign-in and join emails carry real links and say why they came, not how command mode works.
"""

from __future__ import annotations

import datetime as dt
import re
from email import message_from_bytes
from email.utils import getaddresses

from sqlalchemy import select, update

from pbem.clock import utcnow
from pbem.models import Game, Observer
from pbem.services.mailout import observers, outbox, signin
from pbem.services.play import deadlines, games, lobby, vacations
from tests.conftest import build_runtime
from tests.mail.helpers import deliver, mail
from tests.mail.helpers import outbox as rows
from tests.support.play import PLAYERS, game_row, next_turn, start


def sent(row):
    return message_from_bytes(outbox.email_bytes(row))


def test_a_reinstall_on_the_same_domain_uses_no_message_id_again(tmp_path):
    from engines.rng import Rng

    ids = []
    for install in ("first", "second"):
        runtime = build_runtime(tmp_path / install, f"sqlite:///{tmp_path / install}.sqlite3")
        game_id = start(runtime)  # the same seed, game 1, seats 1-4 both times
        next_turn(runtime, game_id, Rng(1))
        ids.append({row.message_id for row in rows(runtime)})
        assert game_id == 1
    assert ids[0] and ids[1] and not ids[0] & ids[1]
    roots = [i for i in ids[1] if "-seat-" in i]
    assert len(roots) == 4 and all(len(i.split("-seat-")[1].split("@")[0].split("-")[1]) == 16 for i in roots)


def test_every_game_email_is_signed_with_the_game_s_name(sqlite_runtime):
    game_id = start(sqlite_runtime, name='Sprawl "by the lake" #12')
    for row in rows(sqlite_runtime, game_id=game_id):
        [(name, address)] = getaddresses([sent(row)["From"]])
        assert (name, address) == ('Sprawl "by the lake" #12', "pbem@pbem.test")
    sqlite_runtime.in_unit(signin.request_link, "ann@example.org", signin.new_binding())
    [link] = rows(sqlite_runtime, kind="signin")
    assert getaddresses([sent(link)["From"]]) == [("pbem", "pbem@pbem.test")]


def test_an_observer_s_updates_make_one_conversation(sqlite_runtime):
    from engines.rng import Rng

    game_id = start(sqlite_runtime, deadline_seconds=3600)
    assert sqlite_runtime.in_unit(observers.subscribe, game_id, "oz@example.net").ok
    with sqlite_runtime.db.read() as session:
        token = session.scalars(select(Observer.token)).one()
    assert sqlite_runtime.in_unit(observers.confirm, token).ok
    rng = Rng(4)
    for _ in range(3):
        next_turn(sqlite_runtime, game_id, rng)
    [confirm] = rows(sqlite_runtime, kind="observer_confirm")
    updates = rows(sqlite_runtime, kind="observer_update")
    assert len(updates) >= 3 and len({row.subject for row in updates}) == 1
    for row in updates:
        headers = sent(row)
        assert headers["In-Reply-To"] == confirm.message_id and headers["References"] == confirm.message_id
        assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert row.body_text.startswith("Turn ")


def first_lines(row, count: int = 2) -> list[str]:
    return [line for line in row.body_text.splitlines() if line.strip()][:count]


def test_the_reason_for_an_email_comes_first(sqlite_runtime):
    game_id = start(sqlite_runtime, deadline_seconds=3600)
    seats = game_row(sqlite_runtime, game_id).seats
    assert sqlite_runtime.in_unit(vacations.declare_vacation, game_id, seats[0].id, 2).ok
    for row in rows(sqlite_runtime, kind="vacation"):
        turn, reason = first_lines(row)
        assert turn.startswith("Turn ") and "is on vacation until" in reason
        action = row.body_html.split("data-action", 1)[1]
        assert action.index("is on vacation until") < action.index("Play one Sprout")
    sqlite_runtime.in_unit(games.pause, game_id)
    assert all("paused" in first_lines(row)[1] for row in rows(sqlite_runtime, kind="admin"))
    sqlite_runtime.in_unit(games.resume, game_id)
    with sqlite_runtime.db.write() as session:
        soon = utcnow() + dt.timedelta(minutes=30)
        session.execute(update(Game).values(deadline=soon, next_reminder=utcnow() - dt.timedelta(seconds=1)))
    assert sqlite_runtime.in_unit(deadlines.send_due_reminders, game_id)
    assert all(first_lines(row)[1].startswith("Reminder:") for row in rows(sqlite_runtime, kind="reminder"))


def test_the_game_over_email_says_once_who_missed_the_last_deadline(sqlite_runtime):
    options = {"max_rounds": 20}  # every deadline passes: the game ends in a draw after round 20
    game_id = start(sqlite_runtime, "rankchain", PLAYERS[:3], options=options, deadline_seconds=3600)
    for _ in range(200):
        if game_row(sqlite_runtime, game_id).status == "finished":
            break
        with sqlite_runtime.db.write() as session:
            session.execute(update(Game).values(deadline=utcnow() - dt.timedelta(seconds=1)))
        assert sqlite_runtime.in_unit(deadlines.apply_deadline, game_id)
    over = rows(sqlite_runtime, kind="game_over")
    assert over and game_row(sqlite_runtime, game_id).status == "finished"
    late = [row for row in over if "missed the deadline" in row.body_text]
    assert late, "the last seat to miss the deadline is told"
    for row in over:
        assert first_lines(row)[1].startswith("Game over.")
        assert "Missed the deadline:" not in row.body_text and "DEADLINE PASSED" not in row.body_text
        told = [line.strip() for line in row.body_text.split("Final standings")[0].splitlines() if line.strip()]
        assert len(told) == len(set(told)), "nothing said twice at the top"


def test_the_sign_in_email_is_a_link_with_its_own_footer(sqlite_runtime):
    start(sqlite_runtime)
    sqlite_runtime.in_unit(signin.request_link, "ann@example.org", signin.new_binding())
    [row] = rows(sqlite_runtime, kind="signin")
    url = next(line for line in row.body_text.splitlines() if "/signin/" in line).strip()
    assert f'<a href="{url}"' in row.body_html and ">Sign in to pbem.test</a>" in row.body_html
    for part in (row.body_text, row.body_html):
        assert "someone asked" in part and "status GAME" not in part and "observe GAME" not in part
        code = r"type this code on the sign-in page of that\s+browser:\s+(<[^>]*>)?[A-Z0-9]{4}-[A-Z0-9]{4}"
        assert re.search(code, part)


def test_the_join_email_links_the_game_and_says_why_it_came(sqlite_runtime):
    game_id = sqlite_runtime.in_unit(
        lobby.create_open_game, games.NewGame(engine="kidsprout", players=[], open_seats=3)
    )
    assert deliver(sqlite_runtime, mail("pbem@pbem.test", "Nell <nell@example.net>", f"join {game_id}"))[0] == "done"
    [row] = rows(sqlite_runtime, kind="join_confirm")
    assert f'href="http://pbem.test/games/{game_id}"' in row.body_html and "/rules/kidsprout" in row.body_html
    for part in (row.body_text, row.body_html):
        assert "reply to this email" in part and "to join" in part and "observe GAME" not in part
