"""Emails per player in whole 3-player games played by email.

Run with ``python -m bench.email_count [--games N] [--limit R]``.  Each game is
played as in the end-to-end mail test: every reply goes over SMTP to the
listener, every email the server sends is handed to an SMTP sink, and each
player answers their newest email.  The count is what landed in each player's
mailbox.

* KidSprout (simultaneous phases), default preferences; beside it, the baseline
  of the same run: the replies each player sent, each of which needs a verdict.
* Sprawl and Rank Chain (one seat moves at a time), each played twice over the
  same seeds: with every player on ``notify every`` (what every player got before
  these games mailed each player on their turn) and with the default preferences.
  The figure is emails per player per move (a move: one reply with an order).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

from sqlalchemy import select

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import bench_runtime
from pbem.config import MailLimits, Settings
from pbem.models import OutboxMessage
from tests.mail.support import mail_world
from tests.support.mailgame import play_by_email
from tests.support.play import game_row

PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
#: The games where one seat moves at a time.
TURN_BY_TURN = ("sprawl", "rankchain")


def kinds_by_message_id(runtime) -> dict[str, str]:
    with runtime.db.read() as session:
        return {
            row.message_id: row.kind for row in session.execute(select(OutboxMessage.message_id, OutboxMessage.kind))
        }


def play(seed: int, limit: int, engine: str = "kidsprout", notify: str | None = None):
    """One game: (emails per player, replies per player, emails by kind, deadlines, finished)."""
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-emails-"))
    runtime = bench_runtime(
        folder,
        f"sqlite:///{folder / 'bench.sqlite3'}",
        broker_url="filesystem://",
        mail_limits=MailLimits(per_seat=10**6, per_sender=10**6),
        receipt_wait_seconds=Settings.receipt_wait_seconds,  # what players get: the server's default
    )
    with mail_world(runtime) as (sink, port, pump):
        game = play_by_email(
            runtime, sink, port, pump, seed=seed, players=PLAYERS, limit=limit, engine_name=engine, notify=notify
        )
        received = sink.messages
    kinds = kinds_by_message_id(runtime)
    emails = {address: 0 for address in game.emails.values()}
    by_kind: Counter = Counter()
    for item in received:
        for recipient in item.recipients:
            if recipient in emails:
                emails[recipient] += 1
                by_kind[kinds.get(item.message["Message-ID"], "?")] += 1
    done = game_row(runtime, game.game_id).status == "finished"
    return emails, {a: game.replies.get(a, 0) for a in emails}, by_kind, game.deadlines_fired, done


def kidsprout(games: int, limit: int) -> None:
    per_player: list[int] = []
    replies: list[int] = []
    per_move: list[float] = []
    kinds: Counter = Counter()
    for seed in range(11, 11 + games):
        emails, sent, by_kind, fired, done = play(seed, limit)
        per_player.extend(emails.values())
        replies.extend(sent.values())
        per_move.extend(n / max(sum(sent.values()), 1) for n in emails.values())
        kinds.update(by_kind)
        counts = ", ".join(str(n) for n in emails.values())
        print(f"game seed {seed}: {sum(sent.values())} replies, {fired} deadline(s) let pass, "
              f"{'finished' if done else 'stopped early'}; emails per player: {counts}")  # fmt: skip
    players = len(per_player)
    mean_emails = statistics.mean(per_player)
    mean_replies = statistics.mean(replies)
    print(f"players: {players} in {games} game(s) of 3, KidSprout v0.2, default preferences")
    print(f"emails per player: mean {mean_emails:.1f} (min {min(per_player)}, max {max(per_player)})")
    print(f"baseline, replies per player: mean {mean_replies:.1f}")
    print(f"ratio emails / replies: {mean_emails / max(mean_replies, 1):.2f}")
    print(f"emails per player per move: {statistics.mean(per_move):.2f}")
    print("emails per player by kind: " + ", ".join(f"{k} {n / players:.1f}" for k, n in kinds.most_common()))


def turn_by_turn(engine: str, games: int, limit: int) -> None:
    """The same seeds twice: everyone on ``every``, then the defaults."""
    results = {}
    for label, notify in (("every (before)", "every"), ("default (after)", None)):
        per_move: list[float] = []
        per_player: list[int] = []
        moves: list[int] = []
        kinds: Counter = Counter()
        for seed in range(11, 11 + games):
            emails, sent, by_kind, fired, done = play(seed, limit, engine, notify)
            total = sum(sent.values())
            moves.append(total)
            per_player.extend(emails.values())
            per_move.extend(n / max(total, 1) for n in emails.values())
            kinds.update(by_kind)
            print(f"{engine} {label} seed {seed}: {total} moves, {fired} deadline(s) let pass, "
                  f"{'finished' if done else 'stopped early'}; emails per player: "
                  f"{', '.join(str(n) for n in emails.values())}")  # fmt: skip
        players = len(per_player)
        results[label] = statistics.mean(per_move)
        print(f"{engine} {label}: moves per game {statistics.mean(moves):.1f}, emails per player "
              f"{statistics.mean(per_player):.1f}, emails per player per move {results[label]:.2f}; by kind per "
              "player: " + ", ".join(f"{k} {n / players:.1f}" for k, n in kinds.most_common()))  # fmt: skip
    before, after = results["every (before)"], results["default (after)"]
    print(f"{engine}: emails per player per move {before:.2f} before, {after:.2f} after; "
          f"after / before {after / before:.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--limit", type=int, default=2000, help="replies at most per game (a smoke run stops early)")
    parser.add_argument("--engines", default="kidsprout,sprawl,rankchain", help="which games, comma-separated")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.engines.split(",") if name.strip()]
    if "kidsprout" in chosen:
        kidsprout(args.games, args.limit)
    for engine in TURN_BY_TURN:
        if engine in chosen:
            turn_by_turn(engine, args.games, args.limit)


if __name__ == "__main__":
    main()
