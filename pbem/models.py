"""The database: the single source of truth (design principle 2).

Every inbound message, applied order, state change and outgoing email is a row
written in the same transaction as the change it belongs to.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
import unicodedata
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from pbem.clock import utcnow
from pbem.game_status import OVER, GameStatus
from pbem.outbox_status import OutboxStatus


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


#: Seats played by the server's bot belong to accounts in this domain, which can never receive
#: mail (RFC 2606 reserves ``.invalid``), so no email is ever sent to them.
BOT_DOMAIN = "bot.invalid"
#: SQL for "the account is the bot's": a literal, so a partial index on it serves the query.
BOT_ACCOUNTS = f"email LIKE '%@{BOT_DOMAIN}'"


class Account(Base):
    """A player, known by email address."""

    __tablename__ = "accounts"
    # The bot's accounts, so finding its seats never scans every player (the predicate is
    # :data:`BOT_ACCOUNTS`, written the same in queries so the planner matches it).
    __table_args__ = (
        Index("ix_accounts_bot", "id", postgresql_where=text(BOT_ACCOUNTS), sqlite_where=text(BOT_ACCOUNTS)),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    #: The display name chosen on ``/me/profile``, folded (:func:`pbem.services.people.names.name_key`): unique.
    name_key: Mapped[str | None] = mapped_column(String(100), unique=True, index=True)
    #: ``default`` (each game's own: see :mod:`pbem.services.mailout.preferences`), ``every``,
    #: ``my_turn`` or ``digest``, for every game; a seat may override it for its game.
    notify: Mapped[str] = mapped_column(String(20), default="default")
    bounces: Mapped[int] = mapped_column(Integer, default=0)
    last_bounce: Mapped[str | None] = mapped_column(Text)
    #: Hard bounces in a row (a message the player sends resets it); at the limit the address is unreachable.
    hard_bounces: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: Set when mail to the address stopped for repeated hard bounces (cleared by the admin).
    unreachable_since: Mapped[dt.datetime | None] = mapped_column(DateTime)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    #: When one of the player's seats was backed off for missed deadlines (:mod:`pbem.services.mailout.absence`);
    #: cleared by their next orders in any game or a seat they take.  A game that seats them while it is set
    #: starts backed off for them too: a player absent from every game is not mailed afresh by each new one.
    absent_since: Mapped[dt.datetime | None] = mapped_column(DateTime)
    #: IANA time zone in which the player reads deadlines (``/me``); stored times stay UTC.
    tz: Mapped[str] = mapped_column(String(64), default="UTC", server_default="UTC")
    #: Secret of the player's deadline calendar link (``/me/deadlines.ics``); None until first shown.
    calendar_token: Mapped[str | None] = mapped_column(String(64), unique=True)

    @property
    def display(self) -> str:
        return self.name or self.email.split("@")[0]

    @property
    def handle(self) -> str:
        """The name of the player's public page (``/players/<handle>``)."""
        return player_handle(self.name, self.id)


def name_slug(name: str | None) -> str:
    """``Zoë  Smith`` -> ``zoe-smith``: the readable part of a player's page name."""
    ascii_name = unicodedata.normalize("NFKD", name or "").encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:40]


def player_handle(name: str | None, account_id: int) -> str:
    """``ann-12``: the id keeps a player's page name unique and stable, the name readable."""
    return f"{name_slug(name) or 'player'}-{account_id}"


