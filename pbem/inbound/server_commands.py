"""Command mode: mail to the server's base address (``help``, ``games``,
``status <game>``, ``observe <game>``).  A seat's own commands, in replies to its
game's emails, are :mod:`pbem.services.play.seat_commands`.

Command mode is open to anyone, so it shows only what the public status page
shows: never a seat's view, address or token.  And since anyone can forge
``From:``, an answer carries only the server's own words: each command is named
as the server read it (``status 12``), never as it was written, the subject is
the server's, and lines that are not commands are counted, not quoted.  A
stranger (an address that does not play here) is answered only for a command;
anyone, player or not, gets at most one command that sends further mail
(``observe``, ``join``) per message, within the budget of
:mod:`pbem.services.ops.strangers`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from engines import get_engine, registry
from pbem.engine_output import rules_url, safe_text
from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.mailout import notify, observers
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play import invites, lobby
from pbem.services.play.orders import Verdict
from pbem.services.play.queries import public_summary
from pbem.zoned import shared_words


def server_help(server_address: str) -> str:
    """What anyone may write to the server's own address."""
    return (
        f"Commands written to {server_address} (one per line):\n"
        "  help             this text\n"
        "  games            the games on this server and their status\n"
        "  status GAME      the public status of game number GAME\n"
        "  observe GAME     follow game GAME's public news by email (you\n"
        "                   are sent a link to confirm; every email has a\n"
        "                   link to stop)\n"
        "  join GAME        take a seat in open game GAME (you are sent an\n"
        "                   email to confirm: reply to it to take the seat)\n"
        "  create ENGINE [players N]\n"
        "                   start a game of ENGINE for N players (you hold\n"
        "                   the first seat); the answer holds its invite link\n"
        "Players send orders and their own commands (help, status, press,\n"
        "vacation, notify) in replies to their game's emails instead.\n"
        "Quoted text and signatures in your mail are ignored."
    )


def _games_text(session: Session) -> str:
    games = session.scalars(
        select(Game).options(selectinload(Game.seats).selectinload(Seat.account)).order_by(Game.id.desc()).limit(30)
    ).all()
    if not games:
        return "There are no games on this server yet."
    rows = [f"{'#':>5}  {'game':<28} {'status':<10} turn"]
    for game in games:
        rows.append(f"{game.id:>5}  {game.name[:28]:<28} {game.status:<10} {game.turn}")
    return "\n".join(rows)


def _status_text(uow: UnitOfWork, argument: str) -> tuple[bool, str]:
    number = _game_number(argument)
    if number is None:
        return False, "write: status <game number> (see: games)"
    game = uow.session.get(Game, int(number))
    if game is None:
        return False, f"there is no game {number} (see: games)"
    summary = public_summary(game)
    engine = get_engine(game.engine)
    lines = [
        f"{game.name} ({engine.title}, {game.variant}): {game.status}, turn {game.turn}",
        f"Phase: {game.phase}",
    ]
    if summary["to_act"]:
        lines.append(f"Waiting for: {', '.join(summary['to_act'])}")
    if summary["deadline"]:  # worded as in every other email
        lines.append(f"Deadline: {shared_words(game.deadline)}")
    if game.result:
        lines.append(f"Result: {game.result.get('summary', '')}")
    lines.append("")
    lines.append(safe_text(game.engine, engine.public_view(game.state)).rstrip())
    lines.append("")
    lines.append(f"Status page: {uow.settings.base_url}/games/{game.id}")
    return True, "\n".join(lines)


#: Words that name a command, and the command each one means.
COMMANDS = {"help": "help", "?": "help", "commands": "help", "games": "games", "status": "status",
            "observe": "observe", "join": "join", "create": "create"}  # fmt: skip
#: Commands that make the server send another email (a confirmation) to the sender.
MAILING = ("observe", "join")
NOT_COMMANDS = (
    "not a command here, so ignored; write help, games, status GAME, observe GAME, join GAME or "
    "create ENGINE [players N]. "
    "Orders go to the reply address of your game's emails."
)
ONE_MAILING = "one observe or join per message; send it again on its own"


def command_of(line: str) -> tuple[str, str] | None:
    """``(command, argument)`` of a line written to the server address, or None if it is not one."""
    words = line.split()
    word = words[0].lower().rstrip(".!") if words else ""
    command = COMMANDS.get(word)
    return (command, " ".join(words[1:])) if command else None


def _game_number(argument: str) -> str | None:
    number = argument.strip().lstrip("#")
    return number if number.isascii() and number.isdigit() and len(number) <= 12 else None


def label(command: str, argument: str) -> str:
    """The command as the server read it: the stranger's own words never go back out."""
    if command == "create":
        engine, seats = _create_words(argument)
        words = ["create"] + ([engine] if engine in registry() else [])
        return " ".join(words + ([f"players {int(seats)}"] if seats.isdigit() else []))
    number = _game_number(argument) if command in ("status", *MAILING) else None
    return f"{command} {int(number)}" if number else command


def _create_words(argument: str) -> tuple[str, str]:
    """``(engine, seats)`` of ``create ENGINE [players N]`` (``N`` alone too); seats "" unless a number."""
    words = argument.lower().split()
    engine = words[0] if words else ""
    rest = [word for word in words[1:] if word not in ("players", "player", "for")]
    seats = rest[0] if len(rest) == 1 and rest[0].isascii() and rest[0].isdigit() and len(rest[0]) <= 2 else ""
    return engine, seats if seats or not rest else "?"


