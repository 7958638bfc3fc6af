"""``pbem game ...``: start, inspect, verify and steer games."""

from __future__ import annotations

import json
from typing import Any

import click

from pbem.clock import DurationError, parse_duration
from pbem.commands import fail, runtime
from pbem.game_status import OVER, GameStatus
from pbem.seating import who_plays
from pbem.services import ServiceError
from pbem.services.play import games, new_game
from pbem.services.play.deadline_hour import DeadlineHour
from pbem.services.play.export import export_game, load_export, verify_export
from pbem.services.play.game_pages import MAX_PAGE_SIZE, PAGE_SIZE, Cursor, list_page
from pbem.services.play.games import MAX_BOTS
from pbem.services.play.lobby import MAX_OPEN_SEATS
from pbem.services.play.queries import game_summary, load_game, public_row
from pbem.services.play.verify import verify
from pbem.tokens import reply_address

#: Time per turn of a game created without --deadline (or --no-deadline).
DEFAULT_DEADLINE = new_game.DEFAULT_DEADLINE
#: Game ids are INTEGER columns: anything larger is refused as a bad argument, not sent to the database.
GAME_ID = click.IntRange(1, 2**31 - 1)


@click.group("game")
def game_group() -> None:
    """Start and manage games."""


def duration(value: str | None, flag: str) -> int | None:
    if value is None:
        return None
    try:
        return parse_duration(value)
    except DurationError as error:
        raise click.BadParameter(str(error), param_hint=flag) from None


def seat_rows(game_id: int) -> list[dict[str, str]]:
    rt = runtime()
    settings = rt.settings
    with rt.reading() as uow:
        session = uow.session
        game = load_game(session, game_id)
        return [
            {
                "seat": seat.seat,
                "name": seat.account.display,
                "email": seat.account.email,
                "play_url": f"{settings.base_url}/play/{seat.web_token}",
                "reply_address": reply_address(settings.secret_key, seat.reply_token, settings.reply_template),
                "bot": who_plays(game.house_rules, seat).bot_seat,
            }
            for seat in game.seats
        ]


#: Each option of ``game create`` and the field of :mod:`pbem.services.play.new_game` it fills.
CREATE_FLAGS = {
    "engine_name": ("--engine", "engine"),
    "variant": ("--variant", "variant"),
    "name": ("--name", "name"),
    "options": ("--option", "options"),
    "players": ("--player", "players"),
    "open_seats": ("--open-seats", "open_seats"),
    "bots": ("--bot", "bots"),
    "deadline": ("--deadline", "deadline"),
    "phase_deadlines": ("--phase-deadline", "phase_deadlines"),
    "deadline_hour": ("--deadline-hour", "deadline_hour"),
    "timezone": ("--timezone", "timezone"),
    "reminders": ("--reminders", "reminders"),
    "seed": ("--seed", "seed"),
    "press_mode": ("--press", "press"),
    "press_identity": ("--press-identity", "press_identity"),
    "late_policy": ("--late", "late"),
    "drop_after": ("--drop-after", "drop_after"),
    "draw_votes": ("--draw-votes", "draw_votes"),
    "vacation_per_game": ("--vacation-per-game", "vacation_per_game"),
    "vacation_per_year": ("--vacation-per-year", "vacation_per_year"),
}
#: The option that fills each field, for naming it in an error.
FLAG_OF = {field: flag for flag, field in CREATE_FLAGS.values()}


