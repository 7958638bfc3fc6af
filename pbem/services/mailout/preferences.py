"""Notification preferences: for every game (the account's) and for one game (the seat's).

An account chooses ``default``, ``every``, ``my_turn`` or ``digest``; a seat may
override it for its game with ``my_turn`` (what the one-click unsubscribe sets)
or ``none``.  ``default`` is each game's own: ``my_turn`` in games where one seat
moves at a time (the engine's ``one_at_a_time``), as on turn-based sites, and
``every`` in games of simultaneous phases.

``every`` sends every email.  ``my_turn`` sends the table's news (turn, news,
vacation and press emails) only when the seat must act: the news written while
it need not is kept (status ``waiting``, press ``deferred``) and opens the
seat's next email, "what happened since your last email"; a press that finds no
email within a day goes alone (:mod:`pbem.services.mailout.folds`).  Welcomes,
reminders, late notices, answers, the game-over email and announcements of a
pause, resumption or extension always go, so nobody stalls a game unseen.
``digest`` holds every email that asks nothing urgent — news, announcements, press and
late notices — (status ``held``) for the daily digest
(:mod:`pbem.services.mailout.digest`), which lists each game's deadline for the seat;
the others go at once but reminders: one goes alone only for a deadline that falls
before the next digest and that no digest has yet told (:func:`_digest_reminder`).  ``none`` sends
nothing of the game but answers to the player's own messages: they play on
their page and ``/me``.

Rows a preference keeps back are still written so the admin can see what an
account was not sent.  Every email to a seat says how to change the choice:
the ``notify`` mail command or a personal link ``/notify/<token>``, whose token
is an HMAC of the account id (no table, nothing to rotate but the server secret).
"""

from __future__ import annotations

import hashlib
import hmac
import html
import textwrap

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from engines import get_engine
from pbem.clock import next_digest, utcnow
from pbem.game_status import GameStatus
from pbem.models import Account, Game, OutboxMessage, Seat
from pbem.outbox_status import OutboxStatus
from pbem.runtime import Runtime
from pbem.seating import who_plays
from pbem.services import ServiceError
from pbem.services.mailout import kinds
from pbem.services.mailout.kinds import EmailKind

#: News a ``my_turn`` seat was not sent, told at the top of its next email (see :mod:`pbem.services.mailout.folds`).
WAITING = OutboxStatus.WAITING

#: An account's choices, for all its games.
PREFERENCES = ("default", "every", "my_turn", "digest")
#: A seat's own choices for its game, over the account's.
GAME_PREFERENCES = ("my_turn", "none")
#: Emails that only report the table's news; ``my_turn`` keeps them for the seat's next
#: email while it need not act.
NEWS_KINDS = kinds.where(news=True)
#: Pauses, resumptions, extensions, moved deadlines: every player hears of them.
ANNOUNCEMENT_KINDS = kinds.where(announcement=True)
#: Emails a digest account gets in the digest rather than at once: every one that asks nothing
#: urgent (press is news too; a late notice tells what was played, after the fact).
DIGEST_KINDS = kinds.where(digest=True)
#: What ``none`` still sends: answers to the player's own messages, and a warning that
#: someone else wrote from the seat's address.
ANSWER_KINDS = kinds.where(answer=True)

COMMANDS = "notify every | notify my_turn | notify digest | notify none"
DESCRIPTIONS = {
    "default": "each game's default: in games played one move at a time, emails only when it is your turn; "
    "in the others, an email every turn",
    "every": "an email every turn",
    "my_turn": "emails only when you must act, each with what happened since your last one",
    "digest": "one daily digest across all your games, with your deadlines and late notices "
    "(plus answers, the result, and a reminder only for a deadline due before the next digest)",
    "none": "no emails from this game but answers to the messages you send (play on your page)",
}
#: What an account may choose, for every game (the pages' choices).
ACCOUNT_CHOICES = {pref: DESCRIPTIONS[pref] for pref in PREFERENCES}
#: Words read as a choice.
_SYNONYMS = {
    "myturn": "my_turn",
    "mine": "my_turn",
    "daily": "digest",
    "all": "every",
    "off": "none",
    "stop": "none",
    "never": "none",
}


def normalise(pref: str, allowed: tuple[str, ...] = PREFERENCES) -> str:
    """One of ``allowed`` (also accepts ``my-turn``, ``myturn``, ``daily``, ``off``...)."""
    word = (pref or "").strip().lower().replace("-", "_")
    word = _SYNONYMS.get(word, word)
    if word not in allowed:
        raise ServiceError(f"{pref!r} is not a notification preference; choose one of: {', '.join(allowed)}")
    return word


def game_default(game: Game) -> str:
    """The engine's own default, else ``my_turn`` where one seat moves at a time and ``every`` elsewhere."""
    engine = get_engine(game.engine)
    return engine.notify_default or ("my_turn" if engine.one_at_a_time else "every")


