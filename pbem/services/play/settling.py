"""What happens after the game state changes: deadlines, endings, notifications."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from engines import get_engine
from engines.base import Engine
from pbem.clock import utcnow
from pbem.game_status import GameStatus
from pbem.models import Game, LogEntry
from pbem.runtime import UnitOfWork
from pbem.services.mailout import notify, observers
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people import ratings
from pbem.services.play import bot_seats
from pbem.services.play.deadline_hour import DeadlineHour, deadline_at_hour

DEFAULT_REMINDERS = (24 * 3600, 3600)
#: The log entry's insert, built once (every order writes one).
_LOG_INSERT = insert(LogEntry.__table__)


def next_seq(game: Game) -> int:
    """The next log position, counted on the game's row (which the caller holds locked)."""
    game.log_seq += 1
    return game.log_seq


def append_log(
    session: Session,
    game: Game,
    *,
    kind: str,
    source: str,
    seat: str | None = None,
    text: str = "",
    events: list[str] | None = None,
) -> None:
    """Write the game's next log entry, at once, in the caller's transaction.

    Beneath the ORM, on purpose: nothing reads an entry back in the transaction that makes it, and
    the ORM's insert (the id fetched back, the object tracked to the commit) cost an order more CPU
    than the statement (BENCHMARKS.md, "The log entry and the seats' newest Message-ID beneath the
    ORM").  The game's ``log_seq`` is counted on its locked row (:func:`next_seq`)."""
    values = {
        "game_id": game.id,
        "seq": next_seq(game),
        "kind": kind,
        "seat": seat,
        "text": text,
        "source": source,
        "turn": game.turn,
        "events": events or [],
        "created_at": utcnow(),
    }
    session.connection().execute(_LOG_INSERT, values)


def turn_seconds(engine: Engine, game: Game) -> int | None:
    """How long the current phase allows, by the engine or the game's policy."""
    policy: dict[str, Any] = game.deadline_policy or {}
    per_phase = policy.get("per_phase") or {}
    chosen = per_phase.get(engine.phase_key(game.state)) or policy.get("default")
    forced = engine.phase_deadline(game.state)
    if forced and chosen:
        return min(forced, chosen)  # a short window of the game's never outlasts the group's pace
    return forced or chosen


def schedule_deadline(engine: Engine, game: Game, now: dt.datetime | None = None) -> None:
    """Set the deadline and the first reminder for the turn that just started: the phase's length
    from now, at the game's deadline hour if it has one (:mod:`pbem.services.play.deadline_hour`)."""
    now = now or utcnow()
    seconds = turn_seconds(engine, game)
    at = DeadlineHour.of_game(game)
    game.deadline = deadline_at_hour(now, seconds, at) if seconds else None
    game.reminders_sent = []
    game.next_reminder = next_reminder(game, now)
    game.grace_used = 0  # grace periods are counted per turn


def reminder_offsets(game: Game) -> list[int]:
    policy = game.deadline_policy or {}
    return sorted(policy.get("reminders", DEFAULT_REMINDERS), reverse=True)


def next_reminder(game: Game, now: dt.datetime) -> dt.datetime | None:
    """The earliest reminder not yet sent whose time is still ahead of the deadline's start."""
    if game.deadline is None:
        return None
    total = (game.deadline - now).total_seconds()
    for offset in reminder_offsets(game):
        if offset in game.reminders_sent or offset >= total:
            continue
        return game.deadline - dt.timedelta(seconds=offset)
    return None


def sync_summary(engine: Engine, game: Game) -> None:
    game.turn = engine.turn(game.state)
    game.phase = engine.phase(game.state)
    game.version += 1


def settle(
    uow: UnitOfWork,
    game: Game,
    engine: Engine,
    *,
    old_turn: int,
    events: list[str],
    announce: bool,
    missed: list[str] | None = None,
    only: Collection[str] | None = None,
) -> None:
    """Finish the game, start a new turn, or announce, and queue the emails for it;
    nudge the bot if one of its seats must act now (or the defaults, if the table waits only for seats nobody plays).

    ``only``: the seats the news of a new turn or announcement asks to act; the others' emails
    wait for their next one (see :func:`pbem.services.mailout.notify.send_views`).  The end of the
    game always goes to everyone."""
    sync_summary(engine, game)
    outcome = engine.outcome(game.state)
    if outcome is not None:
        finish(uow, game, dict(outcome.to_json()), events=events, missed=missed)
        return
    if game.turn != old_turn or missed:
        schedule_deadline(engine, game)
        notify.send_views(
            uow,
            game,
            headline="",  # the email's first line names the turn and its phase
            kind=EmailKind.TURN,
            events=events,
            missed=missed or [],
            only=only,
        )
        observers.queue_updates(uow, game, headline=f"{game.phase}.", what=game.phase, events=events)
    elif announce:
        notify.send_views(
            uow,
            game,
            headline="News from the table.",
            kind=EmailKind.ANNOUNCE,
            events=events,
            only=only,
        )
    bot_seats.nudge_if_due(uow, game, engine)  # after the deadline is set: it may bring it to now


def finish(
    uow: UnitOfWork,
    game: Game,
    result: dict[str, Any],
    *,
    events: list[str],
    missed: list[str] | None = None,
) -> None:
    """End ``game`` with ``result`` (an outcome's JSON): the one way a game ends, whether the engine's
    rules end it or the table agrees a draw.  The clock stops, the ratings count it, and every seat
    and observer is told."""
    game.status = GameStatus.FINISHED
    game.result = result
    game.finished_at = utcnow()
    game.deadline = game.next_reminder = None
    ratings.rate_game(uow.session, game)
    headline = f"Game over. {result['summary']}"
    notify.send_views(uow, game, headline=headline, kind=EmailKind.GAME_OVER, events=events, missed=missed or [])
    observers.queue_updates(uow, game, headline=headline, what="game over", events=events)


def engine_for(game: Game) -> Engine:
    return get_engine(game.engine)
