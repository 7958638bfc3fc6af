"""Notification preferences per account: every turn, only my turn, or a daily digest.

``every`` (the default) sends every email.  ``my_turn`` sends the table's news
(turn and mid-turn emails) only when the seat must act; receipts, welcomes,
reminders, late notices, press, the game-over email and every announcement of a
pause, resumption, extension or vacation always go, so nobody stalls a game
unseen.
``digest`` holds the news emails in the outbox (status ``held``) for the daily
digest (:mod:`pbem.services.mailout.digest`); the others go at once.

Rows a preference keeps back are still written (status ``held`` or
``suppressed``) so the admin can see what an account was not sent.  Every email
to a seat carries a footer saying how to change the preference: the ``notify``
mail command or a personal link ``/notify/<token>``, whose token is an HMAC of
the account id (no table, nothing to rotate but the server secret).
"""

from __future__ import annotations

import hashlib
import hmac
import html
import textwrap

from engines import get_engine
from pbem.models import Account, Game, Seat
from pbem.runtime import Runtime
from pbem.services import ServiceError

PREFERENCES = ("every", "my_turn", "digest")
#: Emails that only report the table's news; ``my_turn`` skips them while the seat need not act.
NEWS_KINDS = frozenset({"turn", "announce"})
#: Pauses, resumptions, extensions, vacations, moved deadlines: every player hears of them.
ANNOUNCEMENT_KINDS = frozenset({"admin"})
#: Emails a digest account gets in the digest rather than at once (press is news too).
DIGEST_KINDS = NEWS_KINDS | ANNOUNCEMENT_KINDS | {"press"}

COMMANDS = "notify every | notify my_turn | notify digest"
DESCRIPTIONS = {
    "every": "an email every turn",
    "my_turn": "emails only when you must act (plus receipts, press and the result)",
    "digest": "one daily digest across all your games (plus receipts, reminders and the result)",
}


def normalise(pref: str) -> str:
    """``every``, ``my_turn`` or ``digest`` (also accepts ``my-turn``, ``myturn``, ``daily``)."""
    word = (pref or "").strip().lower().replace("-", "_")
    word = {"myturn": "my_turn", "mine": "my_turn", "daily": "digest", "all": "every"}.get(word, word)
    if word not in PREFERENCES:
        raise ServiceError(f"{pref!r} is not a notification preference; choose one of: {', '.join(PREFERENCES)}")
    return word


def must_act(game: Game, seat: Seat) -> bool:
    return game.status == "active" and seat.seat in get_engine(game.engine).to_act(game.state)


def delivery_status(game: Game | None, seat: Seat | None, kind: str) -> str:
    """The outbox status an email of ``kind`` to ``seat`` starts with: pending, held or suppressed."""
    if game is None or seat is None or seat.account is None:
        return "pending"
    if seat.is_bot or seat.is_vacant:
        return "suppressed"  # the bot reads the game, not email; a vacant seat has nobody to read it
    if seat.resigned_at is not None and kind != "receipt":
        return "suppressed"  # a player who left hears only the answers to what they still send
    pref = seat.account.notify or "every"
    if pref == "digest" and kind in DIGEST_KINDS:
        return "held"
    if pref == "my_turn" and kind in NEWS_KINDS and not must_act(game, seat):
        return "suppressed"
    return "pending"


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
        words = html.escape(line.rsplit("\n", 1)[0].replace("\n", " ").replace(f"  {COMMANDS}", f" {COMMANDS}"))
        link = html.escape(url)
        paragraph = f'<p style="font-size: 0.8em; color: #555;">{words} <a href="{link}">{link}</a></p>'
        marker = body_html.rfind("</body>")
        body_html = body_html[:marker] + paragraph + body_html[marker:] if marker >= 0 else body_html + paragraph
    return text, body_html
