"""Clean endings and changes: a cancelled game's final email reads as final; a replaced player
is told and the board names the newcomer, who gets an example for the phase the game is in; a
removed player's seat goes to the game's late-seat rule; a player's address moves across all
their games with a confirmation to both addresses."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from engines import get_engine
from engines.rng import Rng
from pbem.cli import main
from pbem.models import Account, LogEntry, RatingChange
from pbem.seating import Left, Occupant, PlayedBy, who_plays
from pbem.services import ServiceError
from pbem.services.play import addresses, bot_turns, games, orders, removal
from pbem.services.play.house_rules import parse_rules
from pbem.services.play.verify import verify
from tests.play.helpers import outbox
from tests.support.play import PLAYERS, game_row, legal_move, play_some, seat_ids, start

ENGINES = {"kidsprout": 3, "rankchain": 2, "sneak": 4, "sprawl": 3}


emails = outbox


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_the_cancel_email_reads_as_final(sqlite_runtime, engine):
    runtime = sqlite_runtime
    game_id = start(runtime, engine=engine, players=PLAYERS[: ENGINES[engine]], deadline_seconds=3600)
    play_some(runtime, game_id, seed=3, count=2)
    runtime.in_unit(games.cancel, game_id, "two players moved away")
    final = emails(runtime, kind="cancelled")
    assert len(final) == ENGINES[engine]
    for email in final:
        for body in (email.body_text, email.body_html):
            assert "The game is over: the admin cancelled it" in body
            assert "two players moved away" in body
            for stale in ("to act", "to play", "Reply to this email with your orders", "Example reply", "notify every"):
                assert stale not in body, (engine, stale, body[:3000])
        assert "This game is over: a reply to this email is no longer taken as orders." in email.body_text
    assert runtime.in_reading(verify, game_id).ok


def test_cancel_on_the_command_line_asks_first(sqlite_runtime):
    game_id = start(sqlite_runtime)
    refused = CliRunner().invoke(main, ["game", "cancel", str(game_id)], input="n\n")
    assert refused.exit_code == 1 and "Cancel game" in refused.output and "Aborted" in refused.output
    assert game_row(sqlite_runtime, game_id).status == "active"
    done = CliRunner().invoke(main, ["game", "cancel", str(game_id), "--reason", "enough"], input="y\n")
    assert done.exit_code == 0 and "final email" in done.output
    assert game_row(sqlite_runtime, game_id).status == "cancelled"
    again = CliRunner().invoke(main, ["game", "cancel", str(game_id)])
    assert again.exit_code == 1 and "it is cancelled" in again.output


def excuse_phase(runtime, game_id: int) -> None:
    """Play until KidSprout's excuse phase (sealed coins revealed, excuses open)."""
    rng = Rng(11)
    for serial in range(40):
        game = game_row(runtime, game_id)
        if game.state["phase"] == "excuses":
            return
        seat = sorted(get_engine("kidsprout").to_act(game.state))[0]
        text = "play " + legal_move(runtime, game_id, seat, rng, serial).split()[1]
        runtime.in_unit(orders.submit, game_id, seat_ids(runtime, game_id)[seat], [text], source="web")
    raise AssertionError("no excuse phase reached")


def test_replace_tells_the_old_player_relabels_the_board_and_shows_a_fitting_example(runtime):
    game_id = start(runtime, deadline_seconds=3600)
    excuse_phase(runtime, game_id)
    seat = next(s for s in game_row(runtime, game_id).seats if s.account.email == "bob@example.org")
    runtime.in_unit(games.replace_player, game_id, seat.seat, "Eve <eve@example.org>")
    game = game_row(runtime, game_id)
    assert game.state["players"][seat.seat] == "Eve" and game.players[seat.position] == "Bob", "set-up kept"
    with runtime.db.read() as session:
        [entry] = session.scalars(select(LogEntry).where(LogEntry.game_id == game_id, LogEntry.kind == "relabel"))
    assert (entry.seat, entry.text) == (seat.seat, "Eve")
    assert "Bob" not in game.state["players"].values()

    [told] = emails(runtime, recipient="bob@example.org", kind="replaced")
    assert f"You no longer play {seat.seat}" in told.body_text and "Eve plays it from now on" in told.body_text
    assert "/play/" not in told.body_text, "the departing player gets no link to the seat"

    [welcome] = emails(runtime, recipient="eve@example.org")
    assert welcome.kind == "takeover" and "You now play" in welcome.body_text
    assert "to seal your 3" not in welcome.body_text and "play 3" not in welcome.body_text
    example = welcome.body_text.split("Example reply: ", 1)[1].splitlines()[0]
    assert example.split()[0] in ("excuse", "pass", "gone"), example
    assert "Eve" in welcome.body_text.split("Seat   Player", 1)[1][:400], "the board names the newcomer"

    others = [e for e in emails(runtime, kind="admin") if "takes over from" in e.body_text]
    assert {e.recipient for e in others} == {"ann@example.org", "cy@example.org", "di@example.org"}
    assert all(f"{seat.seat} (Eve) takes over from {seat.seat} (Bob)" in e.body_text for e in others)
    assert runtime.in_reading(verify, game_id).ok, "replay from the relabelled set-up gives the stored game"


def play_humans(runtime, game_id: int, seed: int, limit: int = 3000) -> None:
    """Random legal orders for the seats people play; the worker's task plays the rest."""
    rng = Rng(seed)
    for serial in range(limit):
        game = game_row(runtime, game_id)
        if game.status != "active":
            return
        engine = get_engine(game.engine)
        humans = sorted(
            s.seat
            for s in game.seats
            if s.seat in engine.to_act(game.state) and who_plays(game.house_rules, s).has_player
        )
        if not humans:
            assert runtime.in_unit(bot_turns.play, game_id) == 1, "the table waits for a seat nobody plays"
            continue
        seat = rng.choice(humans)
        text = legal_move(runtime, game_id, seat, rng, serial)
        runtime.in_unit(orders.submit, game_id, seat_ids(runtime, game_id)[seat], [text], source="web")
    raise AssertionError("the game did not finish")


