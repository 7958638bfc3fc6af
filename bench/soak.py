"""A month of play on a fast clock through the real server: ``python -m bench soak --days N [--json]``.

``pbem serve`` runs as it would for players (web, worker with beat, SMTP listener),
on a clock ``--rate`` times real time (``PBEM_CLOCK_RATE``), its mail going to an
SMTP sink on loopback.  Every engine the server lists (``pbem engines``: a game
installed as a package too) gets two tables, each a series (a finished game is
followed by a new one of the same set-up):

* late policy ``bot:2``, a turn a day: Ann plays by email, Cat never acts, bots fill the table;
* late policy ``grace:1``, two days a turn (both reminders armed): Bob plays on the web, Eve by
  email, Dan reads a daily digest and never acts.

The first engine's ``bot:2`` game is paused for a day by the admin (``pbem game pause``/``resume``)
and Eve takes a vacation in its ``grace:1`` game.  Players act at a random moment of each turn.

Measured: each deadline the status pages showed, whether the server handled it and how late (in
game minutes and the real seconds they stand for); games stuck (a deadline still shown more than
``--tolerance`` real seconds, default 30, after its time at the end of the run); emails
delivered twice; each player's emails per day by kind (the outbox's kind of each email that
reached the sink); absent players; ``pbem game verify`` of every game; the database file and the
server's memory at the start and the end.  ``--json`` prints the shape of the design's row.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import signal
import smtplib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.procs import tree_rss
from engines import get_engine
from tests.support.services import free_port
from tests.support.smtp_sink import SmtpSink

DAY = 86400.0
DOMAIN = "soak.example"
SECRET = "soak-" + "k" * 40
#: Who plays how: "mail" and "web" act every turn; "silent" and "digest" never act (absent players).
PLAYERS = {
    "ann": "mail",
    "bob": "web",
    "eve": "mail",
    "cat": "silent",
    "dan": "digest",
}
#: The two tables of each engine: (late policy, turn length, humans).
TABLES = (
    ("bot:2", "1d", ("ann", "cat")),
    ("grace:1", "2d", ("bob", "eve", "dan")),
)
#: The grace games' deadlines fall at an hour people keep: 20:00 in Paris (the others' at any hour).
DEADLINE_HOUR = {1: ("20", "Europe/Paris")}
#: A driven player acts this far into a turn (a share of the time left), at random.
ACT_WITHIN = (0.05, 0.6)


def address(name: str) -> str:
    return f"{name}@{DOMAIN}"


class GameClock:
    """The server's clock as the driver reads it: the same formula from the same epoch and rate."""

    def __init__(self, rate: float, epoch: float) -> None:
        self.rate, self.epoch = rate, epoch

    def now(self) -> float:
        real = time.time()
        return self.epoch + (real - self.epoch) * self.rate

    def of_real(self, real: float) -> float:
        return self.epoch + (real - self.epoch) * self.rate


def fmt(moment: float) -> str:
    return dt.datetime.fromtimestamp(moment, dt.UTC).strftime("%Y-%m-%d %H:%M")


def parse_time(text: str | None) -> float | None:
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@dataclass
class Deadline:
    """One deadline a status page showed: when it was seen, and when the page first showed another."""

    at: float
    changed_at: float | None = None


@dataclass
class Seat:
    game_id: int
    seat: str
    player: str
    play_url: str
    reply_address: str
    #: The turn (phase and deadline) this seat last planned for, and when it acts in it (game time).
    turn: tuple[str, str | None] | None = None
    act_at: float | None = None
    acted_at: float = 0.0


@dataclass
class Game:
    id: int
    engine: str
    table: int
    status: str = "active"
    etag: str | None = None
    deadline: str | None = None
    phase: str = ""
    deadlines: dict[str, Deadline] = field(default_factory=dict)
    seats: list[Seat] = field(default_factory=list)


