"""Creating games and the admin's actions on them."""

from __future__ import annotations

import datetime as dt
import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from engines import get_engine
from engines.rng import Rng
from pbem.clock import utcnow
from pbem.models import Game, Seat
from pbem.runtime import Runtime
from pbem.services import NotFound, ServiceError, notify
from pbem.services.locking import lock_game
from pbem.services.players import account_for, parse_player
from pbem.services.progress import append_log, engine_for, next_reminder, schedule_deadline, sync_summary
from pbem.tokens import new_token


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
    reminders: list[int] | None = None
    seed: int | None = None


def _checked(request: NewGame) -> tuple[Any, str, dict[str, Any], list[tuple[str, str]]]:
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
    try:
        engine.check_players(len(request.players))
    except ValueError as error:
        problems.append(str(error))
    if request.deadline_seconds is not None and request.deadline_seconds <= 0:
        problems.append("the deadline must be a positive duration")
    if problems:
        raise ServiceError("; ".join(problems))
    return engine, variant, options, players


def create_game(runtime: Runtime, request: NewGame) -> int:
    """Draw seats, set the engine up and queue every seat's welcome email, in one transaction."""
    engine, variant, options, players = _checked(request)
    seed = request.seed if request.seed is not None else secrets.randbits(48)
    order = list(range(len(players)))
    Rng(seed ^ 0xD8A3).shuffle(order)
    drawn = [players[i] for i in order]
    seat_names = engine.seat_names(len(drawn), variant)
    names = [name or email.split("@")[0] for name, email in drawn]
    step = engine.new_game(names, seed, variant, options)
    policy: dict[str, Any] = {}
    if request.deadline_seconds:
        policy["default"] = request.deadline_seconds
    if request.per_phase:
        policy["per_phase"] = dict(request.per_phase)
    if request.reminders is not None:
        policy["reminders"] = list(request.reminders)
    with runtime.db.write() as session:
        game = Game(
            name=(request.name or "").strip()[:200] or f"{engine.title}",
            engine=engine.name,
            variant=variant,
            options=options,
            seed=seed,
            players=names,
            state=step.state,
            deadline_policy=policy,
            status="active",
        )
        session.add(game)
        session.flush()
        if not request.name:
            game.name = f"{engine.title} #{game.id}"
        for position, ((name, email), seat_name) in enumerate(zip(drawn, seat_names, strict=True)):
            account = account_for(session, email, name)
            session.add(
                Seat(
                    game=game,
                    account=account,
                    seat=seat_name,
                    position=position,
                    reply_token=new_token(),
                    web_token=new_token(),
                )
            )
        session.flush()
        sync_summary(engine, game)
        game.thread_id = f"game-{game.id}"
        schedule_deadline(engine, game)
        session.refresh(game, ["seats"])
        notify.send_views(
            runtime,
            session,
            game,
            headline=f"A game of {engine.title} has started.",
            what="game started",
            kind="welcome",
            events=step.events,
            first=True,
        )
        return game.id


@contextmanager
def admin_action(runtime: Runtime, game_id: int, action: str, note: str, allowed: tuple[str, ...]):
    """A locked transaction for an admin action, logged, refused in the wrong status."""
    with runtime.db.write() as session:
        game = lock_game(session, game_id)
        if game.status not in allowed:
            raise ServiceError(f"cannot {action} game {game_id}: it is {game.status}")
        append_log(session, game, kind="admin", source="admin", text=f"{action}: {note}".strip(": "))
        yield session, game
        game.version += 1


def _announce(runtime: Runtime, session, game: Game, headline: str) -> None:
    notify.send_views(runtime, session, game, headline=headline, what=headline.rstrip("."), kind="admin")


def pause(runtime: Runtime, game_id: int, reason: str = "") -> None:
    """Stop the clock: the remaining time is kept and restored on resume."""
    with admin_action(runtime, game_id, "pause", reason, ("active",)) as (session, game):
        if game.deadline:
            game.paused_remaining = max(0, int((game.deadline - utcnow()).total_seconds()))
        game.status, game.deadline, game.next_reminder = "paused", None, None
        _announce(runtime, session, game, "The game is paused." + (f" ({reason})" if reason else ""))


def resume(runtime: Runtime, game_id: int) -> None:
    with admin_action(runtime, game_id, "resume", "", ("paused",)) as (session, game):
        game.status = "active"
        if game.paused_remaining is not None:
            game.deadline = utcnow() + dt.timedelta(seconds=max(game.paused_remaining, 60))
            game.next_reminder = next_reminder(game, utcnow())
        else:
            schedule_deadline(engine_for(game), game)
        game.paused_remaining = None
        _announce(runtime, session, game, "The game is resumed.")


def cancel(runtime: Runtime, game_id: int, reason: str = "") -> None:
    with admin_action(runtime, game_id, "cancel", reason, ("active", "paused")) as (session, game):
        game.status, game.deadline, game.next_reminder = "cancelled", None, None
        game.finished_at = utcnow()
        _announce(runtime, session, game, "The game is cancelled." + (f" ({reason})" if reason else ""))


def extend_deadline(runtime: Runtime, game_id: int, seconds: int) -> dt.datetime:
    if seconds <= 0:
        raise ServiceError("an extension must be a positive duration")
    with admin_action(runtime, game_id, "extend", f"{seconds}s", ("active",)) as (session, game):
        base = max(game.deadline or utcnow(), utcnow())
        game.deadline = base + dt.timedelta(seconds=seconds)
        game.next_reminder = next_reminder(game, utcnow())
        _announce(runtime, session, game, f"The deadline is extended to {game.deadline:%Y-%m-%d %H:%M} UTC.")
        return game.deadline


def seat_by_name(game: Game, seat_name: str) -> Seat:
    for seat in game.seats:
        if seat.seat.lower() == seat_name.strip().lower():
            return seat
    raise NotFound(f"game {game.id} has no seat {seat_name!r}; seats: {', '.join(s.seat for s in game.seats)}")


def replace_player(runtime: Runtime, game_id: int, seat_name: str, player: str) -> None:
    """Give a seat to another player; both of its secret tokens are rotated."""
    name, email = parse_player(player)
    note = f"{seat_name} -> {email}"
    with admin_action(runtime, game_id, "replace", note, ("active", "paused")) as (session, game):
        seat = seat_by_name(game, seat_name)
        if any(s.account.email == email and s is not seat for s in game.seats):
            raise ServiceError(f"{email} already plays in game {game_id}")
        seat.account = account_for(session, email, name)
        rotate_tokens_of(seat)
        context = notify.seat_view_context(game, seat)
        notify.queue(
            runtime,
            session,
            game=game,
            seat=seat,
            recipient=email,
            template="turn",
            subject=notify.subject_for(game, f"you now play {seat.seat}"),
            kind="welcome",
            headline=f"You have taken over the seat {seat.seat}.",
            events=[],
            missed=[],
            **context,
        )


def rotate_tokens_of(seat: Seat) -> None:
    seat.reply_token = new_token()
    seat.web_token = new_token()


def rotate_tokens(runtime: Runtime, game_id: int, seat_name: str) -> None:
    allowed = ("active", "paused", "finished")
    with admin_action(runtime, game_id, "rotate", seat_name, allowed) as (_session, game):
        rotate_tokens_of(seat_by_name(game, seat_name))


def game_ids(runtime: Runtime) -> list[int]:
    with runtime.db.read() as session:
        return list(session.scalars(select(Game.id).order_by(Game.id)))
