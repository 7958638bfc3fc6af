"""Creating games and the admin's actions on them."""

from __future__ import annotations

import datetime as dt
import secrets
import unicodedata
from collections.abc import Collection
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from engines import get_engine
from engines.base import Engine
from engines.rng import Rng
from pbem.clock import MAX_DURATION_SECONDS, format_duration, utcnow
from pbem.game_status import RUNNING, GameStatus, LogKind
from pbem.models import BOT_DOMAIN, Game, Seat, bot_address, is_bot_address, public_name
from pbem.runtime import UnitOfWork
from pbem.seating import who_plays
from pbem.services import NotFound, ServiceError
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.players import account_for, parse_player
from pbem.services.play import bot_seats, seat_changes
from pbem.services.play.deadline_hour import DeadlineHour, owed_at_hour
from pbem.services.play.house_rules import HouseRules, rules_of
from pbem.services.play.locking import lock_game
from pbem.services.play.settling import (
    append_log,
    engine_for,
    next_reminder,
    schedule_deadline,
    sync_summary,
    turn_seconds,
)
from pbem.tokens import new_token
from pbem.zoned import shared_words

#: The most seats the server's bot plays in one game.
MAX_BOTS = 12
#: Seeds are stored as signed 64-bit integers.
SEED_RANGE = (-(2**63), 2**63 - 1)
#: Unicode categories refused in a game name: control characters and line/paragraph separators.
_UNPRINTABLE = ("Cc", "Zl", "Zp")


@dataclass(frozen=True)
class NewGame:
    """A request to start a game, checked by :func:`create_game`."""

    engine: str
    players: list[str]
    variant: str | None = None
    name: str | None = None
    options: dict[str, Any] | None = None
    deadline_seconds: int | None = None
    per_phase: dict[str, int] | None = None
    #: The local time of day deadlines fall at (see :mod:`pbem.services.play.deadline_hour`).
    deadline_hour: DeadlineHour | None = None
    reminders: list[int] | None = None
    seed: int | None = None
    #: Seats left for players to take (``--open-seats``): the game starts when they are all taken.
    open_seats: int = 0
    #: Seats played by the server's bot (they get no email; see pbem.services.play.bot_seats).
    bots: int = 0


def check_request(request: NewGame) -> tuple[Any, str, dict[str, Any], list[tuple[str, str]]]:
    """Validate everything before touching the database, collecting every problem."""
    problems: list[str] = []
    try:
        engine = get_engine(request.engine)
    except ValueError as error:
        raise ServiceError(str(error)) from None
    variant, options, players = engine.default_variant, {}, []
    try:
        variant = engine.normalise_variant(request.variant)
    except ValueError as error:
        problems.append(str(error))
    try:
        options = engine.resolve_options(request.options)
    except ValueError as error:
        problems.append(str(error))
    for text in request.players:
        try:
            players.append(parse_player(text))
        except ServiceError as error:
            problems.append(str(error))
    emails = [email for _, email in players]
    duplicates = sorted({e for e in emails if emails.count(e) > 1})
    if duplicates:
        problems.append(f"each player needs a different address; repeated: {', '.join(duplicates)}")
    if not 0 <= request.bots <= MAX_BOTS:
        problems.append(f"the number of bot seats must be from 0 to {MAX_BOTS}")
    if any(is_bot_address(email) for email in emails):
        problems.append(f"addresses in {BOT_DOMAIN} are reserved for the bot; use --bot N for bot seats")
    try:
        engine.check_players(len(request.players) + request.open_seats + max(0, request.bots))
    except ValueError as error:
        problems.append(str(error))
    players += [(f"Bot {n}", bot_address(n)) for n in range(1, max(0, request.bots) + 1)]
    problems += _name_problems(request.name) + _seed_problems(request.seed) + _deadline_problems(engine, request)
    if problems:
        raise ServiceError("; ".join(problems))
    return engine, variant, options, players