class Soak:
    """The server, its sink and the driver playing the seats."""

    def __init__(self, days: float, rate: float, tolerance_real: float, seed: int) -> None:
        self.days, self.rate, self.seed = days, rate, seed
        self.rng = random.Random(seed)
        self.folder = Path(tempfile.mkdtemp(prefix="pbem-soak-"))
        self.web_port, self.smtp_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.web_port}"
        self.sink = SmtpSink()
        self.epoch = time.time()
        self.clock = GameClock(rate, self.epoch)
        self.tolerance = max(3600.0, tolerance_real * rate)
        self.games: list[Game] = []
        self.server: subprocess.Popen | None = None
        self.serial = 0
        self.events: list[tuple[float, str, Any]] = []
        self.notes: list[str] = []
        self.db_days: list[int] = []
        #: Eve's vacation once declared: (her seat, from when, days), in game time.
        self.vacation: tuple[Seat, float, int] | None = None
        self.stopped = False
        #: Real seconds of each part of the run.
        self.timings: dict[str, float] = {}
        self.lock = threading.Lock()

    # -- the server ------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            PBEM_INSTANCE=str(self.folder / "instance"),
            PBEM_SECRET_KEY=SECRET,
            PBEM_MAIL_DOMAIN=DOMAIN,
            PBEM_SMTP_URL=self.sink.url,
            PBEM_CLOCK_RATE=f"{self.rate:g}",
            PBEM_CLOCK_EPOCH=f"{self.epoch:.6f}",
        )
        for name in ("PBEM_DATABASE_URL", "PBEM_BROKER_URL", "PBEM_BASE_URL", "PBEM_IMAP_URL", "PBEM_ENV_FILE"):
            env.pop(name, None)
        root = str(Path(__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        return env

    def pbem(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pbem.cli", *args],
            env=self.env(),
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def start(self) -> None:
        self.sink.__enter__()
        log = open(self.folder / "serve.log", "w")  # noqa: SIM115 - open while the server runs
        self.server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pbem.cli",
                "serve",
                "--port",
                str(self.web_port),
                "--smtp-port",
                str(self.smtp_port),
            ],
            env=self.env(),
            cwd=self.folder,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2):
                    return
            except (OSError, urllib.error.URLError):
                if self.server.poll() is not None:
                    raise SystemExit(f"pbem serve exited: see {self.folder / 'serve.log'}") from None
                time.sleep(0.3)
        raise SystemExit("pbem serve did not answer within two minutes")

    def stop(self) -> None:
        if self.stopped:
            return
        self.stopped = True
        if self.server is not None and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.server.kill()
        self.sink.__exit__(None, None, None)

    def tracebacks(self) -> int:
        try:
            return (self.folder / "serve.log").read_text(errors="replace").count("Traceback (most recent call last)")
        except OSError:
            return -1

    def rss_mb(self) -> float:
        return round(sum(mb for _pid, _name, mb in tree_rss(self.server.pid)), 1) if self.server else 0.0

    def db_bytes(self) -> int:
        path = self.folder / "instance" / "pbem.sqlite3"
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())

    # -- the games ----------------------------------------------------------------------------

    def engines(self) -> list[dict[str, Any]]:
        done = self.pbem("engines", "--json")
        if done.returncode:
            raise SystemExit(f"pbem engines failed: {done.stderr}")
        return json.loads(done.stdout)

    def create(self, engine: dict[str, Any], table: int) -> Game:
        late, turn, humans = TABLES[table]
        bots = max(1, engine["min_players"] - len(humans)) if table == 0 else max(0, engine["min_players"] - 3)
        seats = len(humans) + bots
        if seats > engine["max_players"]:
            raise SystemExit(f"{engine['name']}: {seats} seats do not fit its {engine['max_players']} players")
        with self.lock:
            self.serial += 1
            serial = self.serial
        args = ["game", "create", "--engine", engine["name"], "--deadline", turn, "--late", late, "--json"]
        args += [
            "--name",
            f"{engine['title']} {'AB'[table]}{serial}",
            "--seed",
            str(self.seed * 1000 + serial),
        ]
        for name in humans:
            args += ["--player", f"{name.title()} <{address(name)}>"]
        if bots:
            args += ["--bot", str(bots)]
        if table in DEADLINE_HOUR:
            hour, zone = DEADLINE_HOUR[table]
            args += ["--deadline-hour", hour, "--timezone", zone]
        done = self.pbem(*args)
        if done.returncode:
            raise SystemExit(f"cannot start a {engine['name']} game: {done.stdout}{done.stderr}")
        made = json.loads(done.stdout)
        game = Game(made["id"], engine["name"], table)
        for seat in made["seats"]:
            player = seat["email"].split("@")[0]
            if not seat["bot"]:
                game.seats.append(Seat(game.id, seat["seat"], player, seat["play_url"], seat["reply_address"]))
        with self.lock:
            self.games.append(game)
        return game

    def plan_events(self, first_bot_game: Game, first_grace_game: Game) -> None:
        """The admin's pause, Eve's vacation and Dan's digest, at fixed points of the run (game time)."""
        start, span = self.start_at, self.days * DAY
        pause_at = start + min(1.5 * DAY, 0.3 * span)
        self.events += [
            (start, "digest", None),
            (pause_at, "pause", first_bot_game.id),
            (pause_at + min(DAY, 0.2 * span), "resume", first_bot_game.id),
            (start + min(2 * DAY, 0.2 * span), "vacation", first_grace_game.id),
        ]
        self.events.sort(key=lambda event: event[0])

    def run_event(self, kind: str, game_id: int | None) -> None:
        if kind == "digest":  # any seat's reply address takes a preference of the account
            dan = next(seat for game in self.games for seat in game.seats if seat.player == "dan")
            self.mail(dan, "notify digest")
        elif kind in ("pause", "resume"):
            done = self.pbem("game", kind, str(game_id))
            self.notes.append(f"{kind} game {game_id}: exit {done.returncode}")
        elif kind == "vacation":
            eve = next(seat for seat in self.game(game_id).seats if seat.player == "eve")
            days = max(1, min(5, int(self.days // 6)))
            self.vacation = (eve, self.clock.now(), days)
            self.mail(eve, f"vacation {days}")
            self.notes.append(f"eve: vacation {days} in game {game_id}")

    def game(self, game_id: int) -> Game:
        return next(game for game in self.games if game.id == game_id)

    # -- the players --------------------------------------------------------------------------

    def mail(self, seat: Seat, body: str) -> None:
        message = EmailMessage()
        message["From"] = f"{seat.player.title()} <{address(seat.player)}>"
        message["To"] = seat.reply_address
        message["Subject"] = "Re: orders"
        message.set_content(body + "\n")
        with smtplib.SMTP("127.0.0.1", self.smtp_port, timeout=30) as client:
            client.send_message(message)

    def http(self, url: str, data: dict | None = None, etag: str | None = None) -> tuple[int, dict | None, str | None]:
        headers = {"If-None-Match": etag} if etag else {}
        body = None
        if data is not None:
            body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
        request = urllib.request.Request(url, data=body, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read()), answer.headers.get("ETag")
        except urllib.error.HTTPError as error:
            return error.code, None, etag

    def away(self, seat: Seat) -> bool:
        holiday = self.vacation
        if holiday is None or holiday[0] is not seat:
            return False
        _seat, since, days = holiday
        return since <= self.clock.now() < since + days * DAY

    def drive(self, game: Game, seat: Seat) -> None:
        """Act once the planned moment of this turn has come: one legal order, by email or on the web."""
        if PLAYERS[seat.player] not in ("mail", "web") or self.away(seat) or game.status != "active":
            return
        turn = (game.phase, game.deadline)
        now = self.clock.now()
        if seat.turn != turn:
            deadline = parse_time(game.deadline) or now + DAY
            seat.turn, seat.act_at = turn, now + self.rng.uniform(*ACT_WITHIN) * max(0.0, deadline - now)
        if seat.act_at is None or now < seat.act_at or now - seat.acted_at < 2 * self.rate:
            return
        status, view, _tag = self.http(seat.play_url + ".json")
        if status != 200 or not view or not view.get("to_act"):
            seat.act_at = None if status == 200 else seat.act_at
            return
        words = f"soak {self.serial}"
        legal = [order for order in view.get("legal_orders") or [] if order] + [
            " ".join(f"{item['order']} {words} {item.get('after', '')}".split())
            for item in view.get("text_orders") or []
        ]
        if not legal:
            return
        order = self.rng.choice(legal)
        seat.acted_at = now
        if PLAYERS[seat.player] == "web":
            self.http(seat.play_url + ".json", {"orders": order})
        else:
            self.mail(seat, order)

    # -- watching -----------------------------------------------------------------------------

    def observe(self, game: Game) -> None:
        status, page, etag = self.http(f"{self.base}/games/{game.id}.json", etag=game.etag)
        if status != 200 or page is None:
            return
        now = self.clock.now()
        game.etag, game.status, game.phase = etag, page["status"], str(page.get("phase") or "")
        deadline = page.get("deadline") if game.status == "active" else None
        if deadline != game.deadline:
            if game.deadline in game.deadlines and game.deadlines[game.deadline].changed_at is None:
                game.deadlines[game.deadline].changed_at = now
            if deadline:
                game.deadlines.setdefault(deadline, Deadline(parse_time(deadline) or now))
            game.deadline = deadline

    def run(self) -> dict[str, Any]:
        began = time.monotonic()
        self.start()
        engines = self.engines()
        with ThreadPoolExecutor(4) as pool:  # each is a CLI run: start-up is most of it
            firsts = list(
                pool.map(lambda pair: self.create(*pair), [(e, t) for e in engines for t in range(len(TABLES))])
            )
        self.games.sort(key=lambda game: game.id)
        self.start_at = self.clock.now()
        self.end_at = self.start_at + self.days * DAY
        self.plan_events(firsts[0], firsts[1])
        time.sleep(min(3.0, 0.05 * DAY / self.rate))
        start_db, start_rss = self.db_bytes(), self.rss_mb()
        self.timings["start and set-up"] = time.monotonic() - began
        began = time.monotonic()
        next_day = self.start_at + DAY
        while self.clock.now() < self.end_at:
            if self.server.poll() is not None:
                raise SystemExit(f"pbem serve died: see {self.folder / 'serve.log'}")
            while self.events and self.events[0][0] <= self.clock.now():
                _at, kind, game_id = self.events.pop(0)
                self.run_event(kind, game_id)
            for game in list(self.games):
                if game.status not in ("active", "paused"):
                    continue
                self.observe(game)
                for seat in game.seats:
                    self.drive(game, seat)
                if game.status in ("finished", "cancelled"):  # the series goes on with a fresh game
                    engine = next(e for e in engines if e["name"] == game.engine)
                    self.create(engine, game.table)
            if self.clock.now() >= next_day:
                self.db_days.append(self.db_bytes())
                next_day += DAY
            time.sleep(0.2)
        for game in self.games:
            self.observe(game)
        end_db, end_rss = self.db_bytes(), self.rss_mb()
        self.timings["play"] = time.monotonic() - began
        began = time.monotonic()
        time.sleep(1.0)  # the last emails of the run reach the sink
        self.stop()
        self.timings["stop"] = time.monotonic() - began
        began = time.monotonic()
        report = self.report([start_db, end_db], [start_rss, end_rss])
        self.timings["verify and count"] = time.monotonic() - began
        return report

    # -- the figures --------------------------------------------------------------------------

    def deadline_figures(self, game: Game) -> tuple[int, int, list[float]]:
        """(deadlines that came due, those the server handled, how late each was handled: game seconds).

        A deadline came due if the status page still showed it once its time had passed; it was handled
        when the page first showed another deadline or status (the turn moved on, a grace period or a
        vacation moved it).  One still shown at the end, more than the tolerance past its time, was never
        handled: its game is stuck.  One that came due within the tolerance of the end is not counted.
        """
        expected = fired = 0
        late: list[float] = []
        for seen in game.deadlines.values():
            if seen.changed_at is None:
                expected += seen.at < self.end_at - self.tolerance
                continue
            if seen.changed_at < seen.at:
                continue  # settled before it came due (everyone acted), or the game paused
            expected, fired = expected + 1, fired + 1
            late.append(seen.changed_at - seen.at)
        return expected, fired, late

    def hour_figures(self) -> tuple[int, int]:
        """(deadlines of the games with a deadline hour, those that fell at it in its zone)."""
        shown = at_hour = 0
        for game in self.games:
            if game.table not in DEADLINE_HOUR:
                continue
            hour, zone = DEADLINE_HOUR[game.table]
            for seen in game.deadlines.values():
                local = dt.datetime.fromtimestamp(seen.at, ZoneInfo(zone))
                shown += 1
                at_hour += (local.hour, local.minute) == (int(hour), 0)
        return shown, at_hour

    def vacation_notes(self, received: list, kinds: dict[str, str], games: dict[str, int]) -> list[str]:
        """After Eve's vacation: the deadline that waited for her, and the reminders she got before it."""
        if self.vacation is None:
            return []
        seat, since, days = self.vacation
        back = since + days * DAY
        game = self.game(seat.game_id)
        after = sorted(seen.at for seen in game.deadlines.values() if seen.at >= back)
        if not after:
            return [f"eve's vacation ends {fmt(back)}; no deadline after it within the run"]
        due = after[0]
        reminders = [
            fmt(self.clock.of_real(item.at))
            for item in received
            if address("eve") in item.recipients
            and kinds.get(item.message["Message-ID"]) == "reminder"
            and games.get(item.message["Message-ID"]) == game.id
            and back - DAY <= self.clock.of_real(item.at) <= due
        ]
        return [
            f"eve's vacation ended {fmt(back)}; the next deadline of her game {fmt(due)} "
            f"({(due - back) / 3600:.1f} h later); reminders to eve in between: {', '.join(reminders) or 'none'}"
        ]

    def outbox_kinds(self, db: sqlite3.Connection) -> tuple[dict[str, str], dict[str, int]]:
        """The outbox's kind and game of each email, by Message-ID (the envelope kept after pruning)."""
        rows = db.execute("SELECT message_id, kind, game_id FROM outbox").fetchall()
        key = [f"<{mid.strip('<>')}>" for mid, _kind, _game in rows]
        return dict(zip(key, (kind for _m, kind, _g in rows), strict=True)), {
            k: game for k, (_m, _kind, game) in zip(key, rows, strict=True) if game is not None
        }

    def report(self, db_bytes: list[int], rss: list[float]) -> dict[str, Any]:
        path = self.folder / "instance" / "pbem.sqlite3"
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        kinds, game_of = self.outbox_kinds(db)
        received = self.sink.messages
        copies = Counter((tuple(item.recipients), item.message["Message-ID"]) for item in received)
        duplicates = sum(count - 1 for count in copies.values())
        per_player: dict[str, Counter] = defaultdict(Counter)
        per_day: dict[str, Counter] = defaultdict(Counter)
        for item in received:
            game_time = self.clock.of_real(item.at)
            if not self.start_at <= game_time <= self.end_at:
                continue
            kind = kinds.get(item.message["Message-ID"], "unknown")
            for recipient in item.recipients:
                per_player[recipient][kind] += 1
                per_day[recipient][int((game_time - self.start_at) // DAY)] += 1
        emails_per_day = {
            player: {"all": round(sum(counts.values()) / self.days, 2)}
            | {kind: round(n / self.days, 2) for kind, n in counts.most_common()}
            for player, counts in sorted(per_player.items())
        }
        games = []
        lateness: list[float] = []
        with ThreadPoolExecutor(4) as pool:
            verdicts = list(pool.map(lambda game: self.pbem("game", "verify", str(game.id)).returncode, self.games))
        for game, verdict in zip(self.games, verdicts, strict=True):
            expected, fired, late = self.deadline_figures(game)
            lateness += late
            verified = verdict == 0
            games.append(
                {
                    "id": game.id,
                    "engine": game.engine,
                    "deadlines_expected": expected,
                    "deadlines_fired": fired,
                    "verified": verified,
                }
            )
        self.lateness, self.busiest = lateness, {p: max(days.values()) for p, days in per_day.items()}
        self.notes += self.vacation_notes(received, kinds, game_of)
        return {
            "days": self.days,
            "games": games,
            "stuck": sum(g["deadlines_expected"] > g["deadlines_fired"] for g in games),  # a deadline never handled
            "duplicates": duplicates,
            "deadlines_at_the_hour": dict(zip(("shown", "at_hour"), self.hour_figures(), strict=True)),
            "emails_per_day": emails_per_day,
            "absent_players": absent_players(db),
            "not_asked": {"reminders_to_bot_played": reminders_to_bot_played(db), **grace_notices(db)},
            "db_bytes": db_bytes,
            "rss_mb": rss,
        }


def absent_players(db: sqlite3.Connection) -> list[str]:
    """Players (not the server's bots) who sent no order of their own, by email or on the web, in any
    of their games during the run: every order of their seats was the bot's or the game's defaults."""
    seats = db.execute(
        "SELECT a.email, s.game_id, s.seat FROM seats s JOIN accounts a ON a.id = s.account_id "
        "WHERE a.email NOT LIKE '%@bot.invalid'"
    ).fetchall()
    acted = {
        (game_id, seat)
        for game_id, seat in db.execute(
            "SELECT DISTINCT game_id, seat FROM game_log WHERE kind = 'order' AND source <> 'bot'"
        )
    }
    players: dict[str, bool] = {}
    for email, game_id, seat in seats:
        players[email] = players.get(email, False) or (game_id, seat) in acted
    return sorted(email for email, active in players.items() if not active)


#: Statuses of an email that went (or goes) to its reader.
MAILED = ("pending", "sending", "sent", "failed")


def reminders_to_bot_played(db: sqlite3.Connection) -> int:
    """Reminders mailed to a seat whose latest order before them was the bot's: none should ask a player to
    act for a seat the bot plays."""
    return db.execute(
        "SELECT count(*) FROM outbox o JOIN seats s ON s.id = o.seat_id "
        f"WHERE o.kind = 'reminder' AND o.status IN {MAILED} AND ("
        "  SELECT source FROM game_log g WHERE g.game_id = o.game_id AND g.seat = s.seat AND g.kind = 'order'"
        "  AND g.created_at < o.created_at ORDER BY g.seq DESC LIMIT 1) = 'bot'"
    ).fetchone()[0]


def grace_notices(db: sqlite3.Connection) -> dict[str, int]:
    """In the games played one seat at a time: grace periods, and the notices of them mailed to a seat the
    grace did not wait for (a bystander) — the notice and its log entry are written in one transaction."""
    one_at_a_time = {
        gid for gid, engine in db.execute("SELECT id, engine FROM games") if get_engine(engine).one_at_a_time
    }
    names = dict(db.execute("SELECT id, seat FROM seats"))
    graces = bystanders = 0
    for game_id, text, at in db.execute("SELECT game_id, text, created_at FROM game_log WHERE kind = 'admin'"):
        if game_id not in one_at_a_time or not text.startswith("grace "):
            continue
        graces += 1
        late = set(text.split(": ", 1)[1].split(", "))
        moment = dt.datetime.fromisoformat(at)
        window = [str(moment + dt.timedelta(seconds=sign * 5)) for sign in (-1, 1)]
        notices = db.execute(
            f"SELECT seat_id FROM outbox WHERE game_id = ? AND kind = 'admin' AND status IN {MAILED} "
            "AND created_at BETWEEN ? AND ?",
            (game_id, *window),
        )
        bystanders += sum(names[seat_id] not in late for (seat_id,) in notices)
    return {"grace_periods_one_at_a_time": graces, "grace_notices_to_bystanders": bystanders}


def summary(soak: Soak, result: dict[str, Any]) -> list[str]:
    """The run in words, for a reader (``--json`` prints only the figures)."""
    lateness = sorted(soak.lateness) or [0.0]
    lines = [
        f"{result['days']:g} simulated days at {soak.rate:g} times real time, {len(result['games'])} games "
        f"({', '.join(sorted({g['engine'] for g in result['games']}))})",
        f"deadlines: {sum(g['deadlines_expected'] for g in result['games'])} came due, "
        f"{sum(g['deadlines_fired'] for g in result['games'])} handled; handled late by "
        + ", ".join(
            f"{name} {value / 60:.1f} min ({value / soak.rate:.1f} s real)"
            for name, value in (
                ("p50", statistics.median(lateness)),
                ("p90", lateness[int(0.9 * (len(lateness) - 1))]),
                ("max", lateness[-1]),
            )
        ),
        "deadline hour (the grace games, {} {}): {at_hour} of {shown} deadlines shown fell at it".format(
            *DEADLINE_HOUR[1], **result["deadlines_at_the_hour"]
        ),
        f"stuck games: {result['stuck']}; duplicates: {result['duplicates']}; "
        f"unverified: {[g['id'] for g in result['games'] if not g['verified']]}",
        f"database: {result['db_bytes'][0] / 1e6:.2f} MB -> {result['db_bytes'][1] / 1e6:.2f} MB; by day (MB): "
        + " ".join(f"{size / 1e6:.2f}" for size in soak.db_days),
        f"memory of pbem serve's processes: {result['rss_mb'][0]} MB -> {result['rss_mb'][1]} MB",
        f"tracebacks in the server's log: {soak.tracebacks()}",
        f"absent players: {', '.join(result['absent_players']) or 'none'}",
        "mailed to those not asked to act: {reminders_to_bot_played} reminders to a seat the bot played; "
        "{grace_notices_to_bystanders} grace notices to bystanders, of {grace_periods_one_at_a_time} grace "
        "periods in one-at-a-time games".format(**result["not_asked"]),
        "emails per player per day (busiest day):",
    ]
    for player, counts in result["emails_per_day"].items():
        kinds = ", ".join(f"{kind} {n}" for kind, n in counts.items() if kind != "all")
        lines.append(f"  {player}: {counts['all']} ({soak.busiest.get(player, 0)}): {kinds}")
    lines.append("real time: " + ", ".join(f"{part} {seconds:.0f} s" for part, seconds in soak.timings.items()))
    return lines + [f"note: {note}" for note in soak.notes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench soak", description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=float, default=30.0, help="simulated days (default 30)")
    parser.add_argument("--rate", type=float, default=1080.0, help="game seconds per real second (default 1080)")
    parser.add_argument(
        "--tolerance", type=float, default=30.0, help="real seconds past its time a deadline still shown means stuck"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the instance folder and the server's log")
    args = parser.parse_args(argv)
    if args.days <= 0 or args.rate < 1:
        parser.error("--days must be above 0 and --rate at least 1")
    soak = Soak(args.days, args.rate, args.tolerance, args.seed)
    try:
        result = soak.run()
    finally:
        soak.stop()
    if args.json:  # the figures on stdout, the words on stderr
        print(json.dumps(result, indent=2))
        print("\n".join(summary(soak, result)), file=sys.stderr)
    else:
        print("\n".join(summary(soak, result)))
    if args.keep:
        print(f"instance and log kept in {soak.folder}", file=sys.stderr)
    else:
        shutil.rmtree(soak.folder, ignore_errors=True)
    sound = not result["stuck"] and not result["duplicates"] and all(g["verified"] for g in result["games"])
    return 0 if sound else 1


if __name__ == "__main__":
    sys.exit(main())
