"""One parser for a new game: ``pbem game create`` and the admin's form, given the same input, create the
same game (the same defaults: 3 days a turn unless set) and refuse the same input in the same words."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbem.cli import main
from pbem.clock import utcnow
from pbem.models import Game
from pbem.services.play import new_game
from tests.support.play import game_row
from tests.web.test_admin import game_count, page_csrf

#: One game's input, by the parser's fields, as typed on the command line and in the form.
GAME = {
    "engine": "kidsprout",
    "name": "Same game",
    "players": ["Ann <ann@example.org>", "bob@example.org"],
    "bots": "1",
    "options": ["last_call_seconds=600"],
    "phase_deadlines": ["excuses=6h"],
    "reminders": "12h,1h",
    "press": "public",
    "press_identity": "anonymous",
    "late": "bot:2",
    "vacation_per_game": "5",
}
#: The command line's flag for each field (the form's names are the fields').
CLI_FLAGS = {
    "engine": "--engine", "name": "--name", "players": "--player", "bots": "--bot", "options": "--option",
    "phase_deadlines": "--phase-deadline", "reminders": "--reminders", "press": "--press",
    "press_identity": "--press-identity", "late": "--late", "vacation_per_game": "--vacation-per-game",
    "deadline": "--deadline", "open_seats": "--open-seats", "deadline_hour": "--deadline-hour",
    "timezone": "--timezone",
}  # fmt: skip


def by_cli(fields: dict) -> tuple[int | None, str]:
    args = ["game", "create"]
    for name, value in fields.items():
        for one in value if isinstance(value, list) else [value]:
            args += [CLI_FLAGS[name], one]
    result = CliRunner().invoke(main, [*args, "--json"])
    return (json.loads(result.output)["id"], "") if result.exit_code == 0 else (None, result.output)


def by_form(client, fields: dict) -> tuple[int | None, str]:
    data = {"csrf_token": page_csrf(client, "/admin/games/new"), "press": "full", "press_identity": "signed"}
    for name, value in fields.items():
        data[name] = "\n".join(value) if isinstance(value, list) else value
    if ":" in data.get("late", ""):
        data["late"], data["late_n"] = data["late"].split(":")
    response = client.post("/admin/games/new", data=data)
    if response.status_code == 303:
        return int(response.location.rsplit("/", 1)[1]), ""
    return None, response.get_data(as_text=True).replace("&#39;", "'")


def what_was_made(runtime, game_id: int) -> dict:
    game = game_row(runtime, game_id)
    seconds = (game.deadline - game.created_at).total_seconds() if game.deadline else None
    return {
        "name": game.name,
        "engine": game.engine,
        "variant": game.variant,
        "options": game.options,
        "status": game.status,
        "deadline_policy": game.deadline_policy,
        "deadline": round(seconds / 3600) if seconds else None,
        "house_rules": game.house_rules,
        "players": sorted(s.account.email for s in game.seats),
    }


def test_the_cli_and_the_admin_form_create_the_same_game_from_the_same_input(admin_client, sqlite_runtime):
    from_cli, _ = by_cli(GAME)
    from_form, _ = by_form(admin_client, GAME)
    made = what_was_made(sqlite_runtime, from_cli)
    assert made == what_was_made(sqlite_runtime, from_form)
    assert made["deadline"] == 72 and made["deadline_policy"]["default"] == 3 * 86400, "3 days unless set"
    assert made["house_rules"]["late"] == "bot:2" and made["options"]["last_call_seconds"] == 600
    assert len(made["players"]) == 3 and sum(p.endswith("@bot.invalid") for p in made["players"]) == 1


@pytest.mark.parametrize(
    ("change", "deadline"),
    [({"deadline": ""}, 72), ({"deadline": "12h"}, 12), ({"deadline": "none"}, None)],
)
def test_the_same_deadline_from_both(admin_client, sqlite_runtime, change, deadline):
    fields = {"engine": "rankchain", "players": ["a@x.org", "b@x.org"], **change}
    made = [what_was_made(sqlite_runtime, by(fields)[0]) for by in (by_cli, lambda f: by_form(admin_client, f))]
    assert made[0]["deadline"] == made[1]["deadline"] == deadline


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"bots": "13"}, "'13' is not a number of bot seats from 0 to 12"),
        ({"open_seats": "99"}, "'99' is not a number of open seats from 0 to 12"),
        ({"players": []}, "list the players, or leave seats open for players to take"),
        ({"deadline": "soon"}, "'soon' is not a duration"),
        ({"late": "bot:99"}, "N must be from 0 to 20"),
        ({"players": ["a@x.org", "a@x.org"]}, "each player needs a different address"),
        ({"bots": "5"}, "takes 2 to 6 players, not 7"),
        ({"deadline_hour": "24"}, "'24' is not an hour of the day"),
        ({"deadline_hour": "20", "timezone": "Paris"}, "'Paris' is not a time zone name"),
        ({"timezone": "Europe/Paris"}, "give the hour too"),
        ({"deadline_hour": "20", "deadline": "6h"}, "deadlines move to the hour only in phases of a day or more"),
    ],
)
def test_both_refuse_the_same_input_in_the_same_words(admin_client, sqlite_runtime, change, words):
    fields = {"engine": "rankchain", "players": ["a@x.org", "b@x.org"], **change}
    before = game_count(sqlite_runtime)
    for by in (by_cli, lambda f: by_form(admin_client, f)):
        game_id, said = by(fields)
        assert game_id is None and words in said, said
    assert game_count(sqlite_runtime) == before


def test_the_same_deadline_hour_from_both(admin_client, sqlite_runtime):
    """``--deadline-hour 20 --timezone Europe/Paris`` and the form's two boxes: deadlines at 20:00 in Paris."""
    fields = {"engine": "rankchain", "players": ["a@x.org", "b@x.org"], "deadline": "2d", "deadline_hour": "20",
              "timezone": "Europe/Paris"}  # fmt: skip
    ids = [by_cli(fields)[0], by_form(admin_client, fields)[0]]
    games = [game_row(sqlite_runtime, game_id) for game_id in ids]
    assert [g.deadline_policy["at"] for g in games] == [{"hour": 20, "minute": 0, "zone": "Europe/Paris"}] * 2
    for game in games:
        paris = game.deadline.replace(tzinfo=dt.UTC).astimezone(ZoneInfo("Europe/Paris"))
        assert (paris.hour, paris.minute) == (20, 0)
        assert dt.timedelta(hours=45) <= game.deadline - game.created_at < dt.timedelta(hours=69)


