"""Commands by mail: ``help`` and ``status`` in a seat's reply, and command mode
at the server's base address (``help``, ``games``, ``status <game>``).

Command mode is open to anyone, so it shows only what the public status page
shows: never a seat's view, address or token.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from engines import get_engine, registry
from pbem.models import Game, Seat
from pbem.runtime import Runtime
from pbem.services import notify
from pbem.services.orders import Verdict
from pbem.services.queries import public_summary

SEAT_HELP = "help", "?", "commands"
SEAT_STATUS = "status", "view", "board"


def server_help(server_address: str) -> str:
    """The commands every player may use, whatever the game."""
    return (
        "Server commands (one per line):\n"
        "  help            this text; in a game's reply it adds the\n"
        "                  game's order syntax\n"
        "  status          in a game's reply: your private view again\n"
        f"Written to {server_address}:\n"
        "  games           the games on this server and their status\n"
        "  status <game>   the public status of game number <game>\n"
        "Quoted text and signatures in your mail are ignored; each\n"
        "remaining line is read as one order or command."
    )


def split_seat_lines(
    game: Game, seat: Seat, lines: list[str], server_address: str
) -> tuple[list[Verdict], list[str], list[Verdict]]:
    """``(commands before the orders, order lines, commands after them)``: ``help``/``status`` are
    answered here, in the reply's order as far as one receipt allows; every other line is an order."""
    engine = get_engine(game.engine)
    before: list[Verdict] = []
    after: list[Verdict] = []
    orders: list[str] = []
    for line in lines:
        word = line.strip().lower().rstrip(".!")
        if word in SEAT_HELP:
            text = engine.help_text().rstrip() + "\n\n" + server_help(server_address)
            (after if orders else before).append(Verdict(line, True, text))
        elif word in SEAT_STATUS:
            view = engine.render_text(engine.private_view(game.state, seat.seat))
            prompt = engine.prompt(game.state, seat.seat) if game.status == "active" else ""
            (after if orders else before).append(Verdict(line, True, f"{view.rstrip()}\n\n{prompt}".rstrip()))
        else:
            orders.append(line)
    return before, orders, after


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
    if not number.isdigit():
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
    if summary["deadline"]:
        lines.append(f"Deadline: {summary['deadline']}")
    if game.result:
        lines.append(f"Result: {game.result.get('summary', '')}")
    lines.append("")
    lines.append(engine.render_text(engine.public_view(game.state)).rstrip())
    lines.append("")
    lines.append(f"Status page: {runtime.settings.base_url}/games/{game.id}")
    return True, "\n".join(lines)


def server_commands(runtime: Runtime, session: Session, lines: list[str]) -> list[Verdict]:
    """Answer each line written to the base address; an empty message is answered with help."""
    if not lines:
        lines = ["help"]
    verdicts = []
    for line in lines:
        words = line.split()
        word = words[0].lower().rstrip(".!") if words else ""
        if word in SEAT_HELP:
            engines = ", ".join(f"{e.name} ({e.title})" for e in registry().values())
            text = server_help(runtime.settings.server_address) + f"\n\nGames played here: {engines}."
            verdicts.append(Verdict(line, True, text))
        elif word == "games":
            verdicts.append(Verdict(line, True, _games_text(session)))
        elif word == "status":
            ok, text = _status_text(runtime, session, " ".join(words[1:]))
            verdicts.append(Verdict(line, ok, text))
        else:
            verdicts.append(
                Verdict(line, False, "not a command here; write help, games or status <game>. "
                        "Orders go to the reply address of your game's emails.")
            )  # fmt: skip
    return verdicts


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
