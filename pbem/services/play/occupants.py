"""Who plays each seat of a game, on every order, without loading every seat.

:func:`pbem.seating.who_plays` answers for one seat from its facts.  An order's
transaction usually holds only the seat that wrote (the mail path's lock loads
that seat alone), so the lock also reads, in the same statement, the facts of the
game's other seats that its players do not simply hold (:data:`SEAT_FACTS`: a
bot's seat, a seat whose player left).  :func:`occupants` answers from that read,
overlaid with every seat this unit holds, so a change made in this unit (a
resignation, a removal, a seat handed over) counts at once, before and after it
is flushed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import case, func, inspect, or_, select
from sqlalchemy.orm import Session, attributes

from pbem.models import BOT_DOMAIN, Account, Game, Seat
from pbem.runtime import UnitOfWork
from pbem.seating import LEFT_WORDS, PLAYING, Occupant, who_plays


@dataclass(frozen=True)
class Facts:
    """What :func:`who_plays` reads of a seat, as a lock read it."""

    held_by_bot: bool
    left_reason: str | None


_SEATS = Seat.__table__
_OTHER, _OTHER_ACCOUNT = _SEATS.alias("other_seat"), Account.__table__.alias("other_account")
#: Between the seats of :data:`SEAT_FACTS` (seat names are one line of text).
_APART = "\n"
#: Every seat of the game of the outer query's ``seats`` row that is not simply its player's, as one
#: string (a column a lock reads at no extra statement): per seat ``b`` (a bot's account) or ``-``,
#: then the reason its player left (empty if none), ``:`` and its name.
SEAT_FACTS = (
    select(
        func.aggregate_strings(
            case((_OTHER_ACCOUNT.c.email.like(f"%@{BOT_DOMAIN}"), "b"), else_="-")
            + func.coalesce(_OTHER.c.left_reason, "")
            + ":"
            + _OTHER.c.seat,
            _APART,
        )
    )
    .select_from(_OTHER.join(_OTHER_ACCOUNT, _OTHER_ACCOUNT.c.id == _OTHER.c.account_id))
    .where(_OTHER.c.game_id == _SEATS.c.game_id)
    .where(or_(_OTHER_ACCOUNT.c.email.like(f"%@{BOT_DOMAIN}"), _OTHER.c.left_at.is_not(None)))
    .scalar_subquery()
)


class StandIns(dict):
    """Game id -> who plays its seats, as far as its lock read it: this module's part of the unit of work."""


def remember(session: Session, game_id: int, listed: str | None) -> None:
    """Keep what :data:`SEAT_FACTS` read for the game, for :func:`occupants` in this unit."""
    facts: dict[str, Facts] = {}
    for item in (listed or "").split(_APART) if listed else []:
        head, _, name = item.partition(":")
        facts[name] = Facts(held_by_bot=head.startswith("b"), left_reason=head[1:] or None)
    UnitOfWork.of(session).part(StandIns)[game_id] = facts


def occupants(session: Session, game: Game) -> dict[str, Occupant]:
    """Every seat of ``game`` that its player does not play, with who does and why (the others: :data:`PLAYING`).

    From the seats in hand when the game's are all loaded, else from the lock's
    read with the seats this unit holds laid over it; with neither, the seats
    are loaded.
    """
    read: dict[str, Facts] | None = UnitOfWork.of(session).part(StandIns).get(game.id)
    if read is None:
        facts: dict[str, Facts | Seat] = {seat.seat: seat for seat in game.seats}
    else:
        held = game.seats if "seats" not in inspect(game).unloaded else _seats_held(session, game)
        facts = {**read, **{seat.seat: _facts_of(seat, read.get(seat.seat)) for seat in held}}
    found = {name: who_plays(game.house_rules, fact) for name, fact in facts.items()}
    return {name: occupant for name, occupant in found.items() if occupant != PLAYING}


def occupant_of(session: Session, game: Game, seat_name: str) -> Occupant:
    return occupants(session, game).get(seat_name, PLAYING)


def _seats_held(session: Session, game: Game) -> list[Seat]:
    """The seats of ``game`` this unit holds (loaded or new), read from the session without a statement."""
    held = []
    for row in (*session.identity_map.values(), *session.new):
        if type(row) is Seat:
            known = row.__dict__
            if known.get("game_id") == game.id or known.get("game") is game:
                held.append(row)
    return held


def _facts_of(seat: Seat, read: Facts | None) -> Facts | Seat:
    """The seat itself, unless its account is not loaded and unchanged: then the lock's word on whose it
    is (a seat the lock did not list is no bot's)."""
    if "account" in inspect(seat).unloaded and not attributes.get_history(seat, "account_id").has_changes():
        return Facts(held_by_bot=read is not None and read.held_by_bot, left_reason=seat.left_reason)
    return seat


#: How an engine's timeout line names a late seat (``Step.events`` of ``apply_timeout``: "<seat> missed
#: the deadline..."), which for a seat whose player left says what did not happen.
MISSED = " missed the deadline"


def describe_defaults(events: list[str], stand_ins: dict[str, Occupant]) -> list[str]:
    """The engine's timeout lines, each seat whose player left named with the reason instead of a missed
    deadline: ``Green resigned; a random legal move was played for them.``"""
    described = []
    for line in events:
        for name, occupant in stand_ins.items():
            if occupant.left and line.startswith(name + MISSED):
                line = f"{name} {LEFT_WORDS[occupant.left]}" + line[len(name + MISSED) :]
                break
        described.append(line)
    return described