def _name_problems(name: str | None) -> list[str]:
    """A game name goes into every subject line: one printable line only."""
    if name and any(unicodedata.category(ch) in _UNPRINTABLE for ch in name):
        return ["the game name must be one line of printable text (no line breaks, tabs or control characters)"]
    return []


def _seed_problems(seed: int | None) -> list[str]:
    low, high = SEED_RANGE
    if seed is not None and not low <= seed <= high:
        return [f"the seed must be a whole number from {low} to {high}"]
    return []


def _duration_problem(what: str, seconds: int) -> str | None:
    if seconds <= 0:
        return f"{what} must be a positive duration"
    if seconds > MAX_DURATION_SECONDS:
        return f"{what} may be at most 365 days"
    return None


def _deadline_problems(engine: Engine, request: NewGame) -> list[str]:
    """Durations in range, phase kinds the engine has, and reminders that can fire."""
    found: list[str | None] = []
    if request.deadline_seconds is not None:
        found.append(_duration_problem("the deadline", request.deadline_seconds))
    per_phase = dict(request.per_phase or {})
    unknown = sorted(kind for kind in per_phase if kind not in engine.phase_kinds)
    if unknown:
        found.append(
            f"{engine.name} has no phase kind {', '.join(map(repr, unknown))}; "
            f"its phase kinds are: {', '.join(engine.phase_kinds)}"
        )
    found += [_duration_problem(f"the deadline of phase {kind!r}", seconds) for kind, seconds in per_phase.items()]
    reminders = list(request.reminders or [])
    found += [_duration_problem("a reminder", seconds) for seconds in reminders]
    longest = max([request.deadline_seconds or 0, *per_phase.values()])
    useless = sorted({r for r in reminders if longest and r >= longest}, reverse=True)
    if useless:
        found.append(
            "a reminder must come before the deadline starts; "
            + ", ".join(format_duration(r) for r in useless)
            + f" is not shorter than the longest deadline ({format_duration(longest)})"
        )
    return [problem for problem in found if problem]


def create_game(uow: UnitOfWork, request: NewGame, rules: HouseRules | None = None) -> int:
    """Draw seats, set the engine up, store the house rules and queue every seat's welcome email,
    all in one transaction (``rules``: checked by ``house_rules.parse_rules``; None keeps the defaults)."""
    engine, variant, options, players = check_request(request)
    seed = request.seed if request.seed is not None else secrets.randbits(48)
    session = uow.session
    game = new_game_row(engine, request, variant, options, seed, rules)
    session.add(game)
    session.flush()
    if not request.name:
        game.name = f"{engine.title} #{game.id}"
    seat_and_start(uow, game, engine, players)
    return game.id


def new_game_row(
    engine: Engine, request: NewGame, variant: str, options: dict[str, Any], seed: int, rules: HouseRules | None
) -> Game:
    """The game's row before any seat is drawn (status ``active``; the caller may open it instead)."""
    policy: dict[str, Any] = {}
    if request.deadline_seconds:
        policy["default"] = request.deadline_seconds
    if request.per_phase:
        policy["per_phase"] = dict(request.per_phase)
    if request.deadline_hour is not None:
        policy["at"] = request.deadline_hour.to_json()
    if request.reminders is not None:
        policy["reminders"] = list(request.reminders)
    return Game(
        name=(request.name or "").strip()[:200] or f"{engine.title}",
        engine=engine.name,
        variant=variant,
        options=options,
        seed=seed,
        players=[],
        state={},
        deadline_policy=policy,
        status=GameStatus.ACTIVE,
        house_rules=rules.to_json() if rules is not None else {},
    )


