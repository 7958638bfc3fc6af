"""One conversation per seat and game, in every mail client.

Gmail threads by normalised subject plus ``References``; Apple Mail,
Thunderbird and Outlook by ``References``/``In-Reply-To`` (Outlook also by
``Thread-Topic``).  So every email to a seat carries the game's name as its
subject (``Re: <name>`` on an answer to the player's own message) and names in
its ``References`` the seat's first email, the previous one, and the player's
message it answers.  Each of our Message-IDs names the turn it
was written in, so a reply tells which turn's email it answered.
"""

from __future__ import annotations

import re
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from pbem.models import Game, LogEntry, Seat
from pbem.runtime import Runtime, UnitOfWork
from pbem.services.mailout import mailing

#: References kept within one transaction's emails: the thread's first email and the newest ones.
MAX_REFERENCES = 20
#: ``<game-3-t12-…@domain>`` and ``<press-9-t12-…@domain>``: an email written in turn 12.
_TURN_IN_ID = re.compile(r"<(?:game|press)-\d+-t(\d+)-[0-9a-f]+@")
#: A seat's thread root: ``<game-3-seat-7-9f2c4e1a0b3d5c6e@domain>`` (``-start@`` for seats made
#: before roots were random).
_ROOT = re.compile(r"<game-(\d+)-seat-\d+-(?:start|[0-9a-f]{16})@")


def subject(game: Game, *, answer: bool = False) -> str:
    """The one subject of a game's thread: its name (``Re:`` on an answer to the player)."""
    return f"Re: {game.name}" if answer else game.name


def root(runtime: Runtime, game: Game, seat: Seat) -> str:
    """The Message-ID of a seat's first email; every later one refers to it.

    Its random part (stored with the seat) means a fresh database, a reinstall or a
    staging server on the same domain never repeats an id a player's mailbox holds:
    Gmail drops a message whose Message-ID it has seen, and a client would thread a
    new game into an old one.
    """
    return f"<game-{game.id}-seat-{seat.id}-{seat.thread_key or 'start'}@{runtime.settings.mail_domain}>"


def message_id(runtime: Runtime, game: Game, label: str = "game", number: int | None = None) -> str:
    """A fresh Message-ID that names the game (or press ``number``) and its current turn."""
    number = game.id if number is None else number
    return f"<{label}-{number}-t{game.turn}-{secrets.token_hex(8)}@{runtime.settings.mail_domain}>"


def turn_of(session: Session, reference: str | None) -> int | None:
    """The turn in which our email ``reference`` was written (None if it is not one of ours)."""
    match = _TURN_IN_ID.match(reference or "")
    if match:
        return int(match.group(1))
    match = _ROOT.match(reference or "")
    if match:  # the first email of a seat: the game's first turn
        first = select(LogEntry.turn).where(LogEntry.game_id == int(match.group(1))).order_by(LogEntry.seq).limit(1)
        found = session.scalar(first)
        if found is not None:
            return found
        game = session.get(Game, int(match.group(1)))
        return game.turn if game else None
    return None


def _chain(uow: UnitOfWork, game: Game, seat: Seat) -> list[str]:
    """The References of the seat's next email: the seat's first email and its newest.

    Naming both is enough for every client to hang the email under the one
    before, in the one conversation, and it costs no look-up of the previous
    email's own chain (RFC 5322 lets a chain be trimmed to its ends).  Emails
    written in one transaction extend the chain in hand (see :func:`advance`).
    """
    chains = mailing.of(uow.session).chains
    if seat.id in chains:
        return list(chains[seat.id])
    first = root(uow.runtime, game, seat)
    last = seat.last_message_id
    return [first] if not last or last == first else [first, last]


def headers(uow: UnitOfWork, game: Game, seat: Seat, message_id: str, answers: list[str]) -> dict[str, str]:
    """``In-Reply-To``, ``References`` and ``Thread-Topic`` of the seat's next email.

    ``answers`` are the player's own messages this email answers (their receipts):
    it replies to the newest of them, else to the seat's previous email.
    """
    out = {"Thread-Topic": game.name}
    first = root(uow.runtime, game, seat)
    if message_id == first:
        return out
    chain = _chain(uow, game, seat)
    for reference in answers:
        if reference not in chain:
            chain.append(reference)
    if len(chain) > MAX_REFERENCES:
        chain = [chain[0], *chain[-(MAX_REFERENCES - 1) :]]
    out["In-Reply-To"] = answers[-1] if answers else chain[-1]
    out["References"] = " ".join(chain)
    return out


def advance(session: Session, seat: Seat, message_id: str, references: str | None) -> None:
    """``message_id`` is now the seat's newest email: the next one follows it."""
    mailing.of(session).extend_thread(seat, [*(references or "").split(), message_id])
