"""Observers: anyone may follow a game's public updates by email, and by Atom feed.

An observer subscribes (``observe <game>`` to the server address, or a web
form), gets one confirmation email and is only sent updates once they follow
its link ``/observe/confirm/<token>``; so nobody can sign a stranger up.
Every update carries the one-click stop link ``/observe/stop/<token>``, also
as ``List-Unsubscribe`` (RFC 2369) with ``List-Unsubscribe-Post`` (RFC 8058).
A game's updates make one conversation: one subject, each in reply to the
subscription's confirmation email; the turn is the first line of each.

Observers are sent what the status page shows and nothing else: the engine's
public view and the public event lines; never a private view, never an order
of a sealed phase, never private press.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from engines import get_engine
from pbem.clock import utcnow
from pbem.engine_output import board_picture, html_board, safe_text
from pbem.game_status import RUNNING, LogKind
from pbem.models import Game, LogEntry, Observer
from pbem.runtime import Runtime, UnitOfWork
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import budget, notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.players import parse_player
from pbem.tokens import new_token

#: A pending subscription is confirmed by mail at most this often (nobody can flood an inbox).
RESEND_AFTER = dt.timedelta(hours=6)
MAX_OBSERVERS_PER_GAME = 500
#: A confirmation request unanswered this long no longer holds a place.
PENDING_LAPSES = dt.timedelta(days=2)
#: Confirmation emails one address may be sent in a day, whoever asks.
MAX_PENDING_PER_ADDRESS = 5


@dataclass(frozen=True)
class ObserverResult:
    """What became of a request, in words for the person who made it."""

    ok: bool
    message: str
    observer_id: int | None = None
    game_id: int | None = None


def urls(runtime: Runtime, observer: Observer) -> dict[str, str]:
    base = runtime.settings.base_url
    return {
        "confirm_url": f"{base}/observe/confirm/{observer.token}",
        "stop_url": f"{base}/observe/stop/{observer.token}",
        "feed_url": f"{base}/games/{observer.game_id}/feed.atom",
    }


def thread_root(runtime: Runtime, observer: Observer) -> str:
    """The Message-ID of a subscription's confirmation email, which every update refers to, so a
    game's updates make one conversation; from a hash of the secret (a new subscription, a new thread)."""
    mark = hashlib.sha256(f"observe:{observer.token}".encode()).hexdigest()[:16]
    return f"<observe-{observer.game_id}-{observer.id}-{mark}@{runtime.settings.mail_domain}>"


def update_subject(game: Game) -> str:
    """The one subject of a game's updates (the turn is the first line of each)."""
    return f"[{game.name}] public updates"


def subscribe(uow: UnitOfWork, game_id: int, email: str) -> ObserverResult:
    """Ask to follow a game; a confirmation email is queued (the token is never returned)."""
    try:
        _, address = parse_player(email)
    except ServiceError as error:
        return ObserverResult(False, str(error))
    session = uow.session
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    if game.status not in RUNNING:
        return ObserverResult(False, f"{game.name} is {game.status}; there is nothing more to follow")
    observer = session.scalars(
        select(Observer).where(Observer.game_id == game_id, Observer.email == address)
    ).one_or_none()
    now = utcnow()
    # The same answer whatever the address's state, so nobody can probe who follows a game.
    answer = f"If {address} does not follow {game.name} yet, a confirmation link is on its way there."
    if observer is not None and observer.status == "active":
        return ObserverResult(True, answer, observer.id, game_id)
    if observer is not None and observer.status == "pending" and now - observer.asked_at < RESEND_AFTER:
        return ObserverResult(True, answer, observer.id, game_id)
    if _asked_lately(session, address, now) >= MAX_PENDING_PER_ADDRESS:
        return ObserverResult(False, "too many follow requests for this address today; try again tomorrow")
    if not budget.overall_left(session):
        return ObserverResult(False, "the server is sending too many confirmations just now; try again in a while")
    if observer is None:
        if _taken_places(session, game_id, now) >= MAX_OBSERVERS_PER_GAME:
            return ObserverResult(False, f"{game.name} has as many observers as it can take")
        observer = Observer(game_id=game_id, email=address, address_key=budget.mailbox_key(address), token=new_token())
        session.add(observer)
    else:
        observer.token = new_token()
        observer.address_key = budget.mailbox_key(address)
    observer.status, observer.asked_at = "pending", now
    session.flush()
    notify.queue(
        uow,
        game=game,
        seat=None,
        recipient=address,
        template="async_observer",
        subject=f"[{game.name}] confirm that you want to follow this game",
        kind=EmailKind.OBSERVER_CONFIRM,
        message_id=thread_root(uow.runtime, observer),
        headline=f"Someone (we hope you) asked to follow {game.name} by email.",
        confirm=True,
        events=[],
        public_text="",
        **urls(uow.runtime, observer),
    )
    return ObserverResult(True, answer, observer.id, game_id)


