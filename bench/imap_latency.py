"""One-mailbox latency: a whole KidSprout game (three players) played by email
in one-mailbox mode, and the time from a reply's arrival in the mailbox to its
receipt leaving the server.

Run with ``python -m bench.imap_latency [--replies N] [--poll SECONDS]``.
Everything is real and in one process: a throwaway Dovecot on loopback holds
the mailbox (reply addresses ``games+{key}@example.org``), each reply is put
into it by IMAP APPEND, the mailbox reader waits with IMAP IDLE, a worker
thread stands in for Celery, and receipts go over SMTP to a loopback sink.
The baseline, in the same run: the same game with the same replies handed
straight to ``receive`` (what ``pbem ingest`` does), no mailbox; and Dovecot's
own delay in telling an idling client of a new message, which every mailbox
figure includes.  With ``--poll``, a third run reads the mailbox by polling
instead of IDLE.
"""

from __future__ import annotations

import argparse
import datetime as dt
import queue
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import update

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines import get_engine
from engines.playout import fill_text
from engines.rng import Rng
from pbem.inbound.imap import Reader
from pbem.inbound.runner import process, receive
from pbem.models import Game
from pbem.runtime import Runtime
from pbem.services.mailout import outbox
from pbem.services.play import deadlines, games
from tests.mail.support import Mailboxes, reply_to
from tests.support.smtp_sink import SmtpSink

TEMPLATE = "games+{key}@example.org"
SERVER = "games@example.org"
PLAYERS = ["Ann <ann@players.example>", "Bob <bob@players.example>", "Cy <cy@players.example>"]


class Worker:
    """A thread doing what the Celery worker would with the runtime's nudges."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.tasks: queue.Queue = queue.Queue()
        self.statuses: list[str] = []
        runtime.nudger = lambda task, args: self.tasks.put((task, args))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            task, args = self.tasks.get()
            try:
                if task is None:
                    return
                if task == "process_inbound":
                    self.statuses.append(process(self.runtime, *args))
                elif task == "deliver_outbox":
                    self.statuses.append(outbox.deliver(self.runtime, *args))
            finally:
                self.tasks.task_done()

    def settle(self) -> None:
        """Wait until every nudge, and every nudge it caused, is done."""
        self.tasks.join()

    def close(self) -> None:
        self.tasks.put((None, None))
        self.thread.join(timeout=30)


@dataclass
class GameRun:
    game_id: int
    finished: bool = False
    #: Seconds from a reply's delivery to its receipt reaching the sink, one per reply.
    latencies: list[float] = field(default_factory=list)
    #: Receipts counted per reply (each must be exactly one, accepted, to its sender).
    receipts: list[int] = field(default_factory=list)
    accepted: int = 0


def _receipt_for(sink: SmtpSink, start: int, message_id: str, timeout: float):
    """The sink's first message from index ``start`` answering ``message_id``."""
    deadline = time.monotonic() + timeout
    seen = start
    while time.monotonic() < deadline:
        received = sink.messages
        for item in received[seen:]:
            if item.message["In-Reply-To"] == message_id:
                return item
        seen = len(received)
        time.sleep(0.002)
    raise TimeoutError(f"no receipt for {message_id} within {timeout}s")


