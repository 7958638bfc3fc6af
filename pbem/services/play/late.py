"""Late players: what a due deadline does, by the game's house rules.

:func:`pbem.services.play.deadlines.apply_deadline` asks, in this order:

1. :func:`postpone` — does the deadline wait?  It moves to a return window
   after the end of a vacation if a seat it waits for is on one, or (policy ``grace:N``) by one
   more deadline period while grace periods are left this turn.  Either way
   everyone is told and the game log gets an ``admin`` entry.
2. :func:`play_bots` — policy ``bot:N``: each missing seat that had already
   missed N deadlines in a row is played by the server's bot
   (:mod:`pbem.services.play.bot_turns`: a determinised search that sees only
   what the seat may see), seeded from the game seed and the log length, so
   the same game gives the same bot orders.  They are
   logged as ordinary ``order`` entries with source ``bot``: replay and
   ``pbem game verify`` treat them like any order.  The bot plays one decision
   per deadline and stops as soon as the player sends orders (that resets the
   seat's count of missed deadlines).
3. The engine's defaults (``apply_timeout``) for whoever is still missing.
4. :func:`drop_late_players` — house rule ``drop_after``: a player who has now
   missed that many deadlines in a row leaves the game (reason ``dropped``).

Only players are late: a seat whose player left is played by its stand-in
(:func:`pbem.seating.who_plays`) and never waited for, and the news says so.
Each late player reads what was played for their seat at the top of their next
email (:func:`tell_late_seats`).

Ready early: nothing waits for a deadline once every seat has acted — a turn
resolves the moment the engine's ``to_act`` is empty.  Where a phase has
optional actions, a seat says it is done with the engine's own order (e.g.
KidSprout's ``pass`` in the Excuse phase), so there is no server-side "done"
flag to keep in step with the engine.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from engines.base import Engine
from pbem.game_status import LogKind
from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.seating import (
    AT_DEADLINE_WORDS,
    STAND_IN_WORDS,
    AtDeadline,
    Left,
    Occupant,
    PlayedBy,
    at_deadline,
    bot_takes_over,
    left_of,
)
from pbem.services.mailout import folds, notify
from pbem.services.mailout.folds import Fold
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play import bot_turns, games, leaving, seat_changes, vacations
from pbem.services.play.deadline_hour import DeadlineHour, deadline_at_hour
from pbem.services.play.house_rules import rules_of
from pbem.services.play.settling import append_log, turn_seconds
from pbem.zoned import shared_words

#: A grace period when the game has no deadline period of its own (an admin-set deadline).
DEFAULT_PERIOD = 24 * 3600
#: At most this many bot orders for one seat at one deadline (a guard against an engine loop).
MAX_BOT_STEPS = 200


def seat_label(game: Game, seat_name: str) -> str:
    """``Suns (Ann)``: a seat by its name, as announcements to the whole table name it."""
    for seat in game.seats:
        if seat.seat == seat_name:
            return seat.public_label
    return seat_name


def _move_deadline(game: Game, until: dt.datetime, now: dt.datetime) -> None:
    """Move the deadline by the rule every move follows (see :func:`games.move_deadline`)."""
    games.move_deadline(game, until, now)
    game.version += 1


def postpone(uow: UnitOfWork, game: Game, engine: Engine, late: list[str], now: dt.datetime) -> bool:
    """Move the deadline for a vacation or a grace period; True if it moved (nothing else happens then).

    ``late``: the missing seats whose players are late (a seat nobody plays is never waited for).
    """
    if not late:
        return False
    labels = ", ".join(seat_label(game, name) for name in late)
    away = vacations.away_seats(uow.session, game, late, now)
    if away:
        back = max(away.values())
        until = vacations.held_until(game, back)
        _move_deadline(game, until, now)
        who = ", ".join(seat_label(game, name) for name in sorted(away))
        line = (
            f"The deadline passed; still missing: {labels}. {who} on vacation until {shared_words(back)}: "
            f"the deadline moves to {shared_words(until)}, {vacations.window_words(game)} after the return."
        )
        append_log(
            uow.session,
            game,
            kind=LogKind.ADMIN,
            source="deadline",
            text="vacation wait: " + ", ".join(sorted(away)),
            events=[line],
        )
        notify.send_views(uow, game, headline=line, kind=EmailKind.ADMIN, only=_asked(engine, late))
        return True
    rules = rules_of(game)
    if rules.late_kind == "grace" and (game.grace_used or 0) < rules.late_n:
        period = turn_seconds(engine, game) or DEFAULT_PERIOD
        game.grace_used = (game.grace_used or 0) + 1
        # A grace period is a phase's length more, at the game's deadline hour as any deadline.
        _move_deadline(game, deadline_at_hour(now, period, DeadlineHour.of_game(game)), now)
        line = (
            f"The deadline passed; missing: {labels}. Grace period {game.grace_used} of {rules.late_n}: "
            f"the deadline is extended to {shared_words(game.deadline)}."
        )
        append_log(
            uow.session,
            game,
            kind=LogKind.ADMIN,
            source="deadline",
            text=f"grace {game.grace_used}/{rules.late_n}: " + ", ".join(late),
            events=[line],
        )
        notify.send_views(uow, game, headline=line, kind=EmailKind.ADMIN, only=_asked(engine, late))
        return True
    return False


def _asked(engine: Engine, late: list[str]) -> list[str] | None:
    """Who a moved deadline's notice goes to: in a game played one seat at a time, the late seats
    it waits for (the others are asked nothing: their email waits for their next one); else all."""
    return late if engine.one_at_a_time else None


def bot_seats(game: Game, missing: list[str], stand_ins: dict[str, Occupant]) -> list[str]:
    """Missing seats the bot plays for now: those it plays anyway (a bot's seat, or one whose player left
    under ``bot:N``), and under ``bot:N`` a player's seat that had missed N deadlines before this one."""
    return [
        s.seat
        for s in game.seats
        if s.seat in missing
        and (
            (s.seat in stand_ins and stand_ins[s.seat].by is PlayedBy.BOT)
            or (s.seat not in stand_ins and bot_takes_over(game.house_rules, s))
        )
    ]