def seat_and_start(uow: UnitOfWork, game: Game, engine: Engine, players: list[tuple[str, str]]) -> None:
    """Draw the seats from the game's seed, set the engine up and send every seat its first email."""
    session = uow.session
    order = list(range(len(players)))
    Rng(game.seed ^ 0xD8A3).shuffle(order)
    drawn = [players[i] for i in order]
    seat_names = engine.seat_names(len(drawn), game.variant)
    hidden = game.anonymous  # the engine's views name "Player N" only, even once the game is over
    names = [
        public_name("" if hidden else name, position, "" if hidden else email)
        for position, (name, email) in enumerate(drawn)
    ]
    step = engine.new_game(names, game.seed, game.variant, game.options)
    game.players, game.state, game.status = names, step.state, GameStatus.ACTIVE
    for position, ((name, email), seat_name) in enumerate(zip(drawn, seat_names, strict=True)):
        session.add(new_seat(game, account_for(session, email, name), seat_name, position))
    session.flush()
    sync_summary(engine, game)
    schedule_deadline(engine, game)
    session.refresh(game, ["seats"])
    notify.send_views(
        uow,
        game,
        headline=f"A game of {engine.title} has started.",
        kind=EmailKind.WELCOME,
        events=[*step.events, rules_line(game)],
        first=True,
    )
    bot_seats.nudge_if_due(uow, game, engine)


def new_seat(game: Game, account, seat_name: str, position: int) -> Seat:
    """A seat of ``game`` for ``account``, with fresh secret reply and web tokens."""
    return Seat(
        game=game,
        account=account,
        seat=seat_name,
        position=position,
        reply_token=new_token(),
        web_token=new_token(),
    )


def rules_line(game: Game) -> str:
    """The game's house rules in words, for the welcome email."""
    return "House rules: " + " ".join(rules_of(game).describe())


def locked_for(uow: UnitOfWork, game_id: int, action: str, allowed: Collection[str]) -> Game:
    """The game, locked for this transaction; refused in words unless its status is one of ``allowed``."""
    game = lock_game(uow.session, game_id)
    if game.status not in allowed:
        raise ServiceError(f"cannot {action} game {game_id}: it is {game.status}")
    return game


@contextmanager
def admin_action(uow: UnitOfWork, game_id: int, action: str, note: str, allowed: Collection[str]):
    """The game locked for an admin action, logged, refused in the wrong status."""
    game = locked_for(uow, game_id, action, allowed)
    append_log(uow.session, game, kind=LogKind.ADMIN, source="admin", text=f"{action}: {note}".strip(": "))
    yield game
    game.version += 1


def _announce(uow: UnitOfWork, game: Game, headline: str) -> None:
    notify.send_views(uow, game, headline=headline, kind=EmailKind.ADMIN)


def pause(uow: UnitOfWork, game_id: int, reason: str = "") -> None:
    """Stop the clock: the remaining time is kept and restored on resume."""
    with admin_action(uow, game_id, "pause", reason, {GameStatus.ACTIVE}) as game:
        if game.deadline:
            game.paused_remaining = max(0, int((game.deadline - utcnow()).total_seconds()))
        game.status, game.deadline, game.next_reminder = GameStatus.PAUSED, None, None
        _announce(uow, game, "The game is paused." + (f" ({reason})" if reason else ""))


def resume(uow: UnitOfWork, game_id: int) -> None:
    """Restart the clock with the time that was left (at least a minute), the deadline at the game's deadline
    hour if it has one (the first after that time: the players get all of it)."""
    with admin_action(uow, game_id, "resume", "", {GameStatus.PAUSED}) as game:
        game.status = GameStatus.ACTIVE
        if game.paused_remaining is not None:
            now = utcnow()
            left = now + dt.timedelta(seconds=max(game.paused_remaining, 60))
            at = DeadlineHour.of_game(game)
            move_deadline(game, owed_at_hour(left, turn_seconds(engine_for(game), game) or 0, at), now)
        else:
            schedule_deadline(engine_for(game), game)
        game.paused_remaining = None
        _announce(uow, game, "The game is resumed.")


def cancel(uow: UnitOfWork, game_id: int, reason: str = "") -> None:
    with admin_action(uow, game_id, "cancel", reason, RUNNING | {GameStatus.OPEN}) as game:
        game.status, game.deadline, game.next_reminder = GameStatus.CANCELLED, None, None
        game.finished_at = utcnow()
        headline = "The game is cancelled." + (f" The admin's reason: {reason}" if reason else "")
        notify.send_views(uow, game, headline=headline, kind=EmailKind.CANCELLED)


