"""Press (table talk): messages between seats, sent through the game.

Press is kept in its own table, never in the game log, because it never changes
the game: replaying the log ignores it and ``pbem game verify`` is unaffected.
A private press is queued only to its addressee; a broadcast to every other
seat.  What a seat may read later (:func:`history_for_seat`) is every
broadcast plus the private press it sent or received; :func:`public_press` is
what the status page and observers may read: broadcasts only.

The game's house rules decide what is allowed (``press`` = full, public or
none) and whether the sender is named (signed) or not (anonymous).  An
anonymous sender can still be answered: a reply names the press it answers
(``press reply: ...`` on a reply to a press email) and goes to its sender
without telling the replier who that is.

Player text goes into the email body only (escaped in HTML by autoescaping),
never into a header: the subject names the sender's seat at most.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, or_, select

from pbem.clock import utcnow
from pbem.game_status import RUNNING
from pbem.models import Game, PressMessage, Seat
from pbem.runtime import UnitOfWork
from pbem.services.mailout import folds, notify, preferences, threads
from pbem.services.mailout.kinds import EmailKind
from pbem.services.mailout.press_mail import sender_label
from pbem.services.play.house_rules import rules_of
from pbem.services.play.locking import lock_game, seat_of_game
from pbem.services.play.queries import iso

MAX_PRESS_CHARS = 4000
ANONYMOUS_SENDER = "the anonymous sender"
#: Press one seat may send in an hour: table talk, not a flood of everyone's inbox.
MAX_PRESS_PER_HOUR = 30
#: Control characters but tab and line feed.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_PRESS_LINE = re.compile(r"^\s*press\s+([A-Za-z0-9_-]+)\s*:\s?(.*)$", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class PressResult:
    """The verdict on one press: ``message`` is for the sender."""

    ok: bool
    message: str
    press_id: int | None = None
    recipients: tuple[str, ...] = ()


def parse_press_line(line: str) -> tuple[str, str] | None:
    """``press all: hello`` -> ``("all", "hello")``; ``press Moons: hi`` -> ``("Moons", "hi")``;
    ``press reply: hi`` -> ``("reply", "hi")``; anything else -> None.  For the mail command handler."""
    match = _PRESS_LINE.match(line or "")
    if not match:
        return None
    return match.group(1), match.group(2).strip()


def strip_controls(text: str) -> str:
    """``text`` without control characters but tab and line feed: none belongs in an order or in press, and a
    stray one would reach views, feeds and logs."""
    return _CONTROL.sub("", text)


def clean_text(text: str) -> str:
    """Line endings normalised, control characters removed, outer blank space trimmed."""
    return strip_controls((text or "").replace("\r\n", "\n").replace("\r", "\n")).strip()


def _seat_named(game: Game, name: str) -> Seat | None:
    for seat in game.seats:
        if seat.seat.lower() == name.strip().lower():
            return seat
    return None


def send_press(
    uow: UnitOfWork,
    game_id: int,
    from_seat_id: int,
    to: str,
    text: str,
    *,
    reply_to_id: int | None = None,
    addressee_hidden: bool = False,
) -> PressResult:
    """Send press from a seat to ``"all"`` or one seat (by name), and queue its emails.

    Refusals (no press in this game, private press in a public-only game, an
    unknown seat, empty or too long text, a finished game) come back as
    ``ok=False`` with a sentence saying why; nothing is stored then.
    """
    body = clean_text(text)
    session = uow.session
    game = lock_game(session, game_id)
    sender = seat_of_game(session, game.id, from_seat_id)
    rules = rules_of(game)
    if game.status not in RUNNING:
        return PressResult(False, f"the game is {game.status}; press is closed")
    if rules.press == "none":
        return PressResult(False, "this game has no press")
    if not body:
        return PressResult(False, "the press is empty; write the message after the colon")
    if len(body) > MAX_PRESS_CHARS:
        return PressResult(False, f"the press is {len(body)} characters long; the limit is {MAX_PRESS_CHARS}")
    if _sent_lately(session, game.id, sender.seat) >= MAX_PRESS_PER_HOUR:
        return PressResult(False, f"you have sent {MAX_PRESS_PER_HOUR} press messages in the last hour; "
                                  "wait a while before the next")  # fmt: skip
    target = (to or "").strip()
    if target.lower() == "all":
        addressee = None
        recipients = [s for s in game.seats if s.id != sender.id]
    else:
        addressee = _seat_named(game, target)
        if addressee is None:
            names = ", ".join(s.seat for s in game.seats if s.id != sender.id)
            return PressResult(False, f"there is no seat {target!r}; write press all: or press SEAT: ({names})")
        if addressee.id == sender.id:
            return PressResult(False, "you cannot send press to yourself")
        if rules.press == "public":
            return PressResult(False, "this game allows public press only; write press all: ...")
        recipients = [addressee]
    press = PressMessage(
        game_id=game.id,
        from_seat=sender.seat,
        to_seat=addressee.seat if addressee else None,
        text=body,
        signed=rules.press_signed,
        turn=game.turn,
        reply_to_id=reply_to_id,
    )
    session.add(press)
    session.flush()
    for seat in recipients:
        _queue_press_email(uow, game, press, seat)
    names = tuple(s.seat for s in recipients)
    where = "every other seat" if addressee is None else addressee.seat
    if addressee_hidden:  # an answer to anonymous press: its sender stays unnamed
        where, names = ANONYMOUS_SENDER, ()
    return PressResult(True, f"press sent to {where}", press.id, names)


def _sent_lately(session, game_id: int, seat: str) -> int:
    since = utcnow() - dt.timedelta(hours=1)
    return session.scalar(
        select(func.count(PressMessage.id)).where(
            PressMessage.game_id == game_id, PressMessage.from_seat == seat, PressMessage.created_at > since
        )
    )


def _queue_press_email(uow: UnitOfWork, game: Game, press: PressMessage, seat: Seat) -> None:
    """The press in ``seat``'s mail: a block at the top of the seat's next email of this transaction
    (the turn that the sender's orders start, say), else an email of its own at the transaction's end,
    which for a seat whose player gets news only with their turn (``my_turn``) waits for its next one.

    Anonymous private press always comes alone: its only answer is a reply to its own email.
    """
    label = sender_label(game, press, seat.seat)
    private = press.to_seat is not None
    headline = ("Private press" if private else "Press to all seats") + f" from {label}:"
    foldable = press.signed or not private
    answer = f"press {press.from_seat}: " if private else "press all: "
    data = {"headline": headline, "text": press.text, "private": private, "answer": answer}
    fold = folds.Fold("press", data, sender=press_alone, alone={"press_id": press.id})
    if foldable:  # at the top of the seat's next email of this transaction, else alone at its end
        folds.add(uow.session, seat, fold)
    else:
        _press_email(uow, game, seat, fold)


def press_alone(uow: UnitOfWork, seat: Seat, fold: folds.Fold) -> None:
    """Press no email of the transaction took, as an email of its own: for a seat whose player gets news
    only with their turn (``my_turn``), waiting for its next email (or alone within a day)."""
    game = seat.game
    _press_email(uow, game, seat, fold, deferred=preferences.news_waits(game, seat))


def _press_email(uow: UnitOfWork, game: Game, seat: Seat, fold: folds.Fold, *, deferred: bool = False) -> None:
    """The press of ``fold`` as an email to ``seat`` (``deferred``: waiting for the seat's next email)."""
    notify.queue(
        uow,
        game=game,
        seat=seat,
        recipient=seat.account.email,
        template="async_press",
        kind=EmailKind.PRESS,
        message_id=threads.message_id(uow.runtime, game, "press", fold.alone["press_id"]),
        deferred=fold if deferred else None,
        headline=fold.data["headline"],
        press_text=fold.data["text"],
        private=fold.data["private"],
    )


def reply_to_press(uow: UnitOfWork, game_id: int, from_seat_id: int, press_id: int, text: str) -> PressResult:
    """Answer a press: privately to its sender if it was private, else to every seat."""
    session = uow.session
    press = session.get(PressMessage, press_id)
    seat = session.get(Seat, from_seat_id)
    visible = (
        press is not None
        and seat is not None
        and press.game_id == game_id
        and seat.game_id == game_id
        and (press.to_seat is None or press.to_seat == seat.seat)
        and press.from_seat != seat.seat
    )
    if not visible:
        return PressResult(False, "there is no press to reply to; write press all: or press SEAT:")
    to = "all" if press.to_seat is None else press.from_seat
    hidden = press.to_seat is not None and not press.signed
    return send_press(uow, game_id, from_seat_id, to, text, reply_to_id=press_id, addressee_hidden=hidden)


def addressee_label(press: PressMessage, answered: PressMessage | None, viewer: str | None) -> str:
    """Who a press went to, as ``viewer`` may know it: an answer to anonymous press names nobody."""
    if press.to_seat is None:
        return "all"
    anonymous = answered is not None and not answered.signed and answered.from_seat == press.to_seat
    if anonymous and viewer != press.to_seat:
        return ANONYMOUS_SENDER
    return press.to_seat


def _entry(game: Game, press: PressMessage, viewer: str | None, answered: PressMessage | None) -> dict[str, Any]:
    return {
        "id": press.id,
        "turn": press.turn,
        "at": iso(press.created_at),
        "from": sender_label(game, press, viewer),
        "to": addressee_label(press, answered, viewer),
        "private": press.to_seat is not None,
        "mine": viewer is not None and press.from_seat == viewer,
        "text": press.text,
    }


def _game(session, game_id: int) -> Game:
    from pbem.services.play.queries import load_game

    return load_game(session, game_id)


def history_for_seat(uow: UnitOfWork, game_id: int, seat_id: int) -> list[dict[str, Any]]:
    """The press a seat may read, oldest first: broadcasts and its own private press."""
    session = uow.session
    game = _game(session, game_id)
    seat = seat_of_game(session, game.id, seat_id)
    rows = session.scalars(
        select(PressMessage)
        .where(
            PressMessage.game_id == game_id,
            or_(
                PressMessage.to_seat.is_(None),
                PressMessage.to_seat == seat.seat,
                PressMessage.from_seat == seat.seat,
            ),
        )
        .order_by(PressMessage.id)
    )
    return _entries(session, game, list(rows), seat.seat)


def public_press(uow: UnitOfWork, game_id: int) -> list[dict[str, Any]]:
    """Broadcast press only, oldest first: what the status page may show."""
    session = uow.session
    game = _game(session, game_id)
    rows = session.scalars(
        select(PressMessage)
        .where(PressMessage.game_id == game_id, PressMessage.to_seat.is_(None))
        .order_by(PressMessage.id)
    )
    return _entries(session, game, list(rows), None)


def press_for_export(uow: UnitOfWork, game_id: int, *, full: bool) -> list[dict[str, Any]]:
    """Broadcast press, and with ``full`` (a finished game, or the admin) private press too.

    Senders who wrote anonymously stay anonymous in every export.
    """
    if not full:
        return public_press(uow, game_id)
    session = uow.session
    game = _game(session, game_id)
    rows = session.scalars(select(PressMessage).where(PressMessage.game_id == game_id).order_by(PressMessage.id))
    return _entries(session, game, list(rows), None)


def _entries(session, game: Game, rows: list[PressMessage], viewer: str | None) -> list[dict[str, Any]]:
    """Each press as ``viewer`` may read it, with the press it answers looked up once."""
    wanted = {row.reply_to_id for row in rows if row.reply_to_id}
    answered = {p.id: p for p in session.scalars(select(PressMessage).where(PressMessage.id.in_(wanted)))}
    return [_entry(game, row, viewer, answered.get(row.reply_to_id)) for row in rows]