def resolve(pref: str | None, game: Game | None) -> str:
    """A chosen preference as it applies in ``game`` (``default`` becomes the game's own)."""
    pref = pref or "default"
    if pref == "default":
        return game_default(game) if game is not None else "every"
    return pref


def effective(game: Game, seat: Seat) -> str:
    """What ``seat``'s player gets in ``game``: the seat's choice, else the account's, resolved."""
    account = seat.account
    return resolve(seat.notify or (account.notify if account is not None else None), game)


def must_act(game: Game, seat: Seat) -> bool:
    return game.status == GameStatus.ACTIVE and seat.seat in get_engine(game.engine).to_act(game.state)


def news_waits(game: Game, seat: Seat) -> bool:
    """News for ``seat`` waits for its next email: ``my_turn`` while it need not act."""
    return (
        who_plays(game.house_rules, seat).has_player and effective(game, seat) == "my_turn" and not must_act(game, seat)
    )


def delivery_status(session: Session, game: Game | None, seat: Seat | None, kind: str) -> str:
    """The outbox status an email of ``kind`` to ``seat`` starts with: pending, held, waiting or suppressed."""
    if game is None or seat is None or seat.account is None:
        return OutboxStatus.PENDING
    occupant = who_plays(game.house_rules, seat)
    if occupant.bot_seat or (occupant.left and kind != EmailKind.RECEIPT):
        # The bot reads the game, not email; a player who left hears only answers to what they send.
        return OutboxStatus.SUPPRESSED
    pref = effective(game, seat)
    if pref == "none":
        return OutboxStatus.PENDING if kind in ANSWER_KINDS else OutboxStatus.SUPPRESSED
    if pref == "digest" and kind in DIGEST_KINDS:
        return OutboxStatus.HELD
    if pref == "digest" and kind == EmailKind.REMINDER:
        return _digest_reminder(session, game, seat)
    if pref == "my_turn" and kind in NEWS_KINDS and not must_act(game, seat):
        return WAITING
    return OutboxStatus.PENDING


def _digest_reminder(session: Session, game: Game, seat: Seat) -> str:
    """The status of a reminder to a digest reader.

    The digest is their one email a day, and it lists the seat's deadline: a reminder of a
    turn a digest has already told them of is not sent (``suppressed``), nor one whose
    deadline comes after the next digest (``held``: that digest tells it).  Only a deadline
    that falls before the next digest, of a turn no digest has told (its news still held),
    gets its reminder alone: otherwise nothing would warn them in time.
    """
    told = not session.scalar(
        select(exists().where(OutboxMessage.seat_id == seat.id, OutboxMessage.status == OutboxStatus.HELD))
    )
    if told:
        return OutboxStatus.SUPPRESSED
    if game.deadline is not None and next_digest(utcnow()) < game.deadline:
        return OutboxStatus.HELD
    return OutboxStatus.PENDING


def _mac(secret_key: str, account_id: int) -> str:
    return hmac.new(secret_key.encode(), f"notify:{account_id}".encode(), hashlib.sha256).hexdigest()[:20]


def preference_token(secret_key: str, account_id: int) -> str:
    """The secret of an account's preferences link."""
    return f"{account_id}-{_mac(secret_key, account_id)}"


def account_id_from_token(secret_key: str, token: str) -> int | None:
    """The account id in a preferences token if its MAC is right, else None."""
    number, _, mac = (token or "").strip().partition("-")
    if not (number.isascii() and number.isdigit()) or len(number) > 12 or not mac.isascii():
        return None
    return int(number) if hmac.compare_digest(mac, _mac(secret_key, int(number))) else None


def preferences_url(runtime: Runtime, account: Account) -> str:
    """The account's personal preferences page, ``/notify/<token>``."""
    return f"{runtime.settings.base_url}/notify/{preference_token(runtime.settings.secret_key, account.id)}"


def footer_text(pref: str, url: str) -> str:
    """The sentence, wrapped for a 72-column reader, the link on a line of its own."""
    sentence = (
        f"Notifications: you get {DESCRIPTIONS.get(pref, DESCRIPTIONS['every'])}. "
        "To change this, reply with one of these lines:"
    )
    return "\n".join([*textwrap.wrap(sentence, 72), f"  {COMMANDS}", "or visit:", url])


def with_footer(text: str, body_html: str, pref: str, url: str) -> tuple[str, str]:
    """Add the "how to change it" footer unless the template already printed the link."""
    line = footer_text(pref, url)
    if url not in text:
        text = text.rstrip("\n") + "\n\n" + line + "\n"
    if body_html and url not in body_html:
        words = html.escape(line.rsplit("\n", 2)[0].replace("\n", " ").replace(f"  {COMMANDS}", f" {COMMANDS}"))
        link = html.escape(url)
        paragraph = f'<p style="font-size:13px;color:#555555">{words} <a href="{link}">your email settings</a>.</p>'
        marker = body_html.rfind("</body>")
        body_html = body_html[:marker] + paragraph + body_html[marker:] if marker >= 0 else body_html + paragraph
    return text, body_html