class AdminUser(Base):
    __tablename__ = "admin_users"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(String(300))
    #: Raised at log-out: every session cookie issued before stops working.
    session_epoch: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Game(Base):
    __tablename__ = "games"
    # Lists of games page by id, newest first, within a status (keyset pagination).
    __table_args__ = (Index("ix_games_status_id", "status", "id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    engine: Mapped[str] = mapped_column(String(50))
    variant: Mapped[str] = mapped_column(String(200))
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    seed: Mapped[int] = mapped_column(BigInteger)
    #: Display names in seat order, as given to the engine at set-up.
    players: Mapped[list[Any]] = mapped_column(default=list)
    #: A :class:`pbem.game_status.GameStatus`.
    status: Mapped[str] = mapped_column(String(20), default=GameStatus.ACTIVE, index=True)
    state: Mapped[dict[str, Any]] = mapped_column(default=dict)
    version: Mapped[int] = mapped_column(Integer, default=0)
    turn: Mapped[int] = mapped_column(Integer, default=0)
    phase: Mapped[str] = mapped_column(String(200), default="")
    #: {"default": seconds, "per_phase": {kind: seconds}, "reminders": [seconds before]}
    deadline_policy: Mapped[dict[str, Any]] = mapped_column(default=dict)
    deadline: Mapped[dt.datetime | None] = mapped_column(DateTime, index=True)
    next_reminder: Mapped[dt.datetime | None] = mapped_column(DateTime, index=True)
    reminders_sent: Mapped[list[Any]] = mapped_column(default=list)
    paused_remaining: Mapped[int | None] = mapped_column(Integer)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    #: Server-side rules of the table, not the engine's: press mode, late-player
    #: policy, vacation caps (see :mod:`pbem.services.play.house_rules`).
    house_rules: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: Grace periods already granted to late seats in the current turn.
    grace_used: Mapped[int] = mapped_column(Integer, default=0)
    #: The ``seq`` of the game's last log entry: the next entry is numbered from the locked row,
    #: without reading the log.
    log_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: For a game created with open seats: how many seats it has in all (it starts when they are taken).
    seats_wanted: Mapped[int | None] = mapped_column(Integer)
    #: For a rematch: the finished game whose table it was offered to (only they may take its seats).
    rematch_of: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    #: The player who made the game on the web or by mail (None: the admin or the command line).
    created_by: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", name="fk_games_created_by"), index=True)
    #: The secret of the game's invite link ``/invite/<code>``, for a game a player made.
    invite_code: Mapped[str | None] = mapped_column(String(32), unique=True, index=True)
    #: Seats taken only by the invite link (not listed in the lobby).
    invite_only: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    seats: Mapped[list[Seat]] = relationship(back_populates="game", order_by="Seat.position")

    @property
    def anonymous(self) -> bool:
        """See :func:`anonymous_game`."""
        return anonymous_game(self.house_rules, self.status)


def anonymous_game(house_rules: dict[str, Any] | None, status: str) -> bool:
    """Gunboat: a game without press (house rule ``press: none``) keeps its players anonymous to each
    other and to the public until it is over: pages, emails and the engine's views name seats and
    "Player N" only, never a player's name, page or address."""
    return (house_rules or {}).get("press") == "none" and status not in OVER


def public_name(name: str | None, position: int, email: str | None = None) -> str:
    """A player as everyone may read them: their chosen name, else their address's local part
    (``bob`` for bob@example.org; never the whole address), else "Player N"."""
    local = (email or "").rpartition("@")[0].strip() if "@" in (email or "") else ""
    return (name or "").strip() or local or f"Player {position + 1}"


def bot_address(number: int) -> str:
    return f"bot-{number}@{BOT_DOMAIN}"


def is_bot_address(email: str) -> bool:
    return email.lower().endswith("@" + BOT_DOMAIN)


def new_thread_key() -> str:
    """64 random bits for a seat's thread root."""
    return secrets.token_hex(8)


#: SQL for "the seat's player left" (see ``Seat.left_at``).
SEATS_LEFT = "left_at IS NOT NULL"


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        # The admin's late seats: the few with a missed deadline, not every seat.
        Index(
            "ix_seats_late",
            "missed_deadlines",
            postgresql_where=text("missed_deadlines > 0"),
            sqlite_where=text("missed_deadlines > 0"),
        ),
        # The seats whose player left: the sweep finds their games without reading every seat.
        Index("ix_seats_left", "game_id", postgresql_where=text(SEATS_LEFT), sqlite_where=text(SEATS_LEFT)),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    seat: Mapped[str] = mapped_column(String(50))
    position: Mapped[int] = mapped_column(Integer)
    reply_token: Mapped[str] = mapped_column(String(64), unique=True)
    web_token: Mapped[str] = mapped_column(String(64), unique=True)
    #: Message-ID of the last email sent to this seat, for In-Reply-To threading.
    last_message_id: Mapped[str | None] = mapped_column(String(300))
    #: The random part of the Message-ID of the seat's first email, the root of its thread, so no
    #: other server (or an earlier install on the same domain) ever used it; ``start`` for seats
    #: made before it was random.
    thread_key: Mapped[str] = mapped_column(String(32), default=new_thread_key, server_default="start")
    #: This game's notification choice, over the account's: ``my_turn`` (the one-click
    #: unsubscribe), ``none`` (no email but answers to the player's own), or ``every``/``digest``.
    notify: Mapped[str | None] = mapped_column(String(20))
    #: Deadlines missed in a row (the player's next orders reset it): what the late-seat rules read.
    missed_deadlines: Mapped[int] = mapped_column(Integer, default=0)
    #: Every deadline the seat's player missed, never reset: their reliability (see
    #: :mod:`pbem.services.people.reliability`).
    missed_total: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: When the seat's player left the game (see :mod:`pbem.seating`): the game's late-seat policy
    #: plays the seat from then on.  The account stays: it is who played the seat until then.
    left_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    #: Why they left: a :class:`pbem.seating.Left` (resigned, removed, dropped); set with ``left_at``.
    left_reason: Mapped[str | None] = mapped_column(String(20))
    #: The seat agrees to end the game drawn (its ``draw``; ``draw no`` withdraws): secret from the
    #: other seats, read by :mod:`pbem.services.play.draws`.
    draw_vote: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    game: Mapped[Game] = relationship(back_populates="seats")
    account: Mapped[Account] = relationship()

    @property
    def held_by_bot(self) -> bool:
        """Its account is the bot's (a ``--bot N`` seat): who plays it is :func:`pbem.seating.who_plays`'s answer."""
        return is_bot_address(self.account.email)

    @property
    def public_player(self) -> str:
        """The seat's player as the whole table may read them (a name, or "Player N"; always "Player N"
        while the game is anonymous)."""
        return shown_player(self, self.game.anonymous)

    @property
    def public_label(self) -> str:
        """``Suns (Ann)``: the seat and its player as announcements to the whole table name them."""
        return f"{self.seat} ({self.public_player})"


def shown_player(seat: Any, hidden: bool) -> str:
    """``seat``'s player as the public reads them: "Player N" in a game that hides its players
    (``hidden``: :attr:`Game.anonymous`), else their name (see :func:`public_name`)."""
    if hidden:
        return public_name("", seat.position)
    return public_name(seat.account.name, seat.position, seat.account.email)


def shown_handle(seat: Any, hidden: bool) -> str | None:
    """The name of ``seat``'s player's public page, unless the game hides its players."""
    return None if hidden else seat.account.handle


class LogEntry(Base):
    """The append-only game log: replaying it from the seed gives the stored state."""

    __tablename__ = "game_log"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    #: A :class:`pbem.game_status.LogKind`: order, timeout, relabel (what replay applies) or admin.
    kind: Mapped[str] = mapped_column(String(20))
    seat: Mapped[str | None] = mapped_column(String(50))
    text: Mapped[str] = mapped_column(Text, default="")
    #: email | web | admin | deadline | cli; bot (orders the bot played), defaults (the game's defaults for
    #: seats whose players left), player (a vacation, a resignation)
    source: Mapped[str] = mapped_column(String(20))
    turn: Mapped[int] = mapped_column(Integer, default=0)
    events: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


#: SQL for "a message answered (or not) at an unverified From:" (see ``stranger_emails``).
STRANGER_MESSAGES = "stranger_emails IS NOT NULL"


class InboundMessage(Base):
    """Raw bytes first, processed afterwards; the dedupe key makes redelivery harmless."""

    __tablename__ = "inbound_messages"
    # The rate limits count a sender's and a seat's recent messages for every message;
    # the strangers' budget sums the emails sent in answer to strangers lately.
    __table_args__ = (
        Index("ix_inbound_sender_processed", "sender", "processed_at"),
        Index("ix_inbound_seat_processed", "seat_id", "processed_at"),
        Index("ix_inbound_dedupe", "dedupe_key", unique=True),
        Index(
            "ix_inbound_strangers",
            "processed_at",
            postgresql_where=text(STRANGER_MESSAGES),
            sqlite_where=text(STRANGER_MESSAGES),
        ),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    #: The sender's Message-ID (or a synthetic one): a label, shared by copies for several recipients.
    message_id: Mapped[str] = mapped_column(String(500), index=True)
    #: The same message to the same recipient (:func:`pbem.mail.message.dedupe_key`); None: never deduped.
    dedupe_key: Mapped[str | None] = mapped_column(String(64))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    transport: Mapped[str] = mapped_column(String(20), default="smtp")
    envelope_from: Mapped[str | None] = mapped_column(String(320))
    envelope_to: Mapped[str | None] = mapped_column(String(320))
    #: pending | done | dropped | rejected | failed | held (a message to a seat whose sender check failed)
    status: Mapped[str] = mapped_column(String(20), default="pending", index=True)
    verdict: Mapped[str] = mapped_column(Text, default="")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id"))
    sender: Mapped[str | None] = mapped_column(String(320))
    received_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    processed_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    #: For a message whose answer goes to an unverified ``From:`` (to the server address, or refused when
    #: not from the seat's own player): the emails sent in answer (0: withheld); see ``ops.strangers``.
    stranger_emails: Mapped[int | None] = mapped_column(Integer)
    #: The trusted hop's verdicts (Authentication-Results): pass, fail, none ...; None: no trusted result.
    spf: Mapped[str | None] = mapped_column(String(20))
    dkim: Mapped[str | None] = mapped_column(String(20))
    dmarc: Mapped[str | None] = mapped_column(String(20))


#: An outbox row that still holds what it said: its text, or a draft or block to render it from
#: (:mod:`pbem.services.mailout.retention` drops them once the email is done with and old).
KEPT_BODY = "body_text <> '' OR fold IS NOT NULL"


class OutboxMessage(Base):
    """An email to send; its ``status`` moves as :mod:`pbem.outbox_status` allows (only ``pending`` is sent)."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index("ix_outbox_due", "status", "next_try_at"),
        # The oldest rows still holding a text, for the sweep's pruning: pruned rows leave the index.
        Index("ix_outbox_kept_bodies", "created_at", sqlite_where=text(KEPT_BODY), postgresql_where=text(KEPT_BODY)),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    recipient: Mapped[str] = mapped_column(String(320), index=True)
    subject: Mapped[str] = mapped_column(String(500))
    body_text: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str] = mapped_column(Text, default="")
    headers: Mapped[dict[str, Any]] = mapped_column(default=dict)
    message_id: Mapped[str] = mapped_column(String(300), unique=True)
    #: An :class:`~pbem.services.mailout.kinds.EmailKind` (what decides how it is delivered), checked as it is queued.
    kind: Mapped[str] = mapped_column(String(40), default="")
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    seat_id: Mapped[int | None] = mapped_column(ForeignKey("seats.id"))
    #: An :class:`~pbem.outbox_status.OutboxStatus`.
    status: Mapped[str] = mapped_column(String(20), default=OutboxStatus.PENDING)
    #: A deferred receipt or press, or waiting news: the block it shows at the top of the seat's next email.
    fold: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_try_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class PressMessage(Base):
    """Table talk: kept apart from the game log because it never changes the game."""

    __tablename__ = "press"
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    from_seat: Mapped[str] = mapped_column(String(50))
    #: The addressee's seat name, or None for a broadcast to every seat.
    to_seat: Mapped[str | None] = mapped_column(String(50))
    text: Mapped[str] = mapped_column(Text)
    signed: Mapped[bool] = mapped_column(default=True)
    turn: Mapped[int] = mapped_column(Integer, default=0)
    #: The press this one answers, if any (how an anonymous sender can be answered).
    reply_to_id: Mapped[int | None] = mapped_column(ForeignKey("press.id"))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Observer(Base):
    """Someone following a game's public updates by email; confirmed by a link first."""

    __tablename__ = "observers"
    __table_args__ = (
        UniqueConstraint("game_id", "email"),
        Index("ix_observers_address_key_asked", "address_key", "asked_at"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    email: Mapped[str] = mapped_column(String(320))
    #: The mailbox ``email`` reaches (:func:`pbem.services.mailout.budget.mailbox_key`): what its daily
    #: cap counts, so ``victim+1@`` and ``v.ictim@`` are one address to it.
    address_key: Mapped[str | None] = mapped_column(String(320))
    #: Secret of the confirmation and one-click stop links.
    token: Mapped[str] = mapped_column(String(64), unique=True)
    #: pending | active | stopped
    status: Mapped[str] = mapped_column(String(20), default="pending")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    asked_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    confirmed_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class Vacation(Base):
    """A declared absence: deadlines waiting on the seat move to its end."""

    __tablename__ = "vacations"
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    seat_id: Mapped[int] = mapped_column(ForeignKey("seats.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    days: Mapped[int] = mapped_column(Integer)
    starts_at: Mapped[dt.datetime] = mapped_column(DateTime)
    ends_at: Mapped[dt.datetime] = mapped_column(DateTime)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class SigninLink(Base):
    """A one-time sign-in link: the signed token carries ``nonce``; ``used_at`` makes it single use."""

    __tablename__ = "signin_links"
    __table_args__ = (Index("ix_signin_links_address_key_created", "address_key", "created_at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    #: The account signed in; None for a new address until the link is used (then the account is made).
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), index=True)
    #: The address the link was mailed to (the account's, or the new player's).
    address: Mapped[str | None] = mapped_column(String(320), index=True)
    #: The mailbox it reaches (:func:`pbem.services.mailout.budget.mailbox_key`): links per mailbox are counted.
    address_key: Mapped[str | None] = mapped_column(String(320))
    nonce: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    #: SHA-256 of the secret the asking browser holds in its session: only that browser can use the link.
    binding: Mapped[str | None] = mapped_column(String(64))
    #: SHA-256 of the short code in the email, typed back in the asking browser (another device's mail).
    code_hash: Mapped[str | None] = mapped_column(String(64))
    #: Wrong codes typed for this link by releases that counted them here (now the asking browser's
    #: :class:`SigninRequest` counts them); at :data:`pbem.services.mailout.signin.MAX_CODE_TRIES` it is spent.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class SigninRequest(Base):
    """A browser asked for a sign-in link to ``address``; the worker decides what is sent (``done_at``).

    Every request is kept alike, known address or not, so the web does the same work for both.
    A browser that asked for an address within a link's lifetime may use any link emailed to
    that address then: a link someone else asked for in the player's name still serves the player.
    """

    __tablename__ = "signin_requests"
    __table_args__ = (Index("ix_signin_requests_address", "address", "created_at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    #: The address asked for, normalised as accounts store it.
    address: Mapped[str] = mapped_column(String(320))
    #: SHA-256 of the secret the asking browser keeps in its session.
    binding: Mapped[str] = mapped_column(String(64), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    #: When the worker decided; None while pending (the sweep finds it).
    done_at: Mapped[dt.datetime | None] = mapped_column(DateTime, index=True)
    #: What it decided: ``sent``, ``unknown``, ``over budget``, for the admin.
    outcome: Mapped[str] = mapped_column(String(40), default="")
    #: Wrong codes typed in the asking browser (its code entry shuts at ``signin.MAX_CODE_TRIES``).
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class PlayerSession(Base):
    """A signed-in browser: the cookie holds a secret whose hash is here, so signing out ends it
    on the server, "sign out everywhere" ends every one, and an idle session lapses."""

    __tablename__ = "player_sessions"
    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_seen_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    ended_at: Mapped[dt.datetime | None] = mapped_column(DateTime)


class LobbyEntry(Base):
    """A player holding a seat of an open game before it starts (seats are drawn at the start)."""

    __tablename__ = "lobby_entries"
    __table_args__ = (UniqueConstraint("game_id", "account_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    joined_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    account: Mapped[Account] = relationship()


class JoinRequest(Base):
    """``join GAME`` by mail: the seat is taken only when a reply to the confirmation comes back."""

    __tablename__ = "join_requests"
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    email: Mapped[str] = mapped_column(String(320), index=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    #: pending | done
    status: Mapped[str] = mapped_column(String(20), default="pending")
    asked_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Rating(Base):
    """A player's skill at one engine (openskill's mu and sigma)."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("account_id", "engine"), Index("ix_ratings_engine_ordinal", "engine", "ordinal"))
    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    engine: Mapped[str] = mapped_column(String(50))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    #: The shown, conservative figure (mu - 3 sigma), kept for sorting the table.
    ordinal: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    account: Mapped[Account] = relationship()


class RatingChange(Base):
    """One player's rating change from one finished game (a game is rated once)."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("game_id", "account_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    engine: Mapped[str] = mapped_column(String(50))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class EngineFault(Base):
    """A game's engine raised where the contract allows only an order error (reading, checking or applying
    one order): the player's line was answered in words, the rest of the message applied, and the admin
    told (see :mod:`pbem.services.ops.engine_faults`)."""

    __tablename__ = "engine_faults"
    __table_args__ = (Index("ix_engine_faults_engine_created", "engine", "created_at"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    engine: Mapped[str] = mapped_column(String(50))
    #: The contract method that raised (``parse_order``, ``apply_order``...).
    method: Mapped[str] = mapped_column(String(40))
    #: ``Type: message`` of the exception, cut short.
    error: Mapped[str] = mapped_column(String(500))
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    seat: Mapped[str | None] = mapped_column(String(50))
    #: The line the player wrote (for the admin only).
    line: Mapped[str | None] = mapped_column(Text)
    #: Whether this fault was the one the admin was told of (the first of its kind in a while).
    told: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
