"""A game's house rules: how the server runs the table, as opposed to the engine's rules.

They are chosen when the game is created and kept in ``Game.house_rules``:

* ``press``: ``full`` (private and broadcast table talk), ``public`` (broadcast
  only) or ``none``; ``press_signed``: press shows its sender, or is anonymous.
* ``late``: what a missed deadline does — ``defaults`` (the engine's defaults,
  at once), ``grace:N`` (extend the deadline up to N more periods while a seat
  is late, telling everyone, then apply the defaults) or ``bot:N`` (once a seat
  has missed N deadlines in a row, the server's bot plays for it at
  each deadline, until the player sends orders again).
* ``drop_after``: a player who misses this many deadlines in a row leaves the
  game (:func:`pbem.services.play.leaving.leave`, reason ``dropped``) and the
  late-seat policy plays the seat from then on; 0 (the default): never.
* ``draw_votes``: ``secret`` (the table learns only that a draw is proposed) or
  ``public`` (the table is told each seat's agreement and withdrawal), in games
  whose engine allows draws (:mod:`pbem.services.play.draws`).
* ``vacation_days_per_game`` and ``vacation_days_per_year``: the caps on
  declared vacations (the yearly one counts an account's days away across all
  of its games, overlapping vacations once).

An empty dict means every default, so games created before house rules existed
behave as they always did.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pbem import seating
from pbem.game_status import OVER
from pbem.models import Game
from pbem.runtime import UnitOfWork
from pbem.services import ServiceError
from pbem.services.play.locking import lock_game

PRESS_MODES = ("full", "public", "none")
LATE_KINDS = ("defaults", "grace", "bot")
DRAW_VOTES = ("secret", "public")
MAX_LATE_N = 20
MAX_VACATION_DAYS = 366


@dataclass(frozen=True)
class HouseRules:
    press: str = "full"
    press_signed: bool = True
    late: str = "defaults"
    drop_after: int = 0
    draw_votes: str = "secret"
    vacation_days_per_game: int = 14
    vacation_days_per_year: int = 28

    @property
    def late_kind(self) -> str:
        """``defaults``, ``grace`` or ``bot``."""
        return seating.late_kind(self.late)

    @property
    def late_n(self) -> int:
        """N of ``grace:N`` or ``bot:N`` (0 for ``defaults``)."""
        return seating.late_n({"late": self.late})

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> list[str]:
        """The rules in words, for players and the status page."""
        press = {
            "full": "players may send press to one seat or to all",
            "public": "players may send press to all seats only",
            "none": "there is no press in this game",
        }[self.press]
        if self.press != "none":
            press += "; press is " + ("signed" if self.press_signed else "anonymous")
        late = {
            "defaults": "a missed deadline applies the game's defaults",
            "grace": f"a missed deadline is extended up to {self.late_n} time(s) for late seats, "
            "then the game's defaults apply",
            "bot": f"after {self.late_n} missed deadline(s) in a row a bot plays for the late seat "
            "until its player sends orders again",
        }[self.late_kind]
        vacation = (
            f"vacations: up to {self.vacation_days_per_game} days in this game "
            f"and {self.vacation_days_per_year} days a year"
        )
        drop = (
            [f"A player who misses {self.drop_after} deadline(s) in a row leaves the game; the seat is played "
             f"as for one who resigned."]
            if self.drop_after
            else []
        )  # fmt: skip
        public_votes = self.draw_votes == "public"
        votes = ["Draw votes are public: the table is told who agrees to a draw."] if public_votes else []
        return [press.capitalize() + ".", late.capitalize() + ".", *drop, *votes, vacation.capitalize() + "."]


def parse_late(text: str) -> str:
    """``defaults``, ``grace:N`` or ``bot:N`` in canonical form; ServiceError otherwise."""
    raw = (text or "").strip().lower().replace(" ", "")
    kind, sep, n = raw.partition(":")
    if kind == "defaults" and not sep:
        return "defaults"
    if kind in ("grace", "bot") and sep and n.isdigit():
        value = int(n)
        low = 1 if kind == "grace" else 0
        if low <= value <= MAX_LATE_N:
            return f"{kind}:{value}"
        raise ServiceError(f"late policy {text!r}: N must be from {low} to {MAX_LATE_N}")
    raise ServiceError(f"late policy {text!r} is not one of: defaults, grace:N, bot:N (e.g. grace:1 or bot:2)")


def parse_rules(
    *,
    press: str | None = None,
    press_identity: str | None = None,
    late: str | None = None,
    drop_after: int | None = None,
    draw_votes: str | None = None,
    vacation_days_per_game: int | None = None,
    vacation_days_per_year: int | None = None,
) -> HouseRules:
    """Check every choice (None keeps the default) and report all problems at once."""
    base = HouseRules()
    problems: list[str] = []
    values: dict[str, Any] = {}
    if press is not None:
        if press.strip().lower() in PRESS_MODES:
            values["press"] = press.strip().lower()
        else:
            problems.append(f"press {press!r} is not one of: {', '.join(PRESS_MODES)}")
    if press_identity is not None:
        identity = press_identity.strip().lower()
        if identity in ("signed", "anonymous"):
            values["press_signed"] = identity == "signed"
        else:
            problems.append(f"press identity {press_identity!r} is not one of: signed, anonymous")
    if draw_votes is not None:
        if draw_votes.strip().lower() in DRAW_VOTES:
            values["draw_votes"] = draw_votes.strip().lower()
        else:
            problems.append(f"draw votes {draw_votes!r} is not one of: {', '.join(DRAW_VOTES)}")
    if late is not None:
        try:
            values["late"] = parse_late(late)
        except ServiceError as error:
            problems.append(str(error))
    for name, value, high, unit in (
        ("drop_after", drop_after, MAX_LATE_N, "deadlines"),
        ("vacation_days_per_game", vacation_days_per_game, MAX_VACATION_DAYS, "days"),
        ("vacation_days_per_year", vacation_days_per_year, MAX_VACATION_DAYS, "days"),
    ):
        if value is None:
            continue
        if not isinstance(value, int) or not 0 <= value <= high:
            problems.append(f"{name.replace('_', ' ')} must be a whole number of {unit} from 0 to {high}")
        else:
            values[name] = value
    if problems:
        raise ServiceError("; ".join(problems))
    return HouseRules(**{**base.to_json(), **values})


def from_json(data: dict[str, Any] | None) -> HouseRules:
    """The rules stored on a game; unknown keys are ignored and missing ones take defaults."""
    known = set(HouseRules.__dataclass_fields__)
    return HouseRules(**{k: v for k, v in (data or {}).items() if k in known})


def rules_of(game: Game) -> HouseRules:
    return from_json(game.house_rules)


def set_rules(uow: UnitOfWork, game_id: int, rules: HouseRules) -> None:
    """Store a game's rules (the admin may change them while it is not finished)."""
    session = uow.session
    game = lock_game(session, game_id)
    if game.status in OVER:
        raise ServiceError(f"game {game_id} is {game.status}; its rules can no longer change")
    game.house_rules = rules.to_json()
    game.version += 1
