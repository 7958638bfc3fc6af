"""Command mode: mail to the server's base address (``help``, ``games``,
``status <game>``, ``observe <game>``).  A seat's own commands, in replies to its
game's emails, are :mod:`pbem.services.play.seat_commands`.

Command mode is open to anyone, so it shows only what the public status page
shows: never a seat's view, address or token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from engines import get_engine, registry
from pbem.boards import rules_url
from pbem.models import Game, Seat
from pbem.runtime import Runtime
from pbem.services import NotFound
from pbem.services.mailout import notify, observers
from pbem.services.play import lobby
from pbem.services.play.orders import Verdict
from pbem.services.play.queries import public_summary


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


def _status_text(runtime: Runtime, session: Session, argument: str) -> tuple[bool, str]:
    number = argument.strip().lstrip("#")
    if not (number.isascii() and number.isdigit()) or len(number) > 12:
        return False, "write: status <game number> (see: games)"
    game = session.get(Game, int(number))
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
        lines.append(f"Deadline: {notify.format_deadline(game)} UTC")
    if game.result:
        lines.append(f"Result: {game.result.get('summary', '')}")
    lines.append("")
    lines.append(engine.render_text(engine.public_view(game.state)).rstrip())
    lines.append("")
    lines.append(f"Status page: {runtime.settings.base_url}/games/{game.id}")
    return True, "\n".join(lines)


def server_commands(
    runtime: Runtime, session: Session, lines: list[str], sender: str | None = None, references: str = ""
) -> list[Verdict]:
    """Answer each line written to the base address; an empty message is answered with help.

    A reply to a request to confirm joining a game (``references``: its In-Reply-To and
    References) takes the seat, and only that is answered: its text is whatever the player wrote.
    """
    token = lobby.join_token(references)
    if token is not None:
        result = lobby.confirm_by_reply(runtime, token, sender)
        return [Verdict("(your reply to the request to confirm)", result.ok, result.message)]
    if not lines:
        lines = ["help"]
    verdicts = []
    for line in lines:
        words = line.split()
        word = words[0].lower().rstrip(".!") if words else ""
        if word in ("help", "?", "commands"):
            engines = ", ".join(f"{e.name} ({e.title})" for e in registry().values())
            rules = "\n".join(f"  {name}: {rules_url(runtime.settings.base_url, name)}" for name in registry())
            text = server_help(runtime.settings.server_address)
            text += f"\n\nGames played here: {engines}.\n\nRules:\n{rules}"
            verdicts.append(Verdict(line, True, text))
        elif word == "games":
            verdicts.append(Verdict(line, True, _games_text(session)))
        elif word == "status":
            ok, text = _status_text(runtime, session, " ".join(words[1:]))
            verdicts.append(Verdict(line, ok, text))
        elif word == "observe":
            verdicts.append(_observe(runtime, line, " ".join(words[1:]), sender))
        elif word == "join":
            verdicts.append(_join(runtime, line, " ".join(words[1:]), sender))
        else:
            verdicts.append(
                Verdict(line, False, "not a command here; write help, games, status GAME, observe GAME or join GAME. "
                        "Orders go to the reply address of your game's emails.")
            )  # fmt: skip
    return verdicts


def _about_game(line: str, argument: str, usage: str, ask: Callable[[int], Any]) -> Verdict:
    """A command naming a game: the number is checked, then ``ask(game_id)`` answers (``ok``, ``message``)."""
    number = argument.strip().lstrip("#")
    if not (number.isascii() and number.isdigit()) or len(number) > 12:
        return Verdict(line, False, usage)
    try:
        outcome = ask(int(number))
    except NotFound as error:
        return Verdict(line, False, f"{error} (see: games)")
    return Verdict(line, outcome.ok, outcome.message)


def _observe(runtime: Runtime, line: str, argument: str, sender: str | None) -> Verdict:
    def ask(game_id: int) -> Any:
        if not sender:
            return observers.ObserverResult(False, "your message has no address to send the game's news to")
        return observers.subscribe(runtime, game_id, sender)

    return _about_game(line, argument, "write: observe GAME (the game's number; see: games)", ask)


def _join(runtime: Runtime, line: str, argument: str, sender: str | None) -> Verdict:
    usage = "write: join GAME (the number of an open game; see: games)"
    return _about_game(line, argument, usage, lambda game_id: lobby.ask_to_join(runtime, game_id, sender))


def queue_reply(
    runtime: Runtime,
    session: Session,
    recipient: str | None,
    subject: str,
    in_reply_to: str | None,
    verdicts: list[Verdict],
) -> None:
    if not recipient:
        return
    subject = subject or "pbem commands"
    subject = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    notify.queue(
        runtime,
        session,
        game=None,
        seat=None,
        recipient=recipient,
        template="commands",
        subject=subject[:300],
        kind="commands",
        in_reply_to=in_reply_to,
        auto_reply=True,
        verdicts=verdicts,
    )
