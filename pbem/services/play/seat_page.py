"""A seat's page: its lines answered exactly as an email reply's are
(:func:`pbem.services.play.seat_message.handle`), and read-only commands re-read."""

from __future__ import annotations

from pbem.mail.text import readable
from pbem.models import Seat
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.play import seat_commands, seat_message
from pbem.services.play.queries import load_game, status_text
from pbem.services.play.seat_message import SeatAnswer

__all__ = ["SeatAnswer", "answer_seat", "reread"]


def _seat(uow: UnitOfWork, game_id: int, seat_id: int) -> Seat:
    seat = uow.session.get(Seat, seat_id)
    if seat is None or seat.game_id != game_id:
        raise NotFound("that seat does not play in this game")
    return seat


def reread(uow: UnitOfWork, game_id: int, seat_id: int, line: str) -> str:
    """The answer to a read-only command (``help``, ``status``) as it reads now."""
    game = load_game(uow.session, game_id)
    seat = next((s for s in game.seats if s.id == seat_id), None)
    if seat is None:
        raise NotFound("that seat does not play in this game")
    if line.strip().lower() in seat_commands.HELP_WORDS:
        return seat_commands.help_text(game)
    return status_text(game, seat)


def answer_seat(uow: UnitOfWork, game_id: int, seat_id: int, lines: list[str]) -> SeatAnswer:
    """Carry out a seat's lines from the web exactly as an email reply's (:func:`seat_message.handle`)."""
    lines = [readable(line).strip() for line in lines if line.strip()]
    return seat_message.handle(uow, _seat(uow, game_id, seat_id), lines, seat_message.WEB)
