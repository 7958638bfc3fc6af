"""Which of our emails a player's message answers, and what that says about its turn."""

from __future__ import annotations

from email.message import Message

from sqlalchemy.orm import Session

from engines.base import FIRST_TURN
from pbem.game_status import GameStatus
from pbem.mail.message import header
from pbem.models import Game
from pbem.services.mailout import threads


def answered_id(message: Message) -> str | None:
    """Which email the message answers: its In-Reply-To, else the last of its References.

    Only the email answered directly counts: References name every email of
    the thread, press emails and earlier turns among them.
    """
    direct = header(message, "In-Reply-To").split()
    if direct:
        return direct[0]
    references = header(message, "References").split()
    return references[-1] if references else None


def late_reply_warning(session: Session, game: Game, answered: str | None) -> str | None:
    """A sentence if the player answered an email of an earlier turn (their orders apply to this one)."""
    if game.status != GameStatus.ACTIVE or game.turn <= FIRST_TURN:  # no earlier turn to have answered
        return None
    with session.no_autoflush:  # reads only what was written before this message: flushed once, at commit
        turn = threads.turn_of(session, answered)
    if turn is None or turn >= game.turn or game.status != GameStatus.ACTIVE:
        return None
    return (
        f"You replied to the email of turn {turn}; the game is now at turn {game.turn} "
        f"({game.phase}), and your orders were read as orders for turn {game.turn}."
    )