def extend_deadline(uow: UnitOfWork, game_id: int, seconds: int) -> dt.datetime:
    """Push the deadline back by ``seconds`` (from now if it has already passed)."""
    problem = _duration_problem("an extension", seconds)
    if problem:
        raise ServiceError(problem)
    with admin_action(uow, game_id, "extend", f"{seconds}s", {GameStatus.ACTIVE}) as game:
        now = utcnow()
        try:
            until = max(game.deadline or now, now) + dt.timedelta(seconds=seconds)
        except OverflowError:
            raise ServiceError("that extension would move the deadline past the end of the calendar") from None
        move_deadline(game, until, now)
        _announce(uow, game, f"The deadline is extended to {shared_words(game.deadline)}.")
        return game.deadline


def move_deadline(game: Game, until: dt.datetime, now: dt.datetime) -> None:
    """Move the current deadline to ``until`` (an extension, a grace period, a vacation).

    Reminders are tied to the deadline they warn of: the new deadline gets each
    reminder whose time before it is still ahead, except an offset already sent
    for the old deadline that moved by less than that offset (an hour's
    extension sends no second "a day before").  So a grace period or a vacation
    gets its hour-before reminder again, and an offset the old deadline was too
    close for gets its chance.
    """
    moved = (until - game.deadline).total_seconds() if game.deadline is not None else float("inf")
    game.reminders_sent = [offset for offset in game.reminders_sent or [] if offset > moved]
    game.deadline = until
    game.next_reminder = next_reminder(game, now)


def seat_by_name(game: Game, seat_name: str) -> Seat:
    for seat in game.seats:
        if seat.seat.lower() == seat_name.strip().lower():
            return seat
    raise NotFound(f"game {game.id} has no seat {seat_name!r}; seats: {', '.join(s.seat for s in game.seats)}")


def replace_player(uow: UnitOfWork, game_id: int, seat_name: str, player: str) -> None:
    """Give a seat to another player (see :func:`seat_changes.hand_over`): the departing player is
    told, the table hears who plays the seat now, and the newcomer gets the seat's view with an
    example reply for the phase the game is in."""
    name, email = parse_player(player)
    note = f"{seat_name} -> {email}"
    with admin_action(uow, game_id, "replace", note, RUNNING) as game:
        seat = seat_by_name(game, seat_name)
        if any(s.account.email == email and s is not seat for s in game.seats):
            raise ServiceError(f"{email} already plays in game {game_id}")
        if seat.account.email == email:
            raise ServiceError(f"{email} already plays {seat.seat} in game {game_id}")
        before, last_email = seat.public_label, seat.last_message_id
        had_player = who_plays(game.house_rules, seat).has_player
        departing = seat_changes.hand_over(uow, game, seat, account_for(uow.session, email, name))
        if had_player:  # the bot reads no email; a player who left was told when they left
            why = f"The admin gave the seat to another player; {seat.public_player} plays it from now on."
            seat_changes.tell_departing(uow, game, seat, departing, last_email, why)
        headline = f"{seat.public_label} takes over from {before}."
        notify.send_views(uow, game, headline=headline, kind=EmailKind.ADMIN, told=seat)
        notify.queue_for_seat(
            uow,
            game,
            seat,
            template="turn",
            kind=EmailKind.TAKEOVER,
            headline=f"You have taken over the seat {seat.seat} in {game.name}, from {before}.",
            events=[],
            missed=[],
        )


def rotate_tokens(uow: UnitOfWork, game_id: int, seat_name: str) -> None:
    allowed = RUNNING | {GameStatus.FINISHED}
    with admin_action(uow, game_id, "rotate", seat_name, allowed) as game:
        seat_changes.rotate_tokens_of(seat_by_name(game, seat_name))


def game_ids(uow: UnitOfWork) -> list[int]:
    session = uow.session
    return list(session.scalars(select(Game.id).order_by(Game.id)))
