"""A seat's page: its lines answered exactly as an email reply's are
(:func:`pbem.services.play.seat_message.handle`), and read-only commands re-read."""

from __future__ import annotations

from pbem.mail.text import readable
from pbem.runtime import UnitOfWork
from pbem.services.play import seat_commands, seat_message
from pbem.services.play.locking import seat_of_game
from pbem.services.play.queries import load_game, status_text
from pbem.services.play.seat_message import SeatAnswer

__all__ = ["SeatAnswer", "answer_seat", "reread"]


def reread(uow: UnitOfWork, game_id: int, seat_id: int, line: str) -> str:
    """The answer to a read-only command (``help``, ``status``) as it reads now."""
    game = load_game(uow.session, game_id)
    seat = seat_of_game(uow.session, game.id, seat_id)
    if line.strip().lower() in seat_commands.HELP_WORDS:
        return seat_commands.help_text(game)
    return status_text(game, seat)


def answer_seat(uow: UnitOfWork, game_id: int, seat_id: int, lines: list[str]) -> SeatAnswer:
    """Carry out a seat's lines from the web exactly as an email reply's (:func:`seat_message.handle`)."""
    lines = [readable(line).strip() for line in lines if line.strip()]
    seat = seat_of_game(uow.session, game_id, seat_id)
    return seat_message.handle(uow, seat, lines, seat_message.WEB)