def test_a_removed_players_seat_gets_the_defaults_and_the_game_never_waits_for_nobody(runtime):
    game_id = start(runtime)  # no deadline: a vacant seat must not stall it
    runtime.in_unit(games.pause, game_id)
    runtime.in_unit(games.resume, game_id)
    seat = game_row(runtime, game_id).seats[1]
    last_before = max(e.id for e in emails(runtime))
    plays = runtime.in_unit(removal.remove_player, game_id, seat.seat, "moved away")
    assert plays == "nobody (the game's defaults)"
    game = game_row(runtime, game_id)
    after = next(s for s in game.seats if s.seat == seat.seat)
    assert who_plays(game.house_rules, after) == Occupant(PlayedBy.DEFAULTS, Left.REMOVED)
    assert after.account_id == seat.account_id, "the seat keeps who played it"
    assert after.reply_token != seat.reply_token and after.web_token != seat.web_token, "their links stop"
    [told] = emails(runtime, recipient=seat.account.email, kind="replaced")
    assert "The admin removed you from the game (moved away)" in told.body_text
    with pytest.raises(ServiceError, match="has no player to remove"):
        runtime.in_unit(removal.remove_player, game_id, seat.seat)

    play_humans(runtime, game_id, seed=5)
    game = game_row(runtime, game_id)
    assert game.status == "finished" and runtime.in_reading(verify, game_id).ok
    with runtime.db.read() as session:
        sources = set(session.scalars(select(LogEntry.source).where(LogEntry.game_id == game_id)))
        assert "defaults" in sources
        changes = {c.account_id: c.after - c.before for c in session.scalars(select(RatingChange))}
        assert changes[seat.account_id] == min(changes.values()), "the removed seat is rated last"
    later = [e for e in emails(runtime, seat_id=seat.id) if e.id > last_before]
    assert later and {e.status for e in later} == {"suppressed"}, "the removed player gets nothing more of the seat"


def test_a_removed_player_under_the_bot_rule_is_played_by_the_bot_at_once(sqlite_runtime):
    runtime = sqlite_runtime
    game_id = runtime.in_unit(
        games.create_game, games.NewGame(engine="kidsprout", players=PLAYERS[:3], seed=7), parse_rules(late="bot:2")
    )
    seat = sorted(get_engine("kidsprout").to_act(game_row(runtime, game_id).state))[0]
    assert runtime.in_unit(removal.remove_player, game_id, seat) == "the bot"
    game = game_row(runtime, game_id)
    row = next(s for s in game.seats if s.seat == seat)
    assert who_plays(game.house_rules, row) == Occupant(PlayedBy.BOT, Left.REMOVED)
    assert runtime.in_unit(bot_turns.play, game_id) == 1, "the bot plays the seat without waiting for a deadline"
    with runtime.db.read() as session:
        played = session.scalars(select(LogEntry).where(LogEntry.source == "bot", LogEntry.seat == seat)).all()
    assert played


def test_a_player_address_moves_across_all_their_games(runtime):
    first, second = start(runtime), start(runtime, engine="rankchain", players=PLAYERS[:2])
    change = runtime.in_unit(addresses.change_address, "Ann@Example.org", "Ann <ann@new.example.org>")
    assert change.new == "ann@new.example.org" and len(change.games) == 2
    with runtime.db.read() as session:
        assert session.scalar(select(Account.email).where(Account.email == "ann@example.org")) is None
    old, new = (
        emails(runtime, recipient="ann@example.org", kind="address"),
        emails(runtime, recipient="ann@new.example.org", kind="address"),
    )
    assert len(old) == len(new) == 1
    assert "changed to ann@new.example.org" in old[0].body_text and "went to ann@example.org" in new[0].body_text
    for game_id in (first, second):
        assert "ann@new.example.org" in {s.account.email for s in game_row(runtime, game_id).seats}
    runtime.in_unit(games.extend_deadline, first, 3600)
    assert emails(runtime, recipient="ann@new.example.org", kind="admin"), "the next email goes to the new address"
    with pytest.raises(ServiceError, match="already belongs to a player"):
        runtime.in_unit(addresses.change_address, "ann@new.example.org", "bob@example.org")
    with pytest.raises(ServiceError, match="no player has the address"):
        runtime.in_unit(addresses.change_address, "nobody@example.org", "x@example.org")


def test_the_command_line_removes_players_and_moves_addresses(sqlite_runtime):
    game_id = start(sqlite_runtime)
    seat = game_row(sqlite_runtime, game_id).seats[0].seat
    runner = CliRunner()
    kept = runner.invoke(main, ["game", "remove", str(game_id), seat], input="n\n")
    assert kept.exit_code == 1 and game_row(sqlite_runtime, game_id).seats[0].left_reason is None
    removed = runner.invoke(main, ["game", "remove", str(game_id), seat, "--yes", "--reason", "gone"])
    assert removed.exit_code == 0 and "nobody (the game's defaults) plays the seat now" in removed.output
    moved = runner.invoke(main, ["player", "email", "bob@example.org", "robert@example.org"])
    assert moved.exit_code == 0 and "bob@example.org is now robert@example.org" in moved.output
    taken = runner.invoke(main, ["player", "email", "cy@example.org", "robert@example.org"])
    assert taken.exit_code == 1 and "already belongs to a player" in taken.output and "Traceback" not in taken.output
