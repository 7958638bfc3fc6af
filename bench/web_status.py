"""Status-page throughput under gunicorn, beside a bare Flask route, in one run.

    python bench/web_status.py [--games 1000] [--seconds 5] [--clients 16] [--workers 2] [--json]

Builds a temporary SQLite instance with ``--games`` games (KidSprout and Rank
Chain, half each, a few orders played in some), serves the real app with
gunicorn on a loopback port, and measures requests per second with a simple
concurrent client (threads + keep-alive ``http.client``; bounded by time and
request count) for ``/healthz`` (a bare Flask route) and for ``/games/<id>``
(random ids).  Prints both rates and their ratio.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>", "Di <di@example.org>"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def build_database(instance: Path, games: int) -> str:
    """A database with ``games`` games; returns its URL."""
    from engines.rng import Rng
    from pbem.config import load_settings
    from pbem.migrations import upgrade
    from pbem.runtime import make_runtime
    from pbem.services.play import games as game_service
    from tests.support.play import play_one

    url = f"sqlite:///{instance / 'pbem.sqlite3'}"
    settings = load_settings(instance=instance, database_url=url, broker_url="filesystem://", smtp_url=None)
    upgrade(url)
    runtime = make_runtime(settings)
    rng = Rng(1)
    for index in range(games):
        engine = "kidsprout" if index % 2 == 0 else "rankchain"
        players = PLAYERS[: 3 + index % 2] if engine == "kidsprout" else PLAYERS[: 2 + index % 3]
        game_id = runtime.in_unit(
            game_service.create_game,
            game_service.NewGame(engine=engine, players=players, seed=index, deadline_seconds=86400),
        )
        if index % 10 == 0:
            for serial in range(6):
                play_one(runtime, game_id, rng, serial)
    return url


def wait_up(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not come up")


def measure(
    port: int,
    paths,
    seconds: float,
    clients: int,
    max_requests: int,
    headers: dict[str, str] | None = None,
    ok: tuple[int, ...] = (200,),
) -> dict[str, float]:
    """Requests per second over ``seconds`` (or until ``max_requests``) with ``clients`` threads.

    ``paths(rng)`` gives each request's path, or ``(path, headers)``; answers with a status in ``ok`` count."""
    done = [0] * clients
    failures = [0] * clients
    stop_at = time.monotonic() + seconds
    budget = max_requests // clients

    def run(slot: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        pick = random.Random(slot)
        while time.monotonic() < stop_at and done[slot] < budget:
            try:
                path = paths(pick)
                path, extra = path if isinstance(path, tuple) else (path, {})
                connection.request("GET", path, headers={**(headers or {}), **extra})
                response = connection.getresponse()
                response.read()
                if response.status in ok:
                    done[slot] += 1
                else:
                    failures[slot] += 1
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            except (OSError, http.client.HTTPException):
                failures[slot] += 1
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.close()

    started = time.monotonic()
    threads = [threading.Thread(target=run, args=(slot,)) for slot in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    return {
        "requests": sum(done),
        "failures": sum(failures),
        "seconds": round(elapsed, 2),
        "rps": round(sum(done) / elapsed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp:
        instance = Path(tmp) / "instance"
        instance.mkdir()
        built = time.monotonic()
        url = build_database(instance, args.games)
        build_seconds = time.monotonic() - built
        port = free_port()
        env = dict(
            os.environ,
            PBEM_INSTANCE=str(instance),
            PBEM_DATABASE_URL=url,
            PBEM_BROKER_URL="filesystem://",
            PBEM_SECRET_KEY="bench-secret-of-the-pbem-benchmarks-0123",
            PYTHONPATH=str(ROOT),
        )
        env.pop("PBEM_SMTP_URL", None)
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            str(args.workers),
            "--threads",
            str(args.threads),
            "--worker-class",
            "gthread",
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            "pbem.app:create_app()",
        ]
        server = subprocess.Popen(command, env=env, cwd=tmp)
        try:
            wait_up(port)
            bare = lambda pick: "/healthz"  # noqa: E731
            status = lambda pick: f"/games/{pick.randint(1, args.games)}"  # noqa: E731
            measure(port, bare, 1.0, args.clients, args.max_requests)  # warm-up
            counter = iter(range(10**9))
            first = lambda pick: f"/games/{next(counter) % args.games + 1}"  # noqa: E731
            # each game's first views (per worker): data loaded from the database, board rendered
            cold = measure(port, first, 60.0, args.clients, args.games * args.workers)
            healthz = measure(port, bare, args.seconds, args.clients, args.max_requests)
            page = measure(port, status, args.seconds, args.clients, args.max_requests)
        finally:
            server.terminate()
            server.wait(timeout=20)
    ratio = page["rps"] / healthz["rps"] if healthz["rps"] else 0.0
    result = {
        "games": args.games,
        "database_build_seconds": round(build_seconds, 1),
        "gunicorn": f"{args.workers} workers x {args.threads} threads (gthread)",
        "clients": args.clients,
        "healthz": healthz,
        "status_page_first_views": cold,
        "status_page": page,
        "ratio": round(ratio, 3),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"{args.games} games in the database (built in {build_seconds:.1f}s); gunicorn {result['gunicorn']}; "
            f"{args.clients} client threads"
        )
        print(
            f"/healthz      {healthz['rps']:>8.1f} req/s ({healthz['requests']} in {healthz['seconds']}s, "
            f"{healthz['failures']} failures)"
        )
        print(
            f"/games/<id>   {page['rps']:>8.1f} req/s ({page['requests']} in {page['seconds']}s, "
            f"{page['failures']} failures)"
        )
        cold_ratio = cold["rps"] / healthz["rps"] if healthz["rps"] else 0.0
        print(f"(first views of each game, cache cold: {cold['rps']:.1f} req/s, ratio {cold_ratio:.3f})")
        print(f"ratio status/bare = {ratio:.3f} (aim: >= 0.333)")


if __name__ == "__main__":
    main()
