"""Every kind of email the server sends, and what each kind is: the one place that says so.

An email's kind (the outbox row's ``kind``) decides how it is delivered: whether
a ``my_turn`` player's email waits while they need not act (news), whether a
digest account gets it in the daily digest, whether the other news waiting for
the seat folds into it, whether it is rendered only when sent, whether a
backed-off player gets it within their weekly budget and whether a player who
chose ``none`` still gets it (an answer to their own message).  Each rule's set
of kinds (:mod:`~pbem.services.mailout.preferences`,
:mod:`~pbem.services.mailout.folds`, :mod:`~pbem.services.mailout.drafts`,
:mod:`~pbem.services.mailout.absence`) is read from :data:`KINDS`, so a new
kind is one entry here (and its templates): a kind left out of a set can no
longer be forgotten silently, and a test checks that every kind the code
queues and every ``kinds/<kind>`` template has its entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class EmailKind(StrEnum):
    """The kind of an outbox row (its ``kind`` column holds the value)."""

    WELCOME = "welcome"
    TURN = "turn"
    ANNOUNCE = "announce"
    VACATION = "vacation"
    ADMIN = "admin"
    REMINDER = "reminder"
    GAME_OVER = "game_over"
    CANCELLED = "cancelled"
    TAKEOVER = "takeover"
    MOVED = "moved"
    REMATCH = "rematch"
    PRESS = "press"
    LATE = "late"
    RECEIPT = "receipt"
    COMMANDS = "commands"
    ERROR = "error"
    FOREIGN_SENDER = "foreign_sender"
    HELD_SENDER_CHECK = "held_sender_check"
    RESEND = "resend"
    REPLACED = "replaced"
    ADDRESS = "address"
    NOTICE = "notice"
    JOIN_CONFIRM = "join_confirm"
    SIGNIN = "signin"
    DIGEST = "digest"
    OBSERVER_CONFIRM = "observer_confirm"
    OBSERVER_UPDATE = "observer_update"


#: The template shared by the emails that carry a seat's view (its ``kinds/<kind>`` one comes first where there is one).
TURN_TEMPLATE = "turn"


@dataclass(frozen=True)
class Kind:
    """What one kind of email is.

    ``template`` is the template the code renders it with (``None``: none of its own,
    as a resent copy or the weekly email that replaces another); ``own_template`` says
    a ``kinds/<kind>`` template comes before it.  ``news``: only reports the table's
    news (``my_turn`` keeps it while the seat need not act); ``announcement``: a
    change of the game's clock everyone hears of; ``answer``: answers the player's own
    message (sent even under ``none``); ``digest``: held for a digest account's daily
    digest; ``folds_into``: carries the seat's view, so the news waiting for the seat
    opens it; ``at_send``: rendered when sent, from its draft (:mod:`~pbem.services.mailout.drafts`);
    ``budgeted``: a backed-off seat gets it within its budget only
    (:mod:`~pbem.services.mailout.absence`).
    """

    kind: EmailKind
    template: str | None
    own_template: bool = False
    news: bool = False
    announcement: bool = False
    answer: bool = False
    digest: bool = False
    folds_into: bool = False
    at_send: bool = False
    budgeted: bool = False

    @property
    def can_unsubscribe(self) -> bool:
        """Whether the player's ``none`` stops it (an answer to their own message still goes)."""
        return not self.answer


_K = EmailKind
#: One entry per kind.
KINDS: dict[EmailKind, Kind] = {
    k.kind: k
    for k in (
        Kind(_K.WELCOME, TURN_TEMPLATE, own_template=True, folds_into=True),
        Kind(_K.TURN, TURN_TEMPLATE, news=True, digest=True, folds_into=True, at_send=True, budgeted=True),
        Kind(_K.ANNOUNCE, TURN_TEMPLATE, news=True, digest=True, folds_into=True, at_send=True, budgeted=True),
        Kind(_K.VACATION, TURN_TEMPLATE, news=True, digest=True, folds_into=True, at_send=True, budgeted=True),
        Kind(_K.ADMIN, TURN_TEMPLATE, announcement=True, digest=True, folds_into=True, at_send=True, budgeted=True),
        Kind(_K.REMINDER, TURN_TEMPLATE, own_template=True, folds_into=True, budgeted=True),
        Kind(_K.GAME_OVER, TURN_TEMPLATE, own_template=True, folds_into=True),
        Kind(_K.CANCELLED, TURN_TEMPLATE, own_template=True),
        Kind(_K.TAKEOVER, TURN_TEMPLATE, own_template=True),
        Kind(_K.MOVED, TURN_TEMPLATE, own_template=True),
        Kind(_K.REMATCH, TURN_TEMPLATE),
        Kind(_K.PRESS, "async_press", digest=True),
        Kind(_K.LATE, "async_late", digest=True, budgeted=True),
        Kind(_K.RECEIPT, "receipt", answer=True),
        Kind(_K.COMMANDS, "commands", answer=True),
        Kind(_K.ERROR, "error", answer=True),
        Kind(_K.FOREIGN_SENDER, "notice", answer=True),
        Kind(_K.HELD_SENDER_CHECK, "notice"),
        Kind(_K.RESEND, None, answer=True),
        Kind(_K.REPLACED, "notice"),
        Kind(_K.ADDRESS, "notice"),
        Kind(_K.NOTICE, "notice"),
        Kind(_K.JOIN_CONFIRM, "notice", own_template=True),
        Kind(_K.SIGNIN, "notice", own_template=True),
        Kind(_K.DIGEST, "async_digest"),
        Kind(_K.OBSERVER_CONFIRM, "async_observer"),
        Kind(_K.OBSERVER_UPDATE, "async_observer"),
    )
}


def where(**flags: bool) -> frozenset[str]:
    """The kinds (as the ``kind`` column's strings) whose entry has every one of ``flags``."""
    return frozenset(k.kind.value for k in KINDS.values() if all(getattr(k, f) == v for f, v in flags.items()))
