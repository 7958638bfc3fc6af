"""``pbem game import FILE``: a game recreated from ``pbem game export``'s file, here or on
another server.

The export is replayed with the engine alone first (:func:`verify_export`); only
a file that replays to its recorded final state is taken.  The game gets a new
id, its whole log (with the original times), its press and its house rules; the
stored game is then verified like any other (``pbem game verify``).

A finished or cancelled game comes back as an archive: its seats need no
addresses (each gets an account in the reserved bot domain, which is never
mailed).  A game still in play needs its players' addresses — from the export
(``--addresses``) or given in seat order with ``--player`` — and each player
gets an email with the seat's new reply address and page: the old server's
addresses belong to that server alone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from engines import get_engine
from pbem.clock import utcnow
from pbem.game_status import OVER, RUNNING, GameStatus
from pbem.models import BOT_DOMAIN, Game, LogEntry, PressMessage
from pbem.runtime import UnitOfWork
from pbem.seating import Left
from pbem.services import ServiceError
from pbem.services.mailout import notify
from pbem.services.mailout.kinds import EmailKind
from pbem.services.people.players import account_for, parse_player
from pbem.services.play import bot_seats, games
from pbem.services.play.deadline_hour import HourError, check_policy
from pbem.services.play.export import verify_export
from pbem.services.play.replay import Setup, replay_all
from pbem.services.play.settling import schedule_deadline, sync_summary
from pbem.services.play.verify import verify

#: Exported statuses a game comes back in (an unfinished game was active, paused or cancelled).
KEPT_STATUSES = (GameStatus.PAUSED, GameStatus.CANCELLED)


@dataclass(frozen=True)
class Imported:
    game_id: int
    status: str
    entries: int
    seats: list[str]
    verified: str


def import_game(uow: UnitOfWork, data: Any, players: list[str] | None = None) -> Imported:
    """Recreate the exported game; ``players`` in seat order (each ``EMAIL`` or ``Name <EMAIL>``)."""
    checked = verify_export(data)
    if not checked.ok:
        raise ServiceError(f"the export does not replay to its own final state ({checked.message}); nothing imported")
    engine = get_engine(data["game"]["engine"])
    setup = data["setup"]
    try:
        check_policy(setup.get("deadline_policy"))
    except HourError as error:
        raise ServiceError(f"the export's deadline hour cannot be used: {error}; nothing imported") from None
    seat_names = list(engine.seat_names(len(setup["players"]), setup["variant"]))
    state, _ = replay_all(engine, Setup.of_export(setup), [entry for entry in data["log"] if isinstance(entry, dict)])
    over = engine.outcome(state) is not None
    exported = str(data["game"].get("status") or GameStatus.ACTIVE)
    status = GameStatus.FINISHED if over else GameStatus(exported) if exported in KEPT_STATUSES else GameStatus.ACTIVE
    left = _left(data, seat_names)
    people = _players(data, seat_names, players, needed=status in RUNNING, left=left)
    session = uow.session
    game = Game(
        name=str(data["game"].get("name") or engine.title)[:200],
        engine=engine.name,
        variant=setup["variant"],
        options=dict(setup["options"]),
        seed=int(setup["seed"]),
        players=list(setup["players"]),
        state=state,
        status=status,
        deadline_policy=dict(setup.get("deadline_policy") or {}),
        house_rules=dict(data.get("house_rules") or {}),
        result=engine.outcome(state).to_json() if over else None,
        created_at=_when(data["game"].get("created_at")) or utcnow(),
        finished_at=_when(data["game"].get("finished_at")) or (utcnow() if status in OVER else None),
    )
    session.add(game)
    session.flush()
    _seats(session, game, seat_names, people, left)
    _log(session, game, data["log"])
    _press(session, game, data.get("press") or [], seat_names)
    sync_summary(engine, game)
    session.flush()
    session.refresh(game, ["seats"])
    if status == GameStatus.ACTIVE:
        schedule_deadline(engine, game)
    if status in RUNNING:
        notify.send_views(
            uow,
            game,
            headline=f"{game.name} has moved to this server; it goes on where it stood.",
            kind=EmailKind.MOVED,
        )
        bot_seats.nudge_if_due(uow, game, engine)
    game_id, count = game.id, game.log_seq
    result = verify(uow, game_id)
    if not result.ok:  # the replay above matched the export, so this would be a fault of the import itself
        raise ServiceError(f"game {game_id} was imported but does not verify: {result.message}")
    return Imported(game_id, status, count, seat_names, result.message)


def _seats(
    session, game: Game, seat_names: list[str], people: list[tuple[str, str] | None], left: dict[str, Left]
) -> None:
    """The game's seats, each with its player (an archive's seat, or one whose player left, with an account in
    the reserved bot domain that is never mailed, named as the board names it)."""
    for position, seat_name in enumerate(seat_names):
        name, email = people[position] or (game.players[position], f"imported-{game.id}-{position}@{BOT_DOMAIN}")
        seat = games.new_seat(game, account_for(session, email, name), seat_name, position)
        if seat_name in left:  # the player left on the old server: the late-seat policy plays it here too
            seat.left_at, seat.left_reason = utcnow(), left[seat_name]
        session.add(seat)


def _left(data: dict[str, Any], seats: list[str]) -> dict[str, Left]:
    """The exported seats whose players left, and why."""
    found = data.get("left") or {}
    if not isinstance(found, dict) or not set(found) <= set(seats) or not set(found.values()) <= set(Left):
        raise ServiceError(f'the export\'s "left" must map seats ({", ".join(seats)}) to one of: {", ".join(Left)}')
    return {seat: Left(reason) for seat, reason in found.items()}


def _players(
    data: dict[str, Any], seats: list[str], given: list[str] | None, *, needed: bool, left: Collection[str] = ()
) -> list[tuple[str, str] | None]:
    """Each seat's (name, email): ``--player`` in seat order, else the export's addresses, else none (a seat
    whose player left needs none)."""
    if given:
        if len(given) != len(seats):
            raise ServiceError(f"give one --player per seat, in seat order ({', '.join(seats)}): {len(given)} given")
        found: list[tuple[str, str] | None] = [parse_player(text) for text in given]
    else:
        addresses = data.get("addresses") or {}
        found = [parse_player(addresses[seat]) if addresses.get(seat) else None for seat in seats]
    missing = [seat for seat, person in zip(seats, found, strict=True) if person is None and seat not in left]
    if needed and missing:
        raise ServiceError(
            f"this game is still in play, so each seat needs its player: give --player 'Name <EMAIL>' "
            f"once per seat, in seat order ({', '.join(seats)}), or export it with --addresses"
        )
    emails = [person[1] for person in found if person]
    if len(set(emails)) != len(emails):
        raise ServiceError("each player needs a different address")
    return found


def _when(text: Any) -> dt.datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        return None


def _log(session, game: Game, entries: list[dict[str, Any]]) -> None:
    """The exported log as it was, numbered on from 1, with its times."""
    for seq, entry in enumerate(entries, start=1):
        session.add(
            LogEntry(
                game_id=game.id,
                seq=seq,
                kind=str(entry.get("kind")),
                seat=entry.get("seat"),
                text=str(entry.get("text") or ""),
                source=str(entry.get("source") or "admin")[:20],
                turn=int(entry.get("turn") or 0),
                events=list(entry.get("events") or []),
                created_at=_when(entry.get("at")) or utcnow(),
            )
        )
    game.log_seq = len(entries)


def _press(session, game: Game, entries: list[dict[str, Any]], seats: list[str]) -> None:
    """Press as the export shows it: a signed sender by seat; an anonymous one stays anonymous, and
    private press whose addressee the export hides goes to no seat (never made public)."""
    for entry in entries:
        sender = str(entry.get("from") or "").split(" (", 1)[0]
        to = entry.get("to")
        signed = sender in seats
        private_to = to if to in seats else ""  # hidden from the export: kept from everyone
        to_seat = private_to if entry.get("private") else None
        session.add(
            PressMessage(
                game_id=game.id,
                from_seat=sender if signed else "",
                to_seat=to_seat,
                text=str(entry.get("text") or ""),
                signed=signed,
                turn=int(entry.get("turn") or 0),
                created_at=_when(entry.get("at")) or utcnow(),
            )
        )
