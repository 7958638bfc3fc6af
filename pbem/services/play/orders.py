"""Submitting orders from any channel (email, web, CLI) under the game's lock."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from engines.base import OrderError
from pbem.models import Game, Seat
from pbem.runtime import Runtime
from pbem.services import NotFound
from pbem.services.mailout import notify
from pbem.services.play.locking import lock_game
from pbem.services.play.progress import after_change, append_log, engine_for
from pbem.services.play.queries import status_text


@dataclass(frozen=True)
class Verdict:
    """One line of a submission and what became of it."""

    line: str
    ok: bool
    message: str

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "ok": self.ok, "message": self.message}


@dataclass(frozen=True)
class Reply:
    """Ask :func:`submit` to queue the emailed answer in the same transaction."""

    in_reply_to: str | None
    subject: str
    before: list[Verdict] = field(default_factory=list)
    after: list[Verdict] = field(default_factory=list)
    #: ``status`` lines: answered last, with the view as the orders left it.
    status: list[str] = field(default_factory=list)


@dataclass
class Submission:
    verdicts: list[Verdict]
    turn_changed: bool = False
    finished: bool = False


#: Control characters (all but tab) never belong in an order; a stray one would reach views, feeds and logs.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

STATUS_WORDS = {
    "paused": "the game is paused; orders are taken again when it resumes",
    "finished": "the game is over",
    "cancelled": "the game was cancelled",
}


def _apply_lines(engine, game: Game, seat: Seat, lines: list[str], session: Session, source: str):
    verdicts: list[Verdict] = []
    events: list[str] = []
    announce = False
    state = game.state
    for line in lines:
        if engine.outcome(state) is not None:
            verdicts.append(Verdict(line, False, "the game is over"))
            continue
        try:
            order = engine.parse_order(state, seat.seat, line)
            step = engine.apply_order(state, seat.seat, order)
        except OrderError as error:
            verdicts.append(Verdict(line, False, str(error)))
            continue
        state = step.state
        game.state = state
        text = engine.format_order(order)
        append_log(session, game, kind="order", source=source, seat=seat.seat, text=text, events=step.events)
        verdicts.append(Verdict(line, True, step.receipt or f"{text}: accepted"))
        events.extend(step.events)
        announce = announce or step.announce
    return verdicts, events, announce


def submit(
    runtime: Runtime,
    game_id: int,
    seat_id: int,
    lines: list[str],
    *,
    source: str,
    reply: Reply | None = None,
) -> Submission:
    """Apply each line in order; bad lines are refused, good ones kept, all in one transaction."""
    lines = [clean for clean in (_CONTROL.sub("", line).strip() for line in lines) if clean]
    with runtime.db.write() as session:
        game = lock_game(session, game_id)
        seat = session.get(Seat, seat_id)
        if seat is None or seat.game_id != game.id:
            raise NotFound("that seat does not play in this game")
        engine = engine_for(game)
        old_turn = game.turn
        if game.status != "active":
            verdicts = [Verdict(line, False, STATUS_WORDS.get(game.status, game.status)) for line in lines]
            events, announce = [], False
        else:
            verdicts, events, announce = _apply_lines(engine, game, seat, lines, session, source)
            if any(v.ok for v in verdicts):
                seat.missed_deadlines = 0
                after_change(runtime, session, game, engine, old_turn=old_turn, events=events, announce=announce)
        if reply is not None:
            queue_receipt(runtime, session, game, seat, reply, verdicts)
        return Submission(verdicts, turn_changed=game.turn != old_turn, finished=game.status == "finished")


def queue_receipt(
    runtime: Runtime, session: Session, game: Game, seat: Seat, reply: Reply, verdicts: list[Verdict]
) -> None:
    """The one answer to one message: every line with its verdict."""
    status = [Verdict(line, True, status_text(game, seat)) for line in reply.status]
    every = [*reply.before, *verdicts, *reply.after, *status]
    accepted = sum(v.ok for v in every)
    refused = len(every) - accepted
    headline = f"{accepted} line(s) accepted, {refused} refused." if every else "No orders found."
    subject = reply.subject if reply.subject.lower().startswith("re:") else f"Re: {reply.subject}"
    notify.queue_for_seat(
        runtime,
        session,
        game,
        seat,
        template="receipt",
        subject=subject[:300],
        kind="receipt",
        in_reply_to=reply.in_reply_to,
        auto_reply=True,
        headline=headline,
        verdicts=every,
        **({"prompt": ""} if status else {}),  # the status answer, last, already ends with it
    )
