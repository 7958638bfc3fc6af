"""A seat changing hands mid-game: the departing player is told, the board shows the new name.

Used when the admin replaces a player (:func:`pbem.services.play.games.replace_player`);
a removed player is told the same way (:mod:`pbem.services.play.removal`).  The seat
keeps its name and its place in the game; its secret reply address and web link
change, so the departing player's old emails no longer act for it.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.game_status import LogKind
from pbem.models import Account, Game, Seat, public_name
from pbem.runtime import UnitOfWork
from pbem.services.mailout import notify, threads
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play import vacations
from pbem.services.play.settling import append_log, engine_for
from pbem.tokens import new_token


def hand_over(uow: UnitOfWork, game: Game, seat: Seat, account: Account) -> Account:
    """Give ``seat`` to ``account`` (in the caller's locked transaction); returns the departing account.

    The departing player's vacations end (a deadline they held comes in), the
    count of missed deadlines starts again, both secret tokens change and the
    new player's thread starts afresh; the board shows the new player's name.
    """
    departing = seat.account
    vacations.end_now(uow.session, game, seat, utcnow())
    seat.account = account
    seat.missed_deadlines = 0
    seat.left_at = seat.left_reason = None  # a seat whose player left, taken over, is played by its new player
    rotate_tokens_of(seat)
    seat.last_message_id = None
    if not game.anonymous:  # an anonymous game's board names "Player N" whoever plays
        relabel(uow.session, game, seat, public_name(account.name, seat.position, account.email))
    return departing


def rotate_tokens_of(seat: Seat) -> None:
    """New secret reply address and web link for ``seat``: the old ones stop acting for it."""
    seat.reply_token, seat.web_token = new_token(), new_token()


def relabel(session: Session, game: Game, seat: Seat, name: str) -> None:
    """Show ``name`` for ``seat`` on the board from now on: a ``relabel`` log entry, which replay
    applies at the same point (earlier events keep the name they were played under)."""
    game.state = engine_for(game).relabel(game.state, seat.seat, name)
    append_log(session, game, kind=LogKind.RELABEL, source="admin", seat=seat.seat, text=name)


def tell_departing(uow: UnitOfWork, game: Game, seat: Seat, account: Account, last_email: str | None, why: str) -> None:
    """The departing player hears, in the game's thread, that the seat is no longer theirs."""
    notify.queue(
        uow,
        game=game,
        seat=None,
        recipient=account.email,
        template="notice",
        kind=EmailKind.REPLACED,
        subject=threads.subject(game, answer=bool(last_email)),
        in_reply_to=last_email,
        headline=f"You no longer play {seat.seat} in {game.name}.",
        details=[
            why,
            "Replies to the game's earlier emails no longer reach the seat, and you will get no more emails "
            "about this game.",
            "If this is a mistake, write to the person who runs the game.",
        ],
    )