@game_group.command("create")
@click.option("--engine", "engine_name", help="Engine name (see `pbem engines`).")
@click.option("--variant", default=None)
@click.option(
    "--player", "players", multiple=True, help="EMAIL or 'Name <EMAIL>'; repeat (or separate players with commas)."
)
@click.option(
    "--open-seats",
    default=None,
    help=f"Seats left for players to take (join on the web or by mail), 0 to {MAX_OPEN_SEATS}; "
    "the game starts when all are taken.",
)
@click.option("--bot", "bots", default=None, help=f"Seats played by the server's bot (0 to {MAX_BOTS}).")
@click.option("--name", default=None, help="A name for the game.")
@click.option("--deadline", default=None, help=f"Time per turn, like 90s, 12h or 2d (default: {DEFAULT_DEADLINE}).")
@click.option("--no-deadline", is_flag=True, help="No time limit: a turn waits for every player.")
@click.option("--phase-deadline", "phase_deadlines", multiple=True, help="KIND=DURATION (kinds: pbem engines).")
@click.option(
    "--deadline-hour",
    default=None,
    help="Deadlines of phases of a day or more fall at this local time of day, 0-23 or like 20:30 (see --timezone).",
)
@click.option("--timezone", default=None, help="Time zone of --deadline-hour, like Europe/Paris (default UTC).")
@click.option("--reminders", default=None, help="Reminders before the deadline, e.g. 24h,1h (or 'none').")
@click.option("--option", "options", multiple=True, help="Engine option NAME=VALUE; repeat.")
@click.option("--seed", default=None, help="Fix the random seed (for tests and replays).")
@click.option("--press", "press_mode", default=None, help="Table talk: full (default), public or none.")
@click.option("--press-identity", default=None, help="Press is signed (default) or anonymous.")
@click.option("--late", "late_policy", default=None, help="Missed deadlines: defaults (default), grace:N or bot:N.")
@click.option(
    "--drop-after",
    default=None,
    help="A player who misses N deadlines in a row leaves the game (0: never, the default).",
)
@click.option(
    "--draw-votes", default=None, help="Who learns of draw votes: secret (the default) or public (the whole table)."
)
@click.option("--vacation-per-game", default=None, help="Vacation days per player in this game (14).")
@click.option("--vacation-per-year", default=None, help="Vacation days per account per year (28).")
@click.option("--json", "as_json", is_flag=True)
def game_create(as_json: bool, no_deadline: bool, **typed: Any) -> None:
    """Start a game; every player gets their first email (with --open-seats: once all seats are taken)."""
    if no_deadline and typed["deadline"] is not None:
        raise click.UsageError("give --deadline or --no-deadline, not both")
    if no_deadline:
        typed["deadline"] = new_game.NONE
    values = {field: _as_list(typed[option]) for option, (_, field) in CREATE_FLAGS.items()}
    rt = runtime()
    try:
        parsed = new_game.read(values)
        game_id = rt.in_unit(new_game.start, parsed)
    except new_game.Problems as problems:
        fail("; ".join(f"{FLAG_OF.get(name, name)}: {message}" for name, message in problems.each()))
    except ServiceError as error:
        fail(str(error))
    if as_json:
        click.echo(json.dumps(created_json(rt, game_id), indent=2))
    else:
        click.echo(game_id)
        at = parsed.request.deadline_hour
        for line in created_lines(rt.settings, game_id, parsed.deadline, parsed.default_deadline, at):
            click.echo(line)


def _as_list(value: str | tuple[str, ...] | None) -> list[str]:
    """An option's value as the field's values: a repeated option's each, else the one given (if any)."""
    if value is None:
        return []
    return list(value) if isinstance(value, tuple) else [value]


def created_json(rt, game_id: int) -> dict[str, Any]:
    """What ``game create --json`` prints: the game, where to watch it, and its seats."""
    summary = rt.in_reading(game_summary, game_id)
    return {
        "id": game_id,
        "name": summary["name"],
        "engine": summary["engine"],
        "variant": summary["variant"],
        "status": summary["status"],
        "status_url": f"{rt.settings.base_url}/games/{game_id}",
        "deadline": summary["deadline"],
        "seats": seat_rows(game_id),
        **({"dev_mailbox_url": dev_mailbox_url(rt.settings)} if dev_mailbox_url(rt.settings) else {}),
    }


def dev_mailbox_url(settings) -> str | None:
    """Where the emails can be read when no relay sends them (only while the dev mailbox is served)."""
    return f"{settings.base_url}/dev/mail" if settings.dev_mailbox else None


