"""Bounces, counted only when they are real, and what repeated hard bounces do.

Every email leaves with its own signed envelope sender (VERP, see
:func:`pbem.tokens.bounce_key`), so a delivery report comes back to an address
that names the outbox row.  A report is counted only if that address's MAC is
right and the row was really sent: a forged report, or one sent to a plain
address, changes nothing.

A hard bounce (a 5.x.x status) counts towards ``settings.hard_bounce_limit`` in a row
(``PBEM_HARD_BOUNCES``); a message the player sends resets the count.  At the
limit the address is *unreachable*: nothing more is mailed to it, the admin
console lists it, the other players of each of its active games are told that
the seat cannot be reached, and the game's late-seat policy takes the seat
(``bot:N``: the bot plays it from the next deadline on).
"""

from __future__ import annotations

import re

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.mail.automated import Bounce
from pbem.models import Account, Game, OutboxMessage, Seat
from pbem.outbox_status import OUT, OutboxStatus, sources
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play.house_rules import rules_of
from pbem.tokens import is_bounce_shaped, outbox_id_from_bounce_address

_HARD = re.compile(r"(?:^|\s)5\.\d{1,3}\.\d{1,3}\b|(?:^|;\s*|\s)5\d\d\b")


def outbox_id_for(runtime: Runtime, address: str | None) -> int | None:
    """The outbox id named by one of our signed bounce addresses (None: not one)."""
    if not address:
        return None
    settings = runtime.settings
    return outbox_id_from_bounce_address(settings.secret_key, settings.reply_templates, address)


def is_bounce_address(runtime: Runtime, address: str | None) -> bool:
    """Whether ``address`` has the shape of a bounce address (signed or not)."""
    return is_bounce_shaped(runtime.settings.reply_templates, address or "")


def is_hard(report: Bounce | None) -> bool:
    return report is not None and bool(_HARD.search(report.reason))


def record(uow: UnitOfWork, outbox_id: int, report: Bounce | None) -> str:
    """Count a report that came back to the bounce address of ``outbox_id``; returns the verdict."""
    session = uow.session
    row = session.get(OutboxMessage, outbox_id)
    if row is None or row.status not in OUT:
        return f"bounce for email {outbox_id}, which was not sent: ignored"
    account = session.scalars(select(Account).where(Account.email == row.recipient.lower())).one_or_none()
    if account is None:
        return f"bounce for email {outbox_id} to {row.recipient}: no account"
    reason = report.reason if report is not None else "delivery failed"
    account.bounces = (account.bounces or 0) + 1
    account.last_bounce = f"{utcnow():%Y-%m-%d %H:%M} {reason}"[:1000]
    if not is_hard(report):
        return f"soft bounce recorded for {account.email}"
    account.hard_bounces = (account.hard_bounces or 0) + 1
    if account.hard_bounces >= uow.settings.hard_bounce_limit and account.unreachable_since is None:
        mark_unreachable(uow, account)
        return f"hard bounce {account.hard_bounces} for {account.email}: address now unreachable"
    return f"hard bounce {account.hard_bounces} recorded for {account.email}"


def mark_unreachable(uow: UnitOfWork, account: Account) -> None:
    """Stop mailing ``account``, tell its games' other players, and let the late-seat policy take its seats."""
    session = uow.session
    account.unreachable_since = utcnow()
    session.execute(
        update(OutboxMessage)
        .where(OutboxMessage.recipient == account.email, OutboxMessage.status.in_(sources(OutboxStatus.UNREACHABLE)))
        .values(status=OutboxStatus.UNREACHABLE)
    )
    seats = session.scalars(
        select(Seat)
        .join(Game, Game.id == Seat.game_id)
        .where(Seat.account_id == account.id, Game.status == GameStatus.ACTIVE)
    ).all()
    for seat in seats:
        game = session.get(Game, seat.game_id)
        rules = rules_of(game)
        if rules.late_kind == "bot":
            seat.missed_deadlines = max(seat.missed_deadlines or 0, rules.late_n)
            policy = "the bot plays for it from the next deadline on"
        elif rules.late_kind == "grace":
            policy = "at each deadline the game's grace periods, then its defaults, apply to it"
        else:
            policy = "at each deadline the game's defaults apply to it"
        line = f"{seat.public_label} cannot be reached by email (repeated delivery failures); {policy}."
        for other in game.seats:
            if other.id == seat.id or other.account.unreachable_since is not None:
                continue
            notify.queue_for_seat(
                uow, game, other, template="notice",
                subject=notify.subject_for(game, f"{seat.public_label} cannot be reached"),
                kind=EmailKind.NOTICE, headline=line, details=[],
            )  # fmt: skip


def heard_from(session: Session, account: Account) -> None:
    """The player wrote to us: the address works, so the count of hard bounces in a row restarts."""
    if account.hard_bounces:
        account.hard_bounces = 0


def clear(uow: UnitOfWork, account_id: int) -> None:
    """The admin vouches for the address again: mail resumes (later emails only)."""
    session = uow.session
    account = session.get(Account, account_id)
    if account is not None:
        account.unreachable_since = None
        account.hard_bounces = 0


def unreachable_accounts(uow: UnitOfWork, limit: int = 100) -> list[Account]:
    """For the admin console: addresses no longer mailed, newest first."""
    session = uow.session
    query = (
        select(Account)
        .where(Account.unreachable_since.is_not(None))
        .order_by(Account.unreachable_since.desc())
        .limit(limit)
    )
    return list(session.scalars(query))
