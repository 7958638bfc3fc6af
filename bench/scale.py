"""Many games on one machine: lists, pages, deadlines, the sweep and memory, each beside a baseline.

    python -m bench scale [--games 100000] [--small 1000] [--due 1000] [--due-window 60] [--seconds 3]

In a fresh PostgreSQL schema (dropped afterwards): ``--small`` active games
are seeded (:mod:`bench.scale_seed`), the web lists, pages and the sweep are
measured, the database grows to ``--games`` and the same is measured again.
Then ``--due`` of the games get a deadline within ``--due-window`` seconds and a
real Celery worker and beat (over Redis) fire them: lateness p50/p99.  After
that the resident memory of the web and worker processes, the database size
per game and the embedded ``pbem serve``'s memory beside the layout it replaced.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

from bench.common import bench_runtime
from bench.procs import name_of, rss_mb, tree_of
from bench.scale_seed import TEMPLATES, make_templates, seed
from bench.scale_web import add_admin, admin_cookie, measure, start_gunicorn, web_env
from pbem.clock import utcnow
from pbem.services.ops import sweep
from tests.support.services import REDIS_URL, postgres_schema

ROOT = Path(__file__).resolve().parents[1]


def web_rates(port: int, cookie: str, games: int, tokens: list[str], seconds: float, clients: int) -> dict:
    """Requests/s of each route; lists at their first page and at a random keyset cursor."""
    admin = {"Cookie": cookie}
    routes = {
        "/healthz": (lambda r: "/healthz", None),
        "/": (lambda r: "/", None),
        "/?page=N&after=ID": (lambda r: f"/?page=9&after={r.randint(1, games)}", None),
        "/admin/games": (lambda r: "/admin/games", admin),
        "/admin/games?page=N&after=ID": (lambda r: f"/admin/games?page=9&after={r.randint(1, games)}", admin),
        "/admin/": (lambda r: "/admin/", admin),
        "/games/<id>": (lambda r: f"/games/{r.randint(1, games)}", None),
        "/games/<id>.json": (lambda r: f"/games/{r.randint(1, games)}.json", None),
        "/play/<token>.json": (lambda r: f"/play/{r.choice(tokens)}.json", None),
    }
    measure(port, routes["/"][0], min(1.0, seconds), clients)  # warm-up
    return {name: measure(port, path, seconds, clients, headers) for name, (path, headers) in routes.items()}


def analyze(runtime) -> None:
    """Planner statistics after a bulk load, as autovacuum would gather them on a live server."""
    with runtime.db.engine.connect() as connection:
        connection.execute(sa.text("ANALYZE"))
        connection.commit()


def sweep_ms(runtime, runs: int) -> float:
    """Fastest wall time of one sweep (its queries; nothing is due, nothing is nudged).

    The fastest of several runs, not the median: on a shared machine the median
    measures the neighbours' load more than the queries."""
    nudger, runtime.nudger = runtime.nudger, lambda *_: None
    try:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            runtime.in_unit(sweep.sweep)
            times.append((time.perf_counter() - started) * 1000)
        return round(min(times), 2)
    finally:
        runtime.nudger = nudger


def sample_tokens(runtime, count: int = 5000) -> list[str]:
    with runtime.db.engine.connect() as connection:
        query = sa.text("SELECT web_token FROM seats ORDER BY random() LIMIT :n")
        return list(connection.execute(query, {"n": count}).scalars())


def size_per_game(runtime, games: int) -> dict[str, float]:
    """Bytes per game of each table (heap, indexes and TOAST) and in all."""
    query = sa.text(
        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
    )
    with runtime.db.engine.connect() as connection:
        sizes = dict(connection.execute(query).all())
        state = connection.execute(sa.text("SELECT avg(length(state::text)) FROM games")).scalar() or 0
    per = {table: round(size / games) for table, size in sizes.items() if size >= games * 10}
    return {"total": round(sum(sizes.values()) / games), "state_json": round(float(state)), **per}