def created_lines(
    settings, game_id: int, deadline: str | None, default: bool, at: DeadlineHour | None = None
) -> list[str]:
    """What an admin wants to know next: where to watch, how long a turn lasts (and at what hour it ends),
    where the mail went."""
    lines = [f"Status page: {settings.base_url}/games/{game_id}"]
    if deadline is None:
        lines.append("Deadline: none (--no-deadline): each turn waits for every player")
    else:
        note = " (the default; choose with --deadline, or --no-deadline)" if default else ""
        lines.append(f"Deadline: {deadline} per turn{note}")
    if at is not None:
        lines.append(f"Deadlines fall at {at.text} (phases of a day or more; see README, Deadlines)")
    mailbox = dev_mailbox_url(settings)
    if settings.smtp_url:
        lines.append("Mail: the players' first emails are on their way through PBEM_SMTP_URL")
    elif mailbox:
        lines.append(f"Mail: no relay (PBEM_SMTP_URL) is set, so nothing is sent; read the emails at {mailbox}")
    else:
        lines.append("Mail: no relay (PBEM_SMTP_URL) is set; the emails wait in the outbox until one is")
    return lines


LIST_STATUSES = tuple(GameStatus)


@game_group.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.option(
    "--limit", type=click.IntRange(1, MAX_PAGE_SIZE), default=PAGE_SIZE, show_default=True, help="Games per page."
)
@click.option("--page", type=click.IntRange(1), default=1, show_default=True, help="Page number (1: newest).")
@click.option("--after", type=click.IntRange(0), default=None, help="Only games older than this id (a cursor).")
@click.option("--status", type=click.Choice(LIST_STATUSES), default=None, help="Only games in this status.")
def game_list(as_json: bool, limit: int, page: int, after: int | None, status: str | None) -> None:
    """List games, newest first, a page at a time (the next page's cursor is shown at the end)."""
    cursor = Cursor.parse(page=page, after=after, size=limit)
    listing = runtime().in_reading(list_page, cursor, public_row, (status,) if status else None)
    if as_json:
        click.echo(json.dumps(listing.rows, indent=2))
    else:
        for row in listing.rows:
            click.echo(f"{row['id']:>5}  {row['status']:<9} {row['engine']:<10} {row['name']}  ({row['phase']})")
    if listing.next_after is not None:
        more = f"pbem game list --after {listing.next_after} --limit {limit}" + (
            f" --status {status}" if status else ""
        )
        click.echo(f"More games: {more}", err=True)


@game_group.command("show")
@click.argument("game_id", type=GAME_ID)
@click.option("--json", "as_json", is_flag=True)
def game_show(game_id: int, as_json: bool) -> None:
    """Show a game's status (and, to the admin at the console, its seats' addresses)."""
    try:
        summary = runtime().in_reading(game_summary, game_id)
    except ServiceError as error:
        fail(str(error))
    summary["seats_admin"] = seat_rows(game_id)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(f"Game {summary['id']}: {summary['name']} ({summary['engine']} {summary['variant']})")
    click.echo(f"Status: {summary['status']}; {summary['phase']}; deadline {summary['deadline'] or 'none'}")
    for seat in summary["seats"]:
        mark = {True: "submitted", False: "to act", None: "not asked"}[seat["submitted"]]
        click.echo(f"  {seat['name']:<12} {seat['player']:<20} {mark}")
    if summary["result"]:
        click.echo(f"Result: {summary['result']['summary']}")


def game_id(text: str) -> int:
    """A game id given as text, in range."""
    try:
        return GAME_ID.convert(text.strip(), None, None)
    except click.BadParameter as error:
        raise click.BadParameter(error.message, param_hint="GAME") from None


@game_group.command("verify")
@click.argument("game")
def game_verify(game: str) -> None:
    """Replay game GAME's log from its seed and compare with the stored game.

    GAME is a game id, or the path of a file written by `pbem game export`
    (replayed with the engine alone, as `pbem game verify-export` does).
    """
    try:
        result = (
            runtime().in_reading(verify, game_id(game)) if game.strip().isdigit() else verify_export(load_export(game))
        )
    except ServiceError as error:
        fail(str(error))
    click.echo(result.message)
    if not result.ok:
        raise SystemExit(1)