def _taken_places(session: Session, game_id: int, now: dt.datetime) -> int:
    """Observers who follow the game, and requests still waiting for confirmation (stale ones lapse)."""
    return session.scalar(
        select(func.count(Observer.id)).where(
            Observer.game_id == game_id,
            or_(
                Observer.status == "active",
                and_(Observer.status == "pending", Observer.asked_at > now - PENDING_LAPSES),
            ),
        )
    )


def _asked_lately(session: Session, address: str, now: dt.datetime) -> int:
    """Confirmation requests sent to the mailbox ``address`` reaches in the last day, over all games and
    whatever ``+tag`` or dots it was written with (a forged From: costs little)."""
    return session.scalar(
        select(func.count(Observer.id)).where(
            Observer.address_key == budget.mailbox_key(address), Observer.asked_at > now - dt.timedelta(days=1)
        )
    )


def _by_token(session: Session, token: str) -> Observer | None:
    if not token or len(token) > 64:
        return None
    return session.scalars(select(Observer).where(Observer.token == token)).one_or_none()


def confirm(uow: UnitOfWork, token: str) -> ObserverResult:
    """Follow the confirmation link: the subscription becomes active."""
    session = uow.session
    observer = _by_token(session, token)
    if observer is None:
        return ObserverResult(False, "This link is not valid (it may be old); subscribe again.")
    game = session.get(Game, observer.game_id)
    if observer.status == "stopped":
        return ObserverResult(False, "You stopped following this game; subscribe again to restart.")
    if observer.status == "active":
        return ObserverResult(True, f"You already follow {game.name}.", observer.id, game.id)
    observer.status, observer.confirmed_at = "active", utcnow()
    return ObserverResult(True, f"You now follow {game.name} by email.", observer.id, game.id)


def unsubscribe(uow: UnitOfWork, token: str) -> ObserverResult:
    """The one-click stop: idempotent, and never tells a stranger anything."""
    session = uow.session
    observer = _by_token(session, token)
    if observer is None:
        return ObserverResult(False, "This link is not valid; you are not sent anything with it.")
    observer.status = "stopped"
    return ObserverResult(True, "You will not get any more emails about this game.", observer.id, observer.game_id)


