"""The distributed stack under a scripted load, for the chaos suite.

PostgreSQL (a throwaway cluster), the broker (our own Redis database number),
a real Celery worker and beat, ``pbem smtpd`` taking the players' replies by
SMTP, and a recording SMTP sink as the relay.  :class:`Load` plays every game
by SMTP from a thread: for each seat the engine waits for, it mails one legal
order to the seat's reply address and waits for the server to process it.
"""

from __future__ import annotations

import collections
import smtplib
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis
from aiosmtpd.controller import Controller
from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError

from engines.rng import Rng
from pbem.clock import utcnow
from pbem.models import Game, InboundMessage, OutboxMessage
from pbem.services.play.verify import verify
from tests.mail.helpers import mail, seat_address
from tests.support.celery_proc import CeleryProcess, process_env, wait_until
from tests.support.play import game_row, legal_move, start
from tests.support.services import free_port, smtp_listening
from tests.support.smtp_sink import SmtpSink


class Relay(SmtpSink):
    """The SMTP sink as a relay that can go down and come back on the same port."""

    def down(self) -> None:
        self.controller.stop()

    def up(self) -> None:
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)
        self.controller.start()


@dataclass
class Stack:
    runtime: object
    relay: Relay
    folder: Path
    broker_url: str
    smtp_port: int = 0
    workers: list[CeleryProcess] = field(default_factory=list)
    beat: CeleryProcess | None = None
    smtpd: subprocess.Popen | None = None

    def start_worker(self) -> CeleryProcess:
        log = self.folder / f"worker-{len(self.workers)}.log"
        worker = CeleryProcess("worker", self.runtime.settings, log, concurrency=2, **UNLIMITED)
        self.workers.append(worker)
        return worker

    def start_beat(self) -> CeleryProcess:
        self.beat = CeleryProcess("beat", self.runtime.settings, self.folder / f"beat-{time.time_ns()}.log")
        return self.beat

    def start_smtpd(self) -> None:
        self.smtp_port = free_port()
        log = open(self.folder / "smtpd.log", "ab")  # noqa: SIM115 - closed with the process
        command = [sys.executable, "-m", "pbem.cli", "smtpd", "--host", "127.0.0.1", "--port", str(self.smtp_port)]
        env = process_env(self.runtime.settings, **UNLIMITED)
        self.smtpd = subprocess.Popen(command, env=env, stdout=log, stderr=log)
        wait_until(lambda: smtp_listening(self.smtp_port), 60, "pbem smtpd")

    def flush_broker(self) -> None:
        """FLUSHDB on the broker's own database number only."""
        redis.Redis.from_url(self.broker_url).flushdb()

    def stop(self) -> None:
        for process in [*self.workers, *([self.beat] if self.beat else [])]:
            process.stop()
        if self.smtpd is not None and self.smtpd.poll() is None:
            self.smtpd.terminate()
            self.smtpd.wait(timeout=20)

    def logs(self) -> str:
        return "\n".join(path.read_text(errors="replace")[-3000:] for path in sorted(self.folder.glob("*.log")))


def players(game: int) -> list[str]:
    """Four players of their own per game, so that no address reaches the inbound rate limits."""
    return [f"Player {game}-{n} <p{game}-{n}@example.org>" for n in range(4)]


#: Inbound rate limits for the load (a player sends far more than a person would).
UNLIMITED = {"PBEM_MAIL_RATE_SEAT": "1000000", "PBEM_MAIL_RATE_SENDER": "1000000"}


