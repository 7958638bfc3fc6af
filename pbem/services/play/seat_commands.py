"""What a seat may write besides orders: the same words by email and on its web page.

Every line of a message is either one of these commands or an order for the
engine.  Commands are answered in the same reply as the orders, each with its
own verdict; ``status`` is answered last, so it shows the view after this
message's orders.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from engines import get_engine
from engines.base import Engine
from pbem.engine_output import rules_url
from pbem.models import Game, Seat
from pbem.runtime import UnitOfWork
from pbem.seating import left_of
from pbem.services import ServiceError
from pbem.services.mailout import preferences, subscriptions
from pbem.services.play import draws, press, rematch, resign, vacations
from pbem.services.play.orders import Verdict

#: Lines read from one message or web submission; the rest is refused in the reply.
MAX_LINES = 60
#: The longest line read (a one-line press may be as long as press allows).
MAX_LINE_CHARS = press.MAX_PRESS_CHARS + 100
#: How a refused line is quoted back.
QUOTE_CHARS = 80
HELP_WORDS = ("help", "?", "commands")
STATUS_WORDS = ("status", "view", "board")
END_PRESS = "endpress"

COMMANDS_HELP = """\
Besides orders, a message may hold these commands (one per line):
  help                 this text and the game's order syntax
  status               your private view, after this message's orders
  press all: TEXT      table talk to every seat
  press SEAT: TEXT     table talk to one seat only
  press all:           (nothing after the colon) the press is every
                       following line, up to a line "endpress"
  press reply: TEXT    in a reply to a press email: answer it
  vacation DAYS        away for DAYS days: deadlines waiting on you wait
  vacation end         back early (also: back)
  notify               what you get from this game, and how to change it
  notify every         an email every turn, in all your games
  notify my_turn       emails only when you must act, in all your games
  notify digest        one daily digest across all your games
  notify default       each game's own (my_turn where one moves at a time)
  notify none          no emails from this game but answers to yours
  resign               leave the game for good (asks you to confirm
                       with: resign yes)
  rematch              once the game is over: offer the same table a
                       new game, or accept the offer"""
DRAW_HELP = """
  draw                 propose a draw, or agree to the one proposed: the
                       game ends drawn when every seat still in agrees
  draw no              withdraw your agreement"""

_VACATION = re.compile(r"^vacation\s+(\S+)\s*$", re.IGNORECASE)
_NOTIFY = re.compile(r"^notify(?:\s+(\S+))?\s*$", re.IGNORECASE)


def capped(lines: list[str]) -> tuple[list[str], list[Verdict]]:
    """The lines read (at most ``MAX_LINES``, none longer than ``MAX_LINE_CHARS``) and the
    refusals of the rest, so a huge message costs neither the engine nor the reply."""
    kept, overflow = lines[:MAX_LINES], lines[MAX_LINES:]
    refused = [
        Verdict(quote(line), False, f"this line is {len(line)} characters long; at most {MAX_LINE_CHARS} are read")
        for line in kept
        if len(line) > MAX_LINE_CHARS
    ]
    kept = [line for line in kept if len(line) <= MAX_LINE_CHARS]
    if overflow:
        refused.append(Verdict(f"({len(overflow)} more lines)", False, f"only {MAX_LINES} lines are read"))
    return kept, refused


def quote(line: str) -> str:
    """``line`` as a receipt quotes it: cut to ``QUOTE_CHARS``."""
    return line if len(line) <= QUOTE_CHARS else line[: QUOTE_CHARS - 3] + "..."


@dataclass
class SeatLines:
    """A message split into command verdicts and order lines, in the order a receipt shows them."""

    before: list[Verdict] = field(default_factory=list)
    orders: list[str] = field(default_factory=list)
    after: list[Verdict] = field(default_factory=list)
    #: ``status`` lines, answered once the orders are applied.
    status: list[str] = field(default_factory=list)

    def answer(self, verdict: Verdict) -> None:
        """A command's verdict, named by the command (the receipt's headline tells commands from orders)."""
        named = verdict if verdict.command else replace(verdict, command=first_word(verdict.line))
        (self.after if self.orders else self.before).append(named)


def first_word(line: str) -> str:
    words = line.split()
    return words[0].lower().rstrip(".!:") if words else ""


def command_of(line: str, engine: Engine | None = None) -> str | None:
    """The seat command ``line`` is (``help``, ``status``, ``press``, ``vacation``, ``notify``, ``resign``,
    ``rematch``, and ``draw`` in a game of an ``engine`` with draws), or None: an order for the engine.
    The one grammar of these commands."""
    word = first_word(line)
    alone = len(line.split()) == 1
    if word == "draw" and engine is not None and engine.draws:
        return "draw"
    if word in HELP_WORDS:
        return "help"
    if word in STATUS_WORDS and alone:
        return "status"
    if word == "press" and press.parse_press_line(line) is not None:
        return "press"
    if word == "vacation" or (word == "back" and alone):
        return "vacation"
    if word in ("notify", "resign") or (word == "rematch" and alone):
        return word
    return None


def is_command(line: str, engine: Engine | None = None) -> bool:
    """Whether ``line`` is one of these commands rather than an order (in a game of ``engine``)."""
    return command_of(line, engine) is not None


def run(
    uow: UnitOfWork,
    game: Game,
    seat: Seat,
    lines: list[str],
    *,
    press_reply_id: int | None = None,
) -> SeatLines:
    """Carry out every command among ``lines`` (press, vacation, notify, help); keep the rest as orders.

    ``press_reply_id`` is the press a reply email answers (from its ``In-Reply-To``).
    """
    result = SeatLines()
    left = left_of(seat)
    if left is not None:  # a player who left: nothing more from this seat
        result.before = [Verdict(quote(line), False, resign.refusal(left)) for line in lines]
        return result
    index = 0
    engine = get_engine(game.engine)
    while index < len(lines):
        line = lines[index]
        index += 1
        command = command_of(line, engine)
        if command is None:
            result.orders.append(line)
        elif command == "status":
            result.status.append(line)
        elif command == "press":
            to, text = press.parse_press_line(line)
            if not text:
                body, index = _press_body(lines, index)
                text = "\n".join(body)
            result.answer(_press(uow, game, seat, line, to, text, press_reply_id))
        else:
            result.answer(_ANSWERS[command](uow, game, seat, line))
    return result


def is_conversation(game: Game, seat: Seat, lines: list[str]) -> bool:
    """True if no line is a command or starts with one of the game's order words: plain talk.

    A reply to a press email is sent on as press only then, so an order typed in
    reply to the newest email (which may be press) is applied or refused as an
    order, never shown to another player, even when it is not the seat's turn.
    """
    engine = get_engine(game.engine)
    for line in lines:
        words = line.split()
        if is_command(line, engine) or (words and words[0].strip(".,!?:;").casefold() in engine.order_words):
            return False
    return bool(lines)


def help_text(game: Game, base_url: str = "") -> str:
    """The engine's order syntax, the seat commands and where the full rules are."""
    rules = f"\n\nThe full rules: {rules_url(base_url, game.engine)}" if base_url else ""
    engine = get_engine(game.engine)
    commands = COMMANDS_HELP + (DRAW_HELP if engine.draws else "")
    return engine.help_text().rstrip() + "\n\n" + commands + rules