def queue_updates(
    uow: UnitOfWork,
    game: Game,
    *,
    headline: str,
    what: str,
    events: Iterable[str] = (),
) -> int:
    """Queue the public update to every active observer (in the caller's transaction).

    The query does not flush the unit first: nothing a turn writes (the game, its log, the seats'
    emails) decides who observes, and a flush here would split the unit's rows into two writes
    each, the ones queued so far and the ones after (flushed once, at commit)."""
    query = select(Observer).where(Observer.game_id == game.id, Observer.status == "active").order_by(Observer.id)
    with uow.session.no_autoflush:
        observers = list(uow.session.scalars(query))
    if not observers:
        return 0
    engine = get_engine(game.engine)
    public = engine.public_view(game.state)
    public_text = safe_text(game.engine, public)
    public_html = html_board(game.engine, public)
    public_image = board_picture(game.engine, public)
    for observer in observers:
        links = urls(uow.runtime, observer)
        row = notify.queue(
            uow,
            game=game,
            seat=None,
            recipient=observer.email,
            template="async_observer",
            subject=update_subject(game),
            kind=EmailKind.OBSERVER_UPDATE,
            in_reply_to=thread_root(uow.runtime, observer),
            headline=headline,
            confirm=False,
            events=list(events),
            public_text=public_text,
            public_html=public_html,
            board_image=public_image,
            **links,
        )
        row.headers = {
            **row.headers,
            "List-Unsubscribe": f"<{links['stop_url']}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            "List-Id": f"game-{game.id}.{uow.settings.mail_domain}",
            "Precedence": "list",
        }
    return len(observers)


#: Characters XML 1.0 cannot carry at all, even escaped (C0 controls but tab and newlines, lone surrogates...).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with what XML cannot hold removed: one stray byte in a player's text must not break the feed."""
    return _NOT_XML.sub("", text)


def _iso(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def atom_feed(uow: UnitOfWork, game_id: int, base_url: str | None = None, limit: int = 50) -> str:
    """The status page as an Atom feed: public events only, newest first, escaped by the XML writer."""
    base = (base_url or uow.settings.base_url).rstrip("/")
    session = uow.session
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    entries = list(
        session.scalars(
            select(LogEntry).where(LogEntry.game_id == game_id).order_by(LogEntry.seq.desc()).limit(limit * 4)
        )
    )
    page = f"{base}/games/{game_id}"
    ns = "http://www.w3.org/2005/Atom"
    ET.register_namespace("", ns)
    feed = ET.Element(f"{{{ns}}}feed")
    ET.SubElement(feed, f"{{{ns}}}title").text = xml_text(f"{game.name} ({game.status})")
    ET.SubElement(feed, f"{{{ns}}}id").text = page
    ET.SubElement(feed, f"{{{ns}}}link", href=page)
    ET.SubElement(feed, f"{{{ns}}}link", rel="self", href=f"{page}/feed.atom")
    updated = entries[0].created_at if entries else game.created_at
    ET.SubElement(feed, f"{{{ns}}}updated").text = _iso(updated)
    author = ET.SubElement(feed, f"{{{ns}}}author")
    ET.SubElement(author, f"{{{ns}}}name").text = "pbem"
    shown = 0
    for entry in entries:
        lines = list(entry.events or [])
        if not lines and entry.kind == LogKind.ADMIN:
            # Admin notes may name addresses; only the action word is public.
            lines = [f"Admin: {entry.text.split(':', 1)[0]}."]
        if not lines:
            continue
        item = ET.SubElement(feed, f"{{{ns}}}entry")
        ET.SubElement(item, f"{{{ns}}}title").text = xml_text(f"Turn {entry.turn}: {lines[0]}"[:200])
        ET.SubElement(item, f"{{{ns}}}id").text = f"{page}#log-{entry.seq}"
        ET.SubElement(item, f"{{{ns}}}link", href=f"{page}#log-{entry.seq}")
        ET.SubElement(item, f"{{{ns}}}updated").text = _iso(entry.created_at)
        ET.SubElement(item, f"{{{ns}}}content", type="text").text = xml_text("\n".join(lines))
        shown += 1
        if shown >= limit:
            break
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode")


def observer_by_token(uow: UnitOfWork, token: str) -> dict[str, Any] | None:
    """What an observer's confirm/stop page shows (game and state, never the address); None if unknown."""
    observer = _by_token(uow.session, token)
    if observer is None:
        return None
    game = uow.session.get(Game, observer.game_id)
    return {"game_id": observer.game_id, "game": game.name if game else "", "status": observer.status}
