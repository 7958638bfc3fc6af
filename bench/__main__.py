"""Run every benchmark, one after another, and keep what each printed.

    python -m bench                 # all of them (needs PostgreSQL and Redis on loopback)
    python -m bench engine web      # some of them
    python -m bench soak --days 30 --json   # one, with its own arguments, its output as it prints it

Each benchmark measures its own baseline in the same run, so the ratios it prints
hold on a busy machine; the output of each is also written to ``bench/out/``.
``PBEM_TEST_POSTGRES_URL`` and ``PBEM_TEST_REDIS_URL`` name the services
(default: the local ones, as in CI).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"

#: name -> (module, arguments, what it measures)
BENCHES: dict[str, tuple[str, list[str], str]] = {
    "engine": ("bench.engine_speed", [], "orders and whole games per second, per engine and variant"),
    "service": ("bench.service", [], "orders/s through the game service; last order to every email"),
    "mail": ("bench.mail_inbound", [], "inbound mail end to end, embedded (SQLite, threads)"),
    "mail-distributed": ("bench.mail_distributed", [], "inbound mail end to end: smtpd, Celery, PostgreSQL"),
    "imap_latency": ("bench.imap_latency", [], "one mailbox: a reply's arrival in Dovecot to its receipt leaving"),
    "web": ("bench.web_status", [], "status-page requests/s under gunicorn beside a bare route"),
    "scale": ("bench.scale", [], "100,000 games: lists, pages, deadlines, sweep, memory, database size"),
    "cost": ("bench.cost", [], "CPU and statements per order by part: the service path and the mail path"),
    "email-count": ("bench.email_count", [], "emails per player in whole 3-player games by email (3 engines)"),
    "lighthouse": ("bench.lighthouse", [], "Lighthouse on six pages; bytes per page; 304s against a bare route"),
    "soak": ("bench.soak", ["--days", "30"], "a month of play on a fast clock through pbem serve (about 40 minutes)"),
    "map": ("bench.map_drawing", [], "the Classical map drawn as SVG and as PNG (email and full size)"),
    "screenshots": (
        "bench.screenshots",
        [],
        "every page at 390 and 1280 px, light and dark, into docs/screenshots/site",
    ),
    "classical-bot": (
        "bench.classical_bot",
        [],
        "the Classical bot against six random players: 100 seeded games to 1910, win rate, time per decision",
    ),
}


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    env.setdefault("PBEM_TEST_REDIS_URL", "redis://127.0.0.1:6379/14")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run(name: str) -> int:
    module, arguments, what = BENCHES[name]
    print(f"== {name}: {what}", flush=True)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", module, *arguments], cwd=ROOT, env=environment(), capture_output=True, text=True
    )
    output = result.stdout + (result.stderr if result.returncode else "")
    (OUT / f"{name}.txt").write_text(output)
    print(output.rstrip(), flush=True)
    print(f"   ({time.perf_counter() - started:.0f} s, exit {result.returncode})\n", flush=True)
    return result.returncode


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[0] in BENCHES and argv[1].startswith("-"):  # one benchmark, its own arguments
        return subprocess.call([sys.executable, "-m", BENCHES[argv[0]][0], *argv[1:]], cwd=ROOT, env=environment())
    unknown = [name for name in argv if name not in BENCHES]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHES)}", file=sys.stderr)
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    failures = [name for name in (argv or list(BENCHES)) if run(name) != 0]
    if failures:
        print(f"failed: {', '.join(failures)}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