class Load:
    """Plays ``games`` by SMTP until stopped; remembers every message the listener accepted."""

    def __init__(self, stack: Stack, games: int, seed: int = 18):
        self.stack = stack
        self.runtime = stack.runtime
        self.rng = Rng(seed)
        self.game_ids = [start(self.runtime, players=players(n), reminders=[]) for n in range(games)]
        self.accepted: list[str] = []  # Message-IDs the listener took (250)
        self.refused_by_listener = 0
        self._waiting: dict[tuple[int, str], tuple[str, int]] = {}
        self._stop = threading.Event()
        self._running = threading.Event()
        self._running.set()
        self._thread = threading.Thread(target=self._run, name="load", daemon=True)
        self.errors: list[str] = []
        self._serial = 0

    def start(self) -> Load:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._running.set()
        self._thread.join(timeout=60)

    def pause(self) -> None:
        """Stop sending (after the order in hand), so that the stack can settle."""
        self._running.clear()
        time.sleep(0.5)

    def resume(self) -> None:
        self._running.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._running.wait()
            try:
                self._round()
            except Exception as error:  # a database restart: the driver, too, retries
                self.errors.append(f"{type(error).__name__}: {str(error)[:200]}")
                time.sleep(0.5)
            self._stop.wait(0.2)

    def _round(self) -> None:
        from engines import get_engine

        for game_id in self.game_ids:
            game = game_row(self.runtime, game_id)
            if game.status != "active":
                continue
            engine = get_engine(game.engine)
            for seat in game.seats:
                if not self._running.is_set():
                    return
                if seat.seat not in engine.to_act(game.state) or not self._may_send(game, seat.seat):
                    continue
                self._send(game, seat, legal_move(self.runtime, game_id, seat.seat, self.rng, self._serial))

    def _may_send(self, game: Game, seat: str) -> bool:
        """One order per seat and log position, unless the last one was answered without a change."""
        sent = self._waiting.get((game.id, seat))
        if sent is None or sent[1] != game.log_seq:
            return True
        with self.runtime.db.read() as session:
            status = session.scalar(select(InboundMessage.status).where(InboundMessage.message_id == sent[0]))
        return status is not None and status != "pending"

    def _send(self, game: Game, seat, order: str) -> None:
        self._serial += 1
        address = seat_address(self.runtime, seat)
        raw = mail(address, seat.account.email, order, subject=f"Re: [{game.name}] orders")
        message_id = raw.split(b"Message-ID: ", 1)[1].split(b"\n", 1)[0].strip().decode()
        try:
            with smtplib.SMTP("127.0.0.1", self.stack.smtp_port, timeout=30) as client:
                client.sendmail(seat.account.email, [address], raw)
        except (OSError, smtplib.SMTPException):
            self.refused_by_listener += 1  # a 4xx while the database is down: the sender's MTA retries
            return
        self.accepted.append(message_id)
        self._waiting[(game.id, seat.seat)] = (message_id, game.log_seq)


@dataclass
class Figures:
    fault: str
    orders_sent: int
    orders_applied: int
    orders_lost: int
    orders_unanswered: int
    emails_sent: int
    duplicates: int
    stuck_games: int
    verified: int
    recovery_seconds: float

    def row(self) -> str:
        cells = [*(str(value) for value in list(vars(self).values())[:-1]), f"{self.recovery_seconds:.0f}"]
        return "| " + " | ".join(cells) + " |"


def settled(runtime) -> bool:
    """Nothing waits: no unprocessed mail, no unsent email, no deadline overdue."""
    overdue = utcnow()
    with runtime.db.read() as session:
        inbound = session.scalar(select(func.count(InboundMessage.id)).where(InboundMessage.status == "pending"))
        outgoing = session.scalar(
            select(func.count(OutboxMessage.id)).where(OutboxMessage.status.in_(("pending", "sending")))
        )
        late = session.scalar(
            select(func.count(Game.id)).where(Game.status == "active", Game.deadline < overdue)
        )  # fmt: skip
    return inbound == 0 and outgoing == 0 and late == 0


def settle(runtime, timeout: float) -> float:
    """Wait until :func:`settled` (retrying through connection errors); seconds it took."""
    began = time.monotonic()
    deadline = began + timeout
    while time.monotonic() < deadline:
        try:
            done = settled(runtime)
        except DBAPIError:  # the database may still be coming back
            done = False
        if done:
            return time.monotonic() - began
        time.sleep(0.5)
    raise AssertionError(f"the stack did not settle within {timeout:.0f} s")


def check(runtime, load: Load, relay: Relay, fault: str, seen: int, recovery: float) -> Figures:
    """The figures after one fault (emails from index ``seen`` of the relay's list on)."""
    with runtime.db.read() as session:
        outcomes = dict(session.execute(
            select(InboundMessage.message_id, InboundMessage.verdict).where(
                InboundMessage.status != "pending", InboundMessage.message_id.in_(load.accepted))
        ).all())  # fmt: skip
        stuck = session.scalar(
            select(func.count(Game.id)).where(Game.status == "active", Game.deadline < utcnow())
        )  # fmt: skip
    received = relay.messages
    counts = collections.Counter(m.message["Message-ID"] for m in received)
    fresh = collections.Counter(m.message["Message-ID"] for m in received[seen:])
    duplicates = sum(1 for key in fresh if counts[key] > 1)
    verified = sum(runtime.in_reading(verify, game_id).ok for game_id in load.game_ids)
    applied = sum(1 for verdict in outcomes.values() if (verdict or "").startswith("orders: 1 accepted"))
    lost = len(set(load.accepted) - set(outcomes))
    unanswered = sum(1 for verdict in outcomes.values() if not (verdict or "").startswith("orders:"))
    emails = len(received) - seen
    return Figures(fault, len(load.accepted), applied, lost, unanswered, emails, duplicates, stuck or 0, verified,
                   recovery)  # fmt: skip
