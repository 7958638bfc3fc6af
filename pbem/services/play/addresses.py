"""A player's new address, for all of their games at once (``pbem player email OLD NEW``).

The account keeps everything else — name, ratings, preferences, seats and their
secret reply addresses — so replies the player sends from the new address are
recognised, and emails still waiting in the outbox go to the new address.  Both
addresses are told, so a change the player did not ask for does not go unseen.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update

from pbem.game_status import RUNNING, GameStatus
from pbem.models import Account, Game, OutboxMessage, Seat, is_bot_address
from pbem.outbox_status import OutboxStatus
from pbem.runtime import UnitOfWork
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.players import normalise_email, parse_player

#: Outbox rows not yet sent, which follow the player to the new address.
WAITING = (OutboxStatus.PENDING, OutboxStatus.HELD)


@dataclass(frozen=True)
class AddressChange:
    old: str
    new: str
    games: list[str]
    moved_emails: int


def change_address(uow: UnitOfWork, old: str, new: str) -> AddressChange:
    """Move the account of ``old`` to ``new`` (which no player may have yet) and tell both addresses."""
    old_email = normalise_email(old)
    _, new_email = parse_player(new)
    if is_bot_address(old_email) or is_bot_address(new_email):
        raise ServiceError("addresses in the bot's reserved domain cannot be changed or given")
    if old_email == new_email:
        raise ServiceError(f"{new_email} is already the address")
    session = uow.session
    account = session.scalars(select(Account).where(Account.email == old_email)).one_or_none()
    if account is None:
        raise NotFound(f"no player has the address {old_email}")
    other = session.scalars(select(Account).where(Account.email == new_email)).one_or_none()
    if other is not None:
        raise ServiceError(
            f"{new_email} already belongs to a player ({other.display}); "
            "each address is one player: choose another address"
        )
    account.email = new_email
    account.bounces = account.hard_bounces = 0  # a new address starts with a clean record
    account.unreachable_since = account.last_bounce = None
    moved = session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.recipient == old_email, OutboxMessage.status.in_(WAITING))
        .values(recipient=new_email)
    ).rowcount
    names = [
        f"{game.name} (#{game.id}, {seat.seat})"
        for seat, game in session.execute(
            select(Seat, Game)
            .join(Game, Game.id == Seat.game_id)
            .where(Seat.account_id == account.id)
            .order_by(Game.id)
        )
        if game.status in RUNNING | {GameStatus.OPEN}
    ]
    details = [f"Your games: {', '.join(names)}." if names else "You have no game in progress."]
    details.append("Your seats, their reply addresses and your links stay as they were.")
    for recipient, headline in (
        (old_email, f"Your address for these games has changed to {new_email}: emails now go there."),
        (new_email, f"This address now receives the game emails that went to {old_email}."),
    ):
        notify.queue(
            uow,
            game=None,
            seat=None,
            recipient=recipient,
            template="notice",
            kind=EmailKind.ADDRESS,
            subject="Your game address has changed",
            headline=headline,
            details=[*details, "If you did not ask for this, write to the person who runs the games."],
        )
    return AddressChange(old_email, new_email, names, moved or 0)