@game_group.command("export")
@click.argument("game_id", type=GAME_ID)
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write to FILE instead of standard output.",
)
@click.option("--public", "public_only", is_flag=True, help="Only what the public may see (no seed, no orders).")
@click.option(
    "--addresses", is_flag=True, help="Add each seat's player address (to move the game with `pbem game import`)."
)
def game_export(game_id: int, output: str | None, public_only: bool, addresses: bool) -> None:
    """Export a game's set-up and full log as JSON (replay it with `pbem game verify FILE`,
    recreate it here or on another server with `pbem game import FILE`)."""
    if public_only and addresses:
        raise click.UsageError("--addresses goes with a full export, not --public")
    try:
        data = runtime().in_reading(export_game, game_id, full=not public_only, addresses=addresses)
    except ServiceError as error:
        fail(str(error))
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if output:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        click.echo(f"game {game_id} exported to {output} ({len(data['log'])} log entries)")
    else:
        click.echo(text)


@game_group.command("verify-export")
@click.argument("path", type=click.Path(dir_okay=False))
def game_verify_export(path: str) -> None:
    """Replay an export file with the engine alone (no database) and check its final state."""
    try:
        result = verify_export(load_export(path))
    except ServiceError as error:
        fail(str(error))
    click.echo(result.message)
    if not result.ok:
        raise SystemExit(1)


def _admin(action, *args) -> None:
    try:
        runtime().in_unit(action, *args)
    except ServiceError as error:
        fail(str(error))


@game_group.command("pause")
@click.argument("game_id", type=GAME_ID)
@click.option("--reason", default="")
def game_pause(game_id: int, reason: str) -> None:
    """Stop the clock of a game."""
    _admin(games.pause, game_id, reason)
    click.echo(f"game {game_id} paused")


@game_group.command("resume")
@click.argument("game_id", type=GAME_ID)
def game_resume(game_id: int) -> None:
    """Start the clock of a paused game again, with the time that was left (at least a minute)."""
    _admin(games.resume, game_id)
    click.echo(f"game {game_id} resumed")


@game_group.command("cancel")
@click.argument("game_id", type=GAME_ID)
@click.option("--reason", default="", help="Said to the players in their final email.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def game_cancel(game_id: int, reason: str, yes: bool) -> None:
    """End a game for good: every player gets a final email; it cannot be resumed."""
    rt = runtime()
    if not yes:
        try:
            summary = rt.in_reading(game_summary, game_id)
        except ServiceError as error:
            fail(str(error))
        if summary["status"] in OVER:
            fail(f"cannot cancel game {game_id}: it is {summary['status']}")
        players = ", ".join(seat["player"] for seat in summary["seats"]) or "no players yet"
        click.confirm(
            f"Cancel game {game_id}, {summary['name']} ({summary['status']}; {players})? "
            "Every player is told it is over, and it cannot be resumed",
            abort=True,
        )
    _admin(games.cancel, game_id, reason)
    click.echo(f"game {game_id} cancelled; its players have been sent a final email")


@game_group.command("extend")
@click.argument("game_id", type=GAME_ID)
@click.argument("by")
def game_extend(game_id: int, by: str) -> None:
    """Push the deadline back by a duration (e.g. 1d)."""
    _admin(games.extend_deadline, game_id, duration(by, "BY"))
    click.echo(f"game {game_id} deadline extended by {by}")


@game_group.command("replace")
@click.argument("game_id", type=GAME_ID)
@click.argument("seat")
@click.argument("player")
def game_replace(game_id: int, seat: str, player: str) -> None:
    """Give SEAT to PLAYER (EMAIL or 'Name <EMAIL>'); the seat's secret links change."""
    _admin(games.replace_player, game_id, seat, player)
    click.echo(f"game {game_id}: {seat} now played by {player}")


@game_group.command("remove")
@click.argument("game_id", type=GAME_ID)
@click.argument("seat")
@click.option("--reason", default="", help="Said to the removed player.")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def game_remove(game_id: int, seat: str, reason: str, yes: bool) -> None:
    """Take SEAT from its player: the game's late-seat rule plays it from now on
    (the bot with --late bot:N, else the game's defaults)."""
    from pbem.services.play.removal import remove_player

    if not yes:
        click.confirm(
            f"Remove the player of {seat} from game {game_id}? They are told, and cannot come back to the seat",
            abort=True,
        )
    try:
        plays = runtime().in_unit(remove_player, game_id, seat, reason)
    except ServiceError as error:
        fail(str(error))
    click.echo(f"game {game_id}: {seat}'s player removed; {plays} plays the seat now")
