"""Submitting orders from any channel (email, web, CLI) under the game's lock."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field

from engines.base import OrderError, State
from pbem.game_status import GameStatus, LogKind
from pbem.models import Game, Seat
from pbem.runtime import Runtime, UnitOfWork
from pbem.seating import left_of
from pbem.services.mailout import absence, folds, notify, preferences
from pbem.services.mailout.folds import Fold
from pbem.services.mailout.kinds import EmailKind
from pbem.services.play import engine_faults, forgiving, press
from pbem.services.play.locking import lock_game, seat_of_game
from pbem.services.play.queries import status_text
from pbem.services.play.resign import refusal
from pbem.services.play.settling import append_log, engine_for, settle


@dataclass(frozen=True)
class Verdict:
    """One line of a submission and what became of it."""

    line: str
    ok: bool
    message: str
    #: The command the line was (``press``, ``help``...), empty for an order.
    command: str = ""

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "ok": self.ok, "message": self.message}


@dataclass(frozen=True)
class Reply:
    """Ask :func:`submit` to queue the emailed answer in the same transaction."""

    in_reply_to: str | None
    before: list[Verdict] = field(default_factory=list)
    after: list[Verdict] = field(default_factory=list)
    #: ``status`` lines: answered last, with the view as the orders left it.
    status: list[str] = field(default_factory=list)
    #: Said first, e.g. that the player answered an earlier turn's email.
    warning: str | None = None


@dataclass
class Submission:
    verdicts: list[Verdict]
    turn_changed: bool = False
    finished: bool = False


STATUS_WORDS = {
    GameStatus.PAUSED: "the game is paused; orders are taken again when it resumes",
    GameStatus.FINISHED: "the game is over",
    GameStatus.CANCELLED: "the game was cancelled",
}


def _apply_lines(engine, game: Game, seat: Seat, lines: list[str], uow: UnitOfWork, source: str):
    session = uow.session
    verdicts: list[Verdict] = []
    events: list[str] = []
    announce = False
    state = game.state
    # A line the engine fails on is undone from these.  The snapshot is pickled: a copy made and read
    # in this process only, several times cheaper than a JSON text of the state, which every order paid.
    before, applied = pickle.dumps(state, pickle.HIGHEST_PROTOCOL), []
    for line in lines:
        method = "outcome"
        try:
            if engine.outcome(state) is not None:
                verdicts.append(Verdict(line, False, "the game is over"))
                continue
            method = "parse_order"
            order, ignored = forgiving.parse(engine, state, seat.seat, line)
            method = "apply_order"
            step = engine.apply_order(state, seat.seat, order)
            method = "format_order"
            text = engine.format_order(order)
        except OrderError as error:
            verdicts.append(Verdict(line, False, forgiving.refusal(engine, state, seat.seat, line, error)))
            continue
        except Exception as error:  # the engine broke its contract on this line: it costs this line only
            fault = engine_faults.Fault(engine.name, method, error, game_id=game.id, seat=seat.seat, line=line)
            state = _undo_fault(engine, game, seat, uow, fault, before, applied)
            verdicts.append(Verdict(line, False, engine_faults.ANSWER))
            continue
        state = step.state
        game.state = state
        applied.append(order)
        append_log(session, game, kind=LogKind.ORDER, source=source, seat=seat.seat, text=text, events=step.events)
        said = step.receipt or f"{text}: accepted"
        verdicts.append(Verdict(line, True, said + forgiving.ignored_note(ignored)))
        events.extend(step.events)
        announce = announce or step.announce
    return verdicts, events, announce


def _undo_fault(
    engine, game: Game, seat: Seat, uow: UnitOfWork, fault: engine_faults.Fault, before: bytes, applied: list
) -> State:
    """Record the fault and give back the state as the lines applied before it left it.

    The engine may have changed the state it was given before raising: the state is
    rebuilt from the message's starting state and the orders applied since, so nothing
    of the failed line is kept."""
    engine_faults.record(uow, fault)
    state = pickle.loads(before)  # the snapshot made by _apply_lines, in this process
    for order in applied:
        state = engine.apply_order(state, seat.seat, order).state
    game.state = state
    return state


def submit(
    uow: UnitOfWork,
    game_id: int,
    seat_id: int,
    lines: list[str],
    *,
    source: str,
    reply: Reply | None = None,
) -> Submission:
    """Apply each line in order; bad lines are refused, good ones kept, all in one transaction."""
    lines = [clean for clean in (press.strip_controls(line).strip() for line in lines) if clean]
    session = uow.session
    game = lock_game(session, game_id)
    seat = seat_of_game(session, game.id, seat_id)
    engine = engine_for(game)
    old_turn = game.turn
    left = left_of(seat)
    active = game.status == GameStatus.ACTIVE and left is None
    if not active:
        why = STATUS_WORDS.get(game.status, game.status) if left is None else refusal(left)
        verdicts = [Verdict(line, False, why) for line in lines]
        events, announce = [], False
    else:
        verdicts, events, announce = _apply_lines(engine, game, seat, lines, uow, source)
    if reply is not None:  # the seat's next email of this transaction shows it first, else it goes alone
        fold = receipt_fold(reply, verdicts, "your view follows in this email")
        fold.sender, fold.alone = receipt_alone, {"reply": reply, "verdicts": verdicts}
        folds.add(session, seat, fold)
    if active and any(v.ok for v in verdicts):
        absence.record_acted(seat)
        settle(uow, game, engine, old_turn=old_turn, events=events, announce=announce)
    return Submission(verdicts, turn_changed=game.turn != old_turn, finished=game.status == GameStatus.FINISHED)


def receipt_fold(reply: Reply, verdicts: list[Verdict], status: str) -> Fold:
    """The answer to one message as a block: every line with its verdict (``status`` lines answered with ``status``)."""
    every = [*reply.before, *verdicts, *reply.after, *(Verdict(line, True, status, "status") for line in reply.status)]
    data = {
        "headline": receipt_headline(every),
        "verdicts": [v.to_json() for v in every],
        "warning": reply.warning,
    }
    return Fold("receipt", data, answers=reply.in_reply_to)


def receipt_headline(verdicts: list[Verdict]) -> str:
    """The receipt's first line in plain words (the player's page shows it too): "Your order is in: play 2."."""
    if not verdicts:
        return "Your message held no orders."
    commands = [v.command for v in verdicts if v.ok and v.command]
    parts = [_resign_part(verdicts)] if "resign" in commands else []
    parts += [
        _orders_part([v.line for v in verdicts if v.ok and not v.command]),
        _commands_part([c for c in commands if c != "resign"]),
        _refused_part(sum(not v.ok for v in verdicts), len(verdicts)),
    ]
    return " ".join(part for part in parts if part)


def _resign_part(verdicts: list[Verdict]) -> str:
    """A bare resign only asks; "resign yes" has left the game."""
    left = any(v.ok and v.line.lower().split()[1:] for v in verdicts if v.command == "resign")
    return "You have left the game." if left else "Nothing done yet: resigning asks you to confirm."


def _orders_part(orders: list[str]) -> str:
    if not orders:
        return ""
    shown = "; ".join(_short(line) for line in orders[:3])
    if len(orders) == 1:
        return f"Your order is in: {shown}."
    more = f" and {len(orders) - 3} more" if len(orders) > 3 else ""
    return f"Your {len(orders)} orders are in: {shown}{more}."


def _commands_part(commands: list[str]) -> str:
    return f"Done: {', '.join(dict.fromkeys(commands))}." if commands else ""


def _refused_part(refused: int, lines: int) -> str:
    if not refused:
        return ""
    if refused == 1 and lines == 1:
        return "Refused: see why below."
    return f"{refused} line{'s were' if refused != 1 else ' was'} refused: see why below."


def _short(line: str, size: int = 60) -> str:
    return line if len(line) <= size else line[: size - 1].rstrip() + "…"


def may_wait(runtime: Runtime, game: Game, seat: Seat, reply: Reply, verdicts: list[Verdict]) -> bool:
    """A receipt that only says "accepted" to a seat with nothing left to do this turn can wait for its next email.

    Anything else (a refusal, a command, a warning, a seat still asked to act,
    a player on the digest or on no emails, who may not get the next one soon) is
    answered at once.
    """
    return (
        runtime.settings.receipt_wait_seconds > 0
        and game.status == GameStatus.ACTIVE
        and bool(verdicts)
        and all(v.ok for v in verdicts)
        and not (reply.before or reply.after or reply.status or reply.warning)
        and preferences.effective(game, seat) in ("every", "my_turn")
        and seat.seat not in engine_for(game).to_act(game.state)
    )


def queue_receipt(uow: UnitOfWork, game: Game, seat: Seat, reply: Reply, verdicts: list[Verdict]) -> None:
    """The answer to one message on its own: at once, or deferred to the seat's next email
    (and then rendered only if it goes alone)."""
    fold = receipt_fold(reply, verdicts, status_text(game, seat) if reply.status else "")
    wait = may_wait(uow.runtime, game, seat, reply, verdicts)
    notify.queue_for_seat(
        uow,
        game,
        seat,
        template="receipt",
        kind=EmailKind.RECEIPT,
        view=False,
        auto_reply=True,
        blocks=[fold],
        deferred=fold if wait else None,
        **({"prompt": ""} if reply.status else {}),  # the status answer, last, already ends with it
    )


def receipt_alone(uow: UnitOfWork, seat: Seat, fold: Fold) -> None:
    """The receipt no email of the transaction took, as an email of its own."""
    queue_receipt(uow, seat.game, seat, fold.alone["reply"], fold.alone["verdicts"])