def test_the_parser_reads_text_as_typed_and_names_each_problems_field():
    parsed = new_game.read({"engine": ["sprawl"], "players": ["a@x.org, b@x.org", " c@x.org "], "reminders": ["none"]})
    assert parsed.request.players == ["a@x.org", "b@x.org", "c@x.org"] and parsed.request.reminders == []
    assert parsed.default_deadline and parsed.deadline == "3d" and parsed.request.deadline_seconds == 3 * 86400
    with pytest.raises(new_game.Problems) as refused:
        new_game.read({"engine": [""], "deadline": ["1d", "none"], "seed": ["x"], "colour": ["red"]})
    assert refused.value.by_field == {"colour": ["not a field of a new game"]}
    with pytest.raises(new_game.Problems) as refused:
        new_game.read({"engine": [""], "deadline": ["1d", "none"], "seed": ["x"], "vacation_per_year": ["-1"]})
    assert set(refused.value.by_field) == {"engine", "deadline", "seed", "players", "vacation_per_year"}


def test_an_open_game_from_both_waits_for_its_seats(admin_client, sqlite_runtime):
    fields = {"engine": "rankchain", "players": ["a@x.org"], "open_seats": "2"}
    ids = [by_cli(fields)[0], by_form(admin_client, fields)[0]]
    with sqlite_runtime.db.read() as session:
        games = session.scalars(select(Game).where(Game.id.in_(ids))).all()
    assert [(g.status, g.seats_wanted) for g in games] == [("open", 3), ("open", 3)]
    assert all(g.created_at > utcnow() - dt.timedelta(minutes=5) for g in games)


def test_the_form_names_each_games_kinds_of_phase(admin_client):
    page = admin_client.get("/admin/games/new").get_data(as_text=True)
    assert "Classical: movement, retreat, adjustment" in page and "KidSprout Jumboree: coins, excuses, choose" in page
    assert 'id="deadline_hour"' in page and 'id="timezone"' in page and '<option value="Europe/Paris">' in page