def play(
    runtime: Runtime,
    sink: SmtpSink,
    worker: Worker,
    deliver: Callable[[bytes], None],
    *,
    max_replies: int | None = None,
    seed: int = 11,
    timeout: float = 30.0,
    batch: bool = False,
) -> GameRun:
    """Play one game to its end (or ``max_replies``), each reply delivered by ``deliver``.

    One reply at a time by default; with ``batch``, every seat that must act
    replies at once (a quicker game: the replies of a round wait together).
    """
    game_id = runtime.in_unit(games.create_game, games.NewGame(engine="kidsprout", players=PLAYERS, seed=7))
    worker.settle()
    run, engine, rng, box = GameRun(game_id), get_engine("kidsprout"), Rng(seed), Mailboxes(sink)
    senders = {p.split("<")[1][:-1]: p for p in PLAYERS}
    for serial in range(2000):
        with runtime.db.read() as session:
            game = session.get(Game, game_id)
            state, status, emails = game.state, game.status, {s.seat: s.account.email for s in game.seats}
        if status == "finished" or (max_replies is not None and len(run.latencies) >= max_replies):
            break
        to_act = sorted(engine.to_act(state))
        if not to_act:  # a last call with nobody to act: let the deadline pass
            with runtime.db.write() as session:
                session.execute(update(Game).where(Game.id == game_id).values(deadline=dt.datetime(2000, 1, 1)))
            runtime.in_unit(deadlines.apply_deadline, game_id)
            worker.settle()
            continue
        replies = []
        for seat in to_act if batch else [rng.choice(to_act)]:
            legal = engine.legal_orders(state, seat)
            quiet = [o for o in legal if not o.startswith("excuse")]
            order = fill_text(rng.choice(quiet if quiet and rng.below(4) else legal), rng, serial)
            address = emails[seat]
            reply = reply_to(box(address)[-1], senders[address], order, bottom=bool(serial % 2))
            replies.append((address, reply, reply.as_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")))
        before = len(sink.messages)
        sent_at = []
        for _, _, raw in replies:
            sent_at.append(time.time())
            deliver(raw)
        for (_, reply, _), started in zip(replies, sent_at, strict=True):
            receipt = _receipt_for(sink, before, reply["Message-ID"], timeout)
            run.latencies.append(receipt.at - started)
        worker.settle()
        for address, reply, _ in replies:
            fresh = [m for m in sink.messages[before:] if m.message["In-Reply-To"] == reply["Message-ID"]]
            run.receipts.append(len(fresh))
            run.accepted += "ACCEPTED" in fresh[0].message.get_body(("plain",)).get_content()
            assert fresh[0].recipients == [address], "a receipt goes to its own player only"
    with runtime.db.read() as session:
        run.finished = session.get(Game, game_id).status == "finished"
    return run


def in_mailbox(runtime: Runtime, server, **options) -> tuple[Callable[[bytes], None], Callable[[], None]]:
    """(deliver, stop): replies appended to the Dovecot mailbox, read by a :class:`Reader` thread."""
    reader = Reader(runtime, server.url, **options)
    thread = threading.Thread(target=reader.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while reader.state not in ("idle", "polling"):
        if time.monotonic() > deadline:
            raise TimeoutError("the mailbox reader did not start")
        time.sleep(0.01)

    def stop() -> None:
        reader.stop()
        thread.join(timeout=10)

    return server.append, stop


def straight(runtime: Runtime) -> Callable[[bytes], None]:
    """The baseline: each reply handed to ``receive`` as ``pbem ingest`` would."""
    return lambda raw: receive(runtime, raw, transport="pipe")


def await_exists(client, timeout: float) -> None:
    """Wait, idling, for the server's EXISTS (new mail); a server that never sends it fails the run."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if any(len(r) > 1 and r[1] == b"EXISTS" for r in client.idle_check(timeout=left)):
            return
    raise TimeoutError(f"no EXISTS from the idling mailbox within {timeout:.0f} s")


def idle_notice(count: int) -> list[float]:
    """Dovecot alone: seconds from the start of an APPEND to the EXISTS an idling client is sent."""
    from tests.support.dovecot import Dovecot

    delays = []
    with Dovecot() as server:
        client = server.client()
        for index in range(count):
            client.idle()
            started = time.time()
            server.append(b"Subject: x\r\nMessage-ID: <notice-%d@bench>\r\n\r\nx\r\n" % index)
            await_exists(client, 10.0)
            delays.append(time.time() - started)
            client.idle_done()
        client.logout()
    return delays


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def describe(name: str, run: GameRun) -> str:
    ms = [v * 1000 for v in run.latencies]
    state = "finished" if run.finished else "stopped early"
    return (
        f"{name:<22} {len(ms)} replies, game {state}, {run.accepted} accepted: "
        f"p50 {statistics.median(ms):.0f} ms, p99 {percentile(ms, 0.99):.0f} ms, max {max(ms):.0f} ms"
    )


def one_game(root: Path, name: str, mode: str, max_replies: int | None, poll: float) -> GameRun:
    """A fresh database, sink and (for the mailbox modes) Dovecot; one game played through."""
    from bench.common import bench_runtime
    from tests.support.dovecot import Dovecot

    with SmtpSink() as sink:
        runtime = bench_runtime(root / name, f"sqlite:///{root / name}.sqlite3")
        runtime.settings = runtime.settings.with_(
            reply_address=TEMPLATE, server_address=SERVER, smtp_url=sink.url, receipt_wait_seconds=0
        )
        worker = Worker(runtime)
        try:
            if mode == "direct":
                return play(runtime, sink, worker, straight(runtime), max_replies=max_replies)
            with Dovecot(idle=mode == "idle") as server:
                deliver, stop = in_mailbox(runtime, server, poll_seconds=poll)
                try:
                    return play(runtime, sink, worker, deliver, max_replies=max_replies)
                finally:
                    stop()
        finally:
            worker.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replies", type=int, default=None, help="stop each game after this many replies")
    parser.add_argument("--poll", type=float, default=0.0, help="also a run polling every SECONDS (no IDLE)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pbem-bench-imap-") as tmp:
        root = Path(tmp)
        imap = one_game(root, "imap", "idle", args.replies, 60.0)
        base = one_game(root, "direct", "direct", args.replies, 0.0)
        polled = one_game(root, "poll", "poll", args.replies, args.poll) if args.poll else None
    notice = [v * 1000 for v in idle_notice(min(10, len(imap.latencies)))]
    print(f"KidSprout, {len(PLAYERS)} players, reply addresses {TEMPLATE}; Dovecot on loopback, SMTP sink")
    print(describe("mailbox (IMAP IDLE)", imap))
    print(describe("baseline (receive)", base))
    if polled:
        print(describe(f"mailbox (poll {args.poll:g}s)", polled))
    print(
        f"{'Dovecot alone':<22} APPEND -> EXISTS to an idling client: p50 {statistics.median(notice):.0f} ms, "
        f"max {max(notice):.0f} ms ({len(notice)} messages; part of every mailbox figure above)"
    )
    ratio = statistics.median(imap.latencies) / statistics.median(base.latencies)
    print(f"ratio p50 mailbox/baseline: {ratio:.1f}")
    problems = [r for r in (imap, base, polled) if r and (set(r.receipts) != {1} or r.accepted != len(r.receipts))]
    if problems or (args.replies is None and not all(r.finished for r in (imap, base))):
        print("FAILED: a reply without exactly one accepted receipt, or a game not finished", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