def name_in_reply(lines: list[str]) -> str:
    """The display name a reply to a request to confirm chose (a line ``name Night Owl``), or ""."""
    for line in lines:
        word, _, rest = line.strip().partition(" ")
        if word.lower().rstrip(":") == "name" and rest.strip():
            return rest.strip()[:100]
    return ""


def mail_commands(lines: list[str]) -> int:
    """How many lines would make the server send a confirmation email."""
    return sum(1 for line in lines if (found := command_of(line)) and found[0] in MAILING)


def server_commands(
    uow: UnitOfWork,
    lines: list[str],
    sender: str | None = None,
    references: str = "",
    *,
    stranger: bool = False,
) -> list[Verdict]:
    """Answer each command written to the base address; an empty message from a player is answered with help.

    A reply to a request to confirm joining a game (``references``: its In-Reply-To and
    References) takes the seat, and only that is answered: its text is whatever the player wrote.
    A ``stranger`` who wrote no command gets no verdict at all (so no answer); anyone gets at most
    one command that sends another email (``From:`` is unverified here, so a player's address may be forged).
    """
    token = lobby.join_token(references)
    if token is not None:
        result = lobby.confirm_by_reply(uow, token, sender, name=name_in_reply(lines))
        return [Verdict("(your reply to the request to confirm)", result.ok, result.message)]
    found = [command for command in map(command_of, lines) if command]
    ignored = len(lines) - len(found)
    if not found and (stranger or lines):
        return [] if stranger else [Verdict("(your message)", False, NOT_COMMANDS)]
    verdicts, mailed = [], 0
    for command, argument in found or [("help", "")]:
        shown = label(command, argument)
        if command in MAILING and mailed:
            verdicts.append(Verdict(shown, False, ONE_MAILING))
            continue
        verdict = _answer(uow, command, argument, shown, sender)
        mailed += command in MAILING and verdict.ok  # a refused request sends nothing
        verdicts.append(verdict)
    if ignored:
        other = "1 other line" if ignored == 1 else f"{ignored} other lines"
        verdicts.append(Verdict(f"({other})", False, NOT_COMMANDS))
    return verdicts


def _answer(uow: UnitOfWork, command: str, argument: str, shown: str, sender: str | None) -> Verdict:
    if command == "help":
        engines = ", ".join(f"{e.name} ({e.title})" for e in registry().values())
        rules = "\n".join(f"  {name}: {rules_url(uow.settings.base_url, name)}" for name in registry())
        text = server_help(uow.settings.server_address)
        return Verdict(shown, True, f"{text}\n\nGames played here: {engines}.\n\nRules:\n{rules}")
    if command == "games":
        return Verdict(shown, True, _games_text(uow.session))
    if command == "status":
        ok, text = _status_text(uow, argument)
        return Verdict(shown, ok, text)
    if command == "observe":
        return _observe(uow, shown, argument, sender)
    if command == "create":
        engine, seats = _create_words(argument)
        if seats == "?":
            return Verdict(shown, False, "write: create GAME [players N], N a number of players")
        result = invites.create_by_mail(uow, sender, engine, seats)
        return Verdict(shown, result.ok, result.message)
    return _join(uow, shown, argument, sender)


def _about_game(line: str, argument: str, usage: str, ask: Callable[[int], Any]) -> Verdict:
    """A command naming a game: the number is checked, then ``ask(game_id)`` answers (``ok``, ``message``)."""
    number = _game_number(argument)
    if number is None:
        return Verdict(line, False, usage)
    try:
        outcome = ask(int(number))
    except NotFound as error:
        return Verdict(line, False, f"{error} (see: games)")
    return Verdict(line, outcome.ok, outcome.message)


def _observe(uow: UnitOfWork, line: str, argument: str, sender: str | None) -> Verdict:
    def ask(game_id: int) -> Any:
        if not sender:
            return observers.ObserverResult(False, "your message has no address to send the game's news to")
        return observers.subscribe(uow, game_id, sender)

    return _about_game(line, argument, "write: observe GAME (the game's number; see: games)", ask)


def _join(uow: UnitOfWork, line: str, argument: str, sender: str | None) -> Verdict:
    usage = "write: join GAME (the number of an open game; see: games)"
    return _about_game(line, argument, usage, lambda game_id: lobby.ask_to_join(uow, game_id, sender))


def reply_subject(server_address: str) -> str:
    """The subject of every answer: the server's words (a forged sender's subject is never echoed)."""
    return f"Re: your message to {server_address}"


def queue_reply(
    uow: UnitOfWork,
    recipient: str | None,
    in_reply_to: str | None,
    verdicts: list[Verdict],
) -> None:
    if not recipient or not verdicts:
        return
    notify.queue(
        uow,
        game=None,
        seat=None,
        recipient=recipient,
        template="commands",
        subject=reply_subject(uow.settings.server_address),
        kind=EmailKind.COMMANDS,
        in_reply_to=in_reply_to,
        auto_reply=True,
        verdicts=verdicts,
    )