def play_bots(session: Session, game: Game, engine: Engine, seats: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Play one decision for each of ``seats``; returns (orders per seat, public events)."""
    played: dict[str, list[str]] = {}
    events: list[str] = []
    state = game.state
    start_turn = engine.turn(state)
    for seat in seats:
        for _ in range(MAX_BOT_STEPS):
            if engine.outcome(state) is not None or engine.turn(state) != start_turn:
                break
            if seat not in engine.to_act(state):
                break
            text, step = bot_turns.play_one(session, game, engine, seat)
            state = game.state
            played.setdefault(seat, []).append(text)
            events.extend(step.events)
    return played, events


def tell_late_seats(
    session: Session,
    game: Game,
    late: list[str],
    bot_played: dict[str, list[str]],
    default_events: list[str],
) -> None:
    """Each late player learns what was played for their seat (its own orders only), at the top of its next email."""
    rules = rules_of(game)
    for seat in game.seats:
        if seat.seat not in late or left_of(seat) is not None:  # one dropped now is told so instead
            continue
        if seat.seat in bot_played:
            headline = f"You missed the deadline; the bot played for {seat.seat}:"
            played = list(bot_played[seat.seat])
        else:
            headline = f"You missed the deadline; the game's defaults were applied for {seat.seat}."
            mine = [line for line in default_events if seat.seat.lower() in line.lower()]
            played = mine or ["(the engine's defaults; see What happened below)"]
        # the next deadline is a new turn's: no grace period used yet
        then = at_deadline(game.house_rules, seat, grace_used=0)
        notes = [
            f"If your orders are missing at the next deadline, {AT_DEADLINE_WORDS[then]}"
            + (" (until you send orders again)." if then is AtDeadline.BOT else ".")
        ]
        left = rules.late_n - seat.missed_deadlines
        if rules.late_kind == "bot" and left > 0:
            notes.append(
                f"If you miss {left} more deadline(s) in a row, a bot plays for you until you send orders again."
            )
        # no email of the deadline takes it when the seat chose fewer emails: then it goes alone
        data = {"headline": headline, "played": played, "notes": notes}
        folds.add(session, seat, Fold("late", data, sender=late_notice_alone))


def late_notice_alone(uow: UnitOfWork, seat: Seat, fold: Fold) -> None:
    """A late notice no email of the deadline took, as an email of its own."""
    notify.queue_for_seat(uow, seat.game, seat, template="async_late", kind=EmailKind.LATE, view=False, blocks=[fold])


def drop_late_players(uow: UnitOfWork, game: Game, late: list[str]) -> list[str]:
    """Late players who have now missed the house rules' ``drop_after`` deadlines in a row leave the game
    (reason ``dropped``): their links change and each is told; returns what the table reads of it."""
    limit = rules_of(game).drop_after
    lines = []
    for seat in game.seats:
        if not limit or seat.seat not in late or seat.missed_deadlines < limit:
            continue
        last_email = seat.last_message_id
        seat_changes.rotate_tokens_of(seat)
        occupant = leaving.leave(uow, game, seat, Left.DROPPED, f"drop: {seat.seat}", announce=False)
        lines.append(occupant.sentence(seat.public_label))
        why = (
            f"You missed {limit} deadline(s) in a row, so the game's house rules took you out of it; "
            f"{STAND_IN_WORDS[occupant.by].replace('for them', 'for the seat')} from now on."
        )
        seat_changes.tell_departing(uow, game, seat, seat.account, last_email, why)
    return lines
