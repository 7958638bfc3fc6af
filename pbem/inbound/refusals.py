"""Refusals without backscatter: who is told that a message was not applied.

``From:`` is forgeable, so a refusal goes only to a known player (an account
of this server); anyone else gets nothing.  When a stranger writes to a seat's
reply address, the seat's own player is told, once per rate window however
many such messages arrive.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.clock import utcnow
from pbem.inbound.context import Context, Reject
from pbem.models import Account, Game, OutboxMessage
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.ops import strangers


def span(seconds: int) -> str:
    """A window in the words a player reads: "an hour", "2 hours", "10 minutes"."""
    for unit, size in (("hour", 3600), ("minute", 60)):
        if seconds % size == 0:
            count = seconds // size
            return f"an {unit}" if count == 1 and unit == "hour" else f"{count} {unit}{'s' * (count != 1)}"
    return f"{seconds} seconds"


#: The kind of that notice: a seat's emails all carry the game's name as subject, so the kind is what finds it.
FOREIGN_KIND = EmailKind.FOREIGN_SENDER
FOREIGN_HEADLINE = "A message sent to your seat's reply address came from another address and was refused."


HELD_KIND = EmailKind.HELD_SENDER_CHECK
HELD_HEADLINE = (
    "A message from your address to your seat's reply address failed your mail domain's sender check "
    "(DMARC), so it was held: nothing in it was applied."
)


def _told_recently(ctx: Context, kind: EmailKind = FOREIGN_KIND) -> bool:
    """Whether the seat's player already heard of a refused sender within the rate window."""
    since = utcnow() - dt.timedelta(seconds=ctx.settings.mail_limits.window_seconds)
    query = select(OutboxMessage.id).where(
        OutboxMessage.seat_id == ctx.seat.id,
        OutboxMessage.kind == kind,
        OutboxMessage.created_at >= since,
    )
    with ctx.session.no_autoflush:
        return ctx.session.scalars(query.limit(1)).first() is not None


def known_player(session: Session, address: str) -> bool:
    """Whether ``address`` is a player's here (an account): anyone else is a stranger."""
    with session.no_autoflush:
        return session.scalars(select(Account.id).where(Account.email == address).limit(1)).first() is not None


def tell_owner(ctx: Context, owner: Account) -> None:
    """The seat's real player learns that someone else used their address (and from where), once per window."""
    if _told_recently(ctx):
        return
    game = ctx.session.get(Game, ctx.seat.game_id)
    notify.queue(
        ctx.uow,
        game=game,
        seat=ctx.seat,
        recipient=owner.email,
        template="notice",
        kind=FOREIGN_KIND,
        auto_reply=True,
        headline=FOREIGN_HEADLINE,
        details=[
            f"It came from: {ctx.sender}",
            "Further refused messages within "
            f"{span(ctx.settings.mail_limits.window_seconds)} are not reported one by one.",
            f"Your seat ({ctx.seat.seat}) only takes orders from: {owner.email}",
            "If you sent it, send it again from that address. If not, nothing changed; "
            "ask the game's admin to rotate your reply address if this repeats.",
        ],
    )


def tell_held(ctx: Context) -> None:
    """The seat's player learns that a message in their name was held (once per window), never what it said."""
    if _told_recently(ctx, HELD_KIND):
        return
    game = ctx.session.get(Game, ctx.seat.game_id)
    window = span(ctx.settings.mail_limits.window_seconds)
    notify.queue(
        ctx.uow,
        game=game,
        seat=ctx.seat,
        recipient=ctx.seat.account.email,
        template="notice",
        kind=HELD_KIND,
        auto_reply=True,
        headline=HELD_HEADLINE,
        details=[
            "If you did not send it, someone wrote in your name; nothing changed. Ask the game's admin to "
            "rotate your seat's reply address if this repeats.",
            "If you sent it, your mail left by a route your domain does not vouch for (a forwarder, another "
            "provider): send your orders from your private page below, or from your usual mail service.",
            f"Further held messages within {window} are not reported one by one.",
        ],
    )


def reply_refusal(ctx: Context, stop: Reject) -> None:
    """One reply listing every reason; threaded in the game only for the seat's own player.

    Only a known player is answered: a refusal sent to any ``From:`` would let a
    forger aim our mail at anyone (backscatter).  And since that ``From:`` may be
    forged too, a refusal to anyone but the seat's own player counts against the
    budget of answers (:mod:`pbem.services.ops.strangers`) like any other answer."""
    if not ctx.sender:
        return
    if not ctx.trusted:
        if not known_player(ctx.session, ctx.sender):
            return
        withheld = strangers.refusal(ctx.session, ctx.settings.stranger_budget, ctx.sender, 1)
        ctx.row.stranger_emails = 0 if withheld else 1
        if withheld:
            stop.reasons.append(withheld)
            return
    # The seat's own player sees their subject again; anyone else only the server's words (From: is forgeable).
    subject = ctx.subject if ctx.trusted and ctx.subject else "Your message was not applied"
    if not subject.lower().startswith("re:"):
        subject = f"Re: {subject}"
    if ctx.trusted and ctx.seat is not None:
        game = ctx.session.get(Game, ctx.seat.game_id)
        notify.queue(
            ctx.uow, game=game, seat=ctx.seat, recipient=ctx.seat.account.email,
            template="error", subject=subject[:300], kind=EmailKind.ERROR, in_reply_to=ctx.their_id, auto_reply=True,
            reasons=stop.reasons,
        )  # fmt: skip
        return
    notify.queue(
        ctx.uow, game=None, seat=None, recipient=ctx.sender,
        template="error", subject=subject[:300], kind=EmailKind.ERROR, in_reply_to=ctx.their_id, auto_reply=True,
        reasons=stop.reasons,
    )  # fmt: skip
