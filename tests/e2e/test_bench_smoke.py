"""Every benchmark runs, at a tiny size, and prints the figures BENCHMARKS.md records.

The figures themselves are not checked (speed is measured, not asserted); what
is checked is that ``python -m bench`` keeps working as the code changes.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import BENCHES, ROOT, environment
from bench.__main__ import main as run_benches
from tests.support import dovecot
from tests.support.services import POSTGRES_URL, REDIS_URL, need, redis_url

RATE = r"\d+(\.\d+)?"

#: benchmark -> (tiny arguments, services it needs, lines its output must hold)
SMOKE: dict[str, tuple[list[str], tuple[str, ...], list[str]]] = {
    "engine": (
        ["--games", "2"],
        (),
        [rf"kidsprout/v0\.2 +{RATE} +{RATE} +{RATE} +{RATE}", rf"sprawl/standard +{RATE}"],
    ),
    "service": (
        ["--orders", "10", "--turns", "2", "--clients", "2"],
        ("postgres", "redis"),
        [rf"postgresql +2 client\(s\): service +{RATE} orders/s .* ratio {RATE}", rf"over 2 turns: p50 {RATE} ms"],
    ),
    "mail": (
        ["--messages", "12", "--games", "2"],
        (),
        [r"messages: 12 \(12 done, 12 orders accepted\)", rf"ratio end-to-end / baseline: 1 : {RATE}"],
    ),
    "cost": (
        ["--orders", "20", "--messages", "5"],
        ("postgres",),
        [
            r"Service path: [\d,]+ function calls per order",
            r"Mail path: [\d,]+ function calls per message \(as a worker runs it\)",
            rf"Service path \(orders\.submit\): 20 orders, {RATE} emails queued per order",
            r"Sending the service path's emails \(outbox\.deliver\): \d+ emails",
            r"Mail path \(receive, process, deliver\): 5 orders",
            rf"\| \*\*total\*\* \| \*\*{RATE}\*\* \| 100% \| \*\*{RATE}\*\* \|",
        ],
    ),
    "mail-distributed": (
        ["--messages", "12", "--games", "2"],
        ("postgres", "redis"),
        [rf"{RATE} msg/s \(12 orders accepted\)", r"CPU ms per message: .*total", r"still queued .*: 0$"],
    ),
    "imap_latency": (
        ["--replies", "3"],
        ("dovecot",),
        [rf"mailbox \(IMAP IDLE\) +3 replies, .*3 accepted: p50 {RATE} ms", rf"ratio p50 mailbox/baseline: {RATE}"],
    ),
    "web": (
        ["--games", "10", "--seconds", "1"],
        (),
        [rf"/games/<id> +{RATE} req/s \(\d+ in {RATE}s, 0 failures\)", rf"ratio status/bare = {RATE}"],
    ),
    "scale": (
        [
            "--games",
            "60",
            "--small",
            "20",
            "--due",
            "6",
            "--due-window",
            "3",
            "--seconds",
            "0.3",
            "--sweeps",
            "3",
            "--settle",
            "1",
            "--serve",
            "new",
        ],
        ("postgres", "redis"),
        [
            rf"^/admin/games\?page=N&after=ID +{RATE} r/s +{RATE} r/s .*\(0\+0 failures\)",
            rf"^/play/<token>\.json +{RATE} r/s +{RATE} r/s .*\(0\+0 failures\)",
            rf"sweep per run: {RATE} ms at 20 games, {RATE} ms at 60",
            r"deadlines: 6/6 fired; lateness p50 -?\d+ ms, p99 -?\d+ ms",
            r"RSS worker and beat: celery \d+",
            r"database per game: [\d,]+ bytes",
            rf"embedded pbem serve: 4 processes, RSS {RATE} MB",
        ],
    ),
    "lighthouse": (
        ["--games", "4", "--seconds", "0.3", "--runs", "1", "--only", "status", "--presets", "mobile"],
        (),
        [
            r"^status +\d+ +\d+ +\d+ +0\.\d\d +\d+ +\d+ +304, 0 B$",
            rf"^/games/<id> 304 +{RATE} req/s +ratio +{RATE} +\(0 other\)",
            r"^status +mobile \d+/100/100/100 ",
        ],
    ),
    "soak": (
        ["--days", "0.5", "--rate", "4320"],
        (),
        [
            r"^0\.5 simulated days at 4320 times real time, \d+ games \(classical, kidsprout, rankchain, sneak, sprawl",
            r"^stuck games: 0; duplicates: 0; unverified: \[\]$",
            r"^emails per player per day \(busiest day\):$",
            rf"^  ann@soak\.example: {RATE} \(\d+\): ",
        ],
    ),
    "email-count": (
        ["--games", "1", "--limit", "30"],
        (),
        [
            r"30 replies, .* emails per player: \d+, \d+, \d+$",
            rf"emails per player: mean {RATE}",
            rf"ratio emails / replies: {RATE}",
            rf"sprawl: emails per player per move {RATE} before, {RATE} after; after / before {RATE}",
            rf"rankchain: emails per player per move {RATE} before, {RATE} after; after / before {RATE}",
        ],
    ),
    "map": (
        ["--rounds", "1"],
        (),
        [rf"autumn +PNG 760 px \(email\) +{RATE} +{RATE} +{RATE} +\d+$", rf"opening +SVG \(page\) +{RATE}"],
    ),
    "classical-bot": (
        ["--games", "2", "--last-year", "1901"],
        (),
        [
            r"^2 Classical games to 1901 \(seeds 1-2\), .* beat the random median in \d+ \(\d+%; aim 80 %\)$",
            rf"per phase \(all the power's orders\): {RATE} s wall, {RATE} s CPU",
            rf"ratio bot / random per decision {RATE}$",
            r"illegal orders: 0;",
        ],
    ),
}


#: Benchmarks whose smoke run is a test of their own (it runs them on a few pages, not the whole site).
SMOKED_ELSEWHERE = {"screenshots": "tests/web/test_screenshots_bench.py"}


def test_every_benchmark_has_a_smoke_run():
    assert set(SMOKE) | set(SMOKED_ELSEWHERE) == set(BENCHES)
    root = Path(__file__).resolve().parents[2]
    assert all((root / path).is_file() for path in SMOKED_ELSEWHERE.values())


def bench_environment() -> dict[str, str]:
    """The bench's environment, on this test process's own Redis database (see ``redis_url``)."""
    env = environment()
    if "PYTEST_XDIST_WORKER" in env:
        env["PBEM_TEST_REDIS_URL"] = redis_url()
        del env["PYTEST_XDIST_WORKER"]
    return env


@pytest.mark.parametrize("name", list(SMOKE))
@pytest.mark.slow
@pytest.mark.redis
def test_benchmark_runs_and_reports(name):
    arguments, services, expected = SMOKE[name]
    if "postgres" in services:
        need(POSTGRES_URL, "PostgreSQL")
    if "redis" in services:
        need(REDIS_URL, "Redis")
    if "dovecot" in services:
        dovecot.need()
    module = BENCHES[name][0]
    result = subprocess.run(
        [sys.executable, "-m", module, *arguments],
        cwd=ROOT,
        env=bench_environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for pattern in expected:
        assert re.search(pattern, result.stdout, re.MULTILINE), f"{pattern!r} not in:\n{result.stdout}"


def test_the_runner_refuses_an_unknown_benchmark(capsys):
    assert run_benches(["engines"]) == 2
    assert "unknown benchmark(s): engines; choose from engine, service" in capsys.readouterr().err