def _celery(role: str, env: dict[str, str], log) -> subprocess.Popen:
    command = [sys.executable, "-m", "celery", "-A", "worker", role, "--loglevel", "INFO"]
    if role == "worker":
        command += ["--concurrency", "2", "--without-mingle", "--without-gossip"]
    return subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)


def deadlines(runtime, url: str, instance: Path, due: int, window: float, games: int) -> tuple[dict, list]:
    """Fire ``due`` deadlines spread over ``window`` seconds with a real worker and beat; lateness in ms."""
    import redis

    redis.Redis.from_url(REDIS_URL).delete("celery")  # this run's own database: no stale task
    env = {**web_env(url, instance), "PBEM_BROKER_URL": REDIS_URL, "PYTHONPATH": str(ROOT)}
    (ROOT / "bench" / "out").mkdir(parents=True, exist_ok=True)
    log = open(ROOT / "bench" / "out" / "scale-celery.log", "wb")  # noqa: SIM115 - closed below
    procs = [_celery("worker", env, log), _celery("beat", env, log)]
    try:
        _wait_ready(ROOT / "bench" / "out" / "scale-celery.log")
        rng = random.Random(5)
        ids = rng.sample(range(TEMPLATES + 1, games + 1), due)
        now = utcnow()
        wanted = {gid: now + dt.timedelta(seconds=3 + rng.uniform(0, window)) for gid in ids}
        with runtime.db.engine.begin() as connection:
            connection.execute(
                sa.text("UPDATE games SET deadline = :at WHERE id = :id"),
                [{"id": gid, "at": at} for gid, at in wanted.items()],
            )
        fired: dict[int, dt.datetime] = {}
        query = sa.text(
            "SELECT game_id, min(created_at) FROM game_log WHERE source = 'deadline' AND game_id = ANY(:ids) "
            "GROUP BY game_id"
        )
        stop_at = time.monotonic() + window + 60
        while len(fired) < due and time.monotonic() < stop_at:
            time.sleep(1)
            with runtime.db.engine.connect() as connection:
                fired = dict(connection.execute(query, {"ids": ids}).all())
        lateness = sorted((fired[gid] - at).total_seconds() * 1000 for gid, at in wanted.items() if gid in fired)
        memory = [(name_of(pid), rss_mb(pid)) for proc in procs for pid in tree_of(proc.pid)]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
    return {
        "due": due,
        "fired": len(lateness),
        "p50_ms": round(_pct(lateness, 50)),
        "p99_ms": round(_pct(lateness, 99)),
        "max_ms": round(lateness[-1]) if lateness else None,
    }, memory


def _wait_ready(log: Path, timeout: float = 60.0) -> None:
    """Until the worker says it is ready (and beat has had a moment to send its first sweep)."""
    stop_at = time.monotonic() + timeout
    while time.monotonic() < stop_at and b" ready." not in log.read_bytes():
        time.sleep(0.2)
    time.sleep(2)


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def run(args: argparse.Namespace) -> dict:
    result: dict = {"games": args.games, "small": args.small, "sweeps": args.sweeps}
    with tempfile.TemporaryDirectory(prefix="pbem-scale-") as tmp, postgres_schema() as url:
        instance = Path(tmp) / "instance"
        instance.mkdir()
        runtime = bench_runtime(instance, url, broker_url="filesystem://", smtp_url=None)
        add_admin(runtime)
        started = time.monotonic()
        templates = make_templates(runtime)
        seed(runtime, templates, TEMPLATES + 1, args.small - TEMPLATES, utcnow())
        result["seed_small_s"] = round(time.monotonic() - started, 1)
        analyze(runtime)
        server, port = start_gunicorn(web_env(url, instance), tmp)
        try:
            cookie = admin_cookie(port)
            result["web_small"] = web_rates(
                port, cookie, args.small, sample_tokens(runtime), args.seconds, args.clients
            )
            result["sweep_small_ms"] = sweep_ms(runtime, args.sweeps)
            started = time.monotonic()
            seed(runtime, templates, args.small + 1, args.games - args.small, utcnow())
            result["seed_large_s"] = round(time.monotonic() - started, 1)
            analyze(runtime)
            result["web_large"] = web_rates(
                port, cookie, args.games, sample_tokens(runtime), args.seconds, args.clients
            )
            result["sweep_large_ms"] = sweep_ms(runtime, args.sweeps)
            result["size_per_game"] = size_per_game(runtime, args.games)
            result["deadlines"], worker_memory = deadlines(
                runtime, url, instance, args.due, args.due_window, args.games
            )
            web_memory = [(name_of(pid), rss_mb(pid)) for pid in tree_of(server.pid)]
        finally:
            server.terminate()
            server.wait(timeout=30)
        result["rss_web"] = [(n, round(mb, 1)) for n, mb in web_memory]
        result["rss_worker"] = [(n, round(mb, 1)) for n, mb in worker_memory]
    if args.serve != "none":
        from bench.scale_serve import serve_memory

        result["serve"] = serve_memory(args.settle, baseline=args.serve == "both")
    return result