def _press_body(lines: list[str], index: int) -> tuple[list[str], int]:
    """The lines of a multi-line press, up to ``endpress`` (or the end of the message)."""
    body = []
    while index < len(lines):
        line = lines[index]
        index += 1
        if first_word(line) == END_PRESS:
            break
        body.append(line)
    return body, index


def _help(uow: UnitOfWork, game: Game, seat: Seat, line: str) -> Verdict:
    return Verdict(line, True, help_text(game, uow.settings.base_url))


def _rematch(uow: UnitOfWork, game: Game, seat: Seat, line: str) -> Verdict:
    outcome = rematch.offer(uow, game.id, seat.id)
    return Verdict(line, outcome.ok, outcome.message)


def _press(uow: UnitOfWork, game: Game, seat: Seat, line: str, to: str, text: str, reply_id: int | None) -> Verdict:
    shown = quote(line)
    if to.lower() == "reply":
        if reply_id is None:
            return Verdict(shown, False, "'press reply:' answers a press email: use it in a reply to one, "
                                         "or write press all: or press SEAT:")  # fmt: skip
        outcome = press.reply_to_press(uow, game.id, seat.id, reply_id, text)
    else:
        outcome = press.send_press(uow, game.id, seat.id, to, text)
    return Verdict(shown, outcome.ok, outcome.message)


def _vacation(uow: UnitOfWork, game: Game, seat: Seat, line: str) -> Verdict:
    words = [word.lower() for word in line.split()]
    if words == ["back"] or (len(words) == 2 and words[1] in ("end", "over")):
        outcome = vacations.end_vacation(uow, game.id, seat.id)
        return Verdict(line, outcome.ok, outcome.message)
    match = _VACATION.match(line.strip())
    days = match.group(1) if match else ""
    if not (days.isascii() and days.isdigit()):
        return Verdict(line, False, "write vacation DAYS (a whole number, e.g. vacation 3) or vacation end")
    outcome = vacations.declare_vacation(uow, game.id, seat.id, int(days))
    return Verdict(line, outcome.ok, outcome.message)


def _resign(uow: UnitOfWork, game: Game, seat: Seat, line: str) -> Verdict:
    words = [word.lower().strip(".!") for word in line.split()]
    if words == ["resign"]:
        asked = resign.ask(game, seat)
        return Verdict(line, asked.ok, asked.message)
    if words == ["resign", resign.CONFIRM_WORD]:
        done = resign.resign(uow, game.id, seat.id)
        return Verdict(line, done.ok, done.message)
    return Verdict(quote(line), False, f"write resign (to see what leaving means) or resign {resign.CONFIRM_WORD}")


def _draw(uow: UnitOfWork, game: Game, seat: Seat, line: str) -> Verdict:
    agree = draws.wanted(line)
    if agree is None:
        return Verdict(quote(line), False, draws.USAGE)
    outcome = draws.vote(uow, game.id, seat.id, agree)
    return Verdict(line, outcome.ok, outcome.message)


def _notify(uow: UnitOfWork, game: Game, seat: Seat, line: str) -> Verdict:
    """``notify`` alone says what the player gets here; ``notify none`` stops this game's emails;
    ``notify every|my_turn|digest|default`` chooses for every game (and ends this game's own choice)."""
    match = _NOTIFY.match(line.strip())
    if match is None:
        return Verdict(line, False, f"write one of: {preferences.COMMANDS}")
    if match.group(1) is None:
        current = subscriptions.game_preference(uow, seat.id)
        return Verdict(line, True, f"In {game.name} you get {preferences.DESCRIPTIONS[current]}. Change it with: "
                                   f"{preferences.COMMANDS}.")  # fmt: skip
    try:
        return Verdict(line, True, subscriptions.set_preference_from_seat(uow, seat.id, match.group(1)))
    except ServiceError as error:
        return Verdict(line, False, str(error))


#: The answer to each command that is answered at once, by its name (see :func:`command_of`).
_ANSWERS: dict[str, Callable[[UnitOfWork, Game, Seat, str], Verdict]] = {
    "help": _help,
    "vacation": _vacation,
    "notify": _notify,
    "resign": _resign,
    "rematch": _rematch,
    "draw": _draw,
}