def report(r: dict) -> None:
    small, large = r["web_small"], r["web_large"]
    print(f"seeded {r['small']:,} games in {r['seed_small_s']}s, then up to {r['games']:,} in {r['seed_large_s']}s")
    print(f"{'route':<30} {r['small']:>9,} games {r['games']:>9,} games  large/small  route/bare@large")
    bare = large["/healthz"]["rps"] or 1
    for route in small:
        a, b = small[route], large[route]
        grow = b["rps"] / a["rps"] if a["rps"] else 0
        print(f"{route:<30} {a['rps']:>9.1f} r/s {b['rps']:>9.1f} r/s  {grow:>10.2f}  {b['rps'] / bare:>14.2f}"
              f"  ({a['failures']}+{b['failures']} failures)")  # fmt: skip
    at = f"{r['sweep_small_ms']} ms at {r['small']:,} games, {r['sweep_large_ms']} ms at {r['games']:,}"
    print(f"sweep per run: {at} (fastest of {r['sweeps']})")
    d = r["deadlines"]
    print(f"deadlines: {d['fired']}/{d['due']} fired; lateness p50 {d['p50_ms']} ms, p99 {d['p99_ms']} ms, "
          f"max {d['max_ms']} ms (aim: p99 <= 2000)")  # fmt: skip
    for label, key in (("web (gunicorn 2x4)", "rss_web"), ("worker and beat", "rss_worker")):
        parts = ", ".join(f"{n} {mb:.0f}" for n, mb in r[key])
        print(f"RSS {label}: {parts} MB")
    size = r["size_per_game"]
    parts = ", ".join(f"{k} {v:,}" for k, v in size.items() if k != "total")
    print(f"database per game: {size['total']:,} bytes ({parts})")
    if "serve" in r:
        for label, key in (("before", "before"), ("pbem serve", "serve")):
            if key not in r["serve"]:
                continue
            m = r["serve"][key]
            print(f"embedded {label}: {m['count']} processes, RSS {m['rss_mb']} MB, PSS {m['pss_mb']} MB "
                  f"({', '.join(f'{n} {mb:.0f}' for n, mb in m['processes'])})")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--due", type=int, default=1_000)
    parser.add_argument("--due-window", type=float, default=60.0)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--sweeps", type=int, default=20)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--serve", choices=("both", "new", "none"), default="both",
                        help="measure pbem serve's memory beside the earlier layout, alone, or not at all")  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not TEMPLATES < args.small < args.games or args.due > args.games - TEMPLATES:
        parser.error("need templates < --small < --games and --due <= --games")
    result = run(args)
    print(json.dumps(result, indent=2, default=str)) if args.json else report(result)
    sys.stdout.flush()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(ROOT))
    main()
