"""A game written as a package of its own: made by ``pbem engine new``, installed with pip
from a temporary folder (never the repository's tree), listed, checked, and played by email.

The package is installed with pip into a folder of its own (``--target``) rather than
into the test virtualenv, so the rest of the suite never sees a sixth engine; the
commands run as separate processes with that folder on ``PYTHONPATH``, and the
game by email runs here with the folder on ``sys.path``: the server finds the game
through its ``pbem.engines`` entry point exactly as it finds the built-in ones.
"""

from __future__ import annotations

import json
import os
import smtplib
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

import engines
from engines import get_engine
from pbem.services.play.verify import verify
from tests.mail.support import mail_world, text_of
from tests.support.mailgame import play_by_email
from tests.support.play import game_row

pytestmark = pytest.mark.slow

NAME = "tinybids"


def run(*args: str, site: Path | None = None, cwd: Path | None = None, check: bool = True):
    env = {**os.environ}
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH", "")]))
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    if check:
        assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


def pbem(*args: str, **kwargs):
    return run(sys.executable, "-m", "pbem.cli", *args, **kwargs)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The package ``pbem engine new`` writes, pip-installed into a folder of its own."""
    tmp = tmp_path_factory.mktemp("package")
    source, site = tmp / "pbem-tinybids", tmp / "site"
    made = pbem("engine", "new", NAME, "--dir", str(source), "--title", "Tiny Bids", cwd=tmp)
    assert "pbem engine check tinybids" in made.stdout
    run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
        "--no-index", "--target", str(site), str(source))  # fmt: skip
    assert (site / NAME / "RULES.md").is_file() and list((site / NAME / "golden").glob("*.json"))
    return site


def test_the_installed_package_is_listed_beside_the_built_in_games(site):
    rows = json.loads(pbem("engines", "--json", site=site).stdout)
    names = [row["name"] for row in rows]
    assert NAME in names and {"kidsprout", "rankchain", "sneak", "sprawl"} <= set(names)
    row = next(row for row in rows if row["name"] == NAME)
    assert row["title"] == "Tiny Bids" and row["variants"] == ["standard", "carry"]
    assert NAME not in pbem("engines").stdout, "without the package on the path there is no such game"


def test_the_package_passes_the_conformance_suite_and_its_own_tests(site, tmp_path):
    checked = pbem("engine", "check", NAME, site=site)
    assert f"{NAME} passes." in checked.stdout and "FAIL" not in checked.stdout
    tests = site.parent / "pbem-tinybids" / "tests"
    ran = run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tests.parent),
              str(tests), site=site, cwd=tmp_path)  # fmt: skip
    assert " passed" in ran.stdout and "failed" not in ran.stdout


def test_a_broken_package_is_named_with_what_fails(site, tmp_path):
    """A copy whose private view shows every sealed bid: the check fails and says where."""
    broken = tmp_path / "broken"
    run(sys.executable, "-c", f"import shutil; shutil.copytree({str(site)!r}, {str(broken)!r})")
    views = broken / NAME / "views.py"
    views.write_text(views.read_text().replace('"your_bid": state["bids"].get(seat)', '"your_bid": state["bids"]'))
    checked = pbem("engine", "check", NAME, "--only", "leaks", "--only", "golden", site=broken, check=False)
    assert checked.returncode == 1
    assert "FAIL leaks" in checked.stdout and "shows a secret of" in checked.stdout
    assert "FAIL golden" in checked.stdout and f"{NAME} fails 2 check(s)." in checked.stdout


def test_a_game_of_the_package_is_played_by_email(site, sqlite_runtime):
    sys.path.insert(0, str(site))
    engines.refresh()
    try:
        engine = get_engine(NAME)
        with mail_world(sqlite_runtime) as (sink, port, pump):
            game = play_by_email(sqlite_runtime, sink, port, pump, seed=3, players=[
                "Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"], engine_name=NAME)  # fmt: skip
            row = game_row(sqlite_runtime, game.game_id)
            assert row.status == "finished" and row.engine == NAME
            assert sqlite_runtime.in_reading(verify, game.game_id).ok
            for seat, address in game.emails.items():
                mails = game.box(address)
                assert len(mails) > engine.turn(row.state), "an email every round, and the answers"
                last = text_of(mails[-1])
                assert "Game over." in last and "Scores and hands:" in last
                assert f"/rules/{NAME}" in last
                assert game.replies[address] >= 1, seat
    finally:
        sys.path.remove(str(site))
        for module in [m for m in sys.modules if m == NAME or m.startswith(NAME + ".")]:
            del sys.modules[module]
        engines.refresh()


# -- a faulty package: the check names each fault; a running server loses nothing else ----------

FAULTY = "faultybids"


@pytest.fixture(scope="module")
def faulty_site(tmp_path_factory) -> Path:
    """A package from ``pbem engine new`` as an author left it: an unguarded ``int()`` (odd orders
    raise), a sealed bid told in an event, a tie settled by a set's order, and no RULES.md."""
    from tests.engines.scaffolded import LEAKING_EVENT, SET_ORDER, UNGUARDED_INT, edit

    tmp = tmp_path_factory.mktemp("faulty")
    source, site = tmp / f"pbem-{FAULTY}", tmp / "site"
    pbem("engine", "new", FAULTY, "--dir", str(source), cwd=tmp)
    for change in (UNGUARDED_INT, LEAKING_EVENT, SET_ORDER):
        edit(source, FAULTY, change)
    (source / FAULTY / "RULES.md").unlink()
    run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
        "--no-index", "--target", str(site), str(source))  # fmt: skip
    return site


def test_the_check_fails_a_faulty_package_naming_each_fault(faulty_site):
    checked = pbem("engine", "check", FAULTY, "--playouts", "4", "--deep", "1", site=faulty_site, check=False)
    out = checked.stdout
    assert checked.returncode == 1 and "Traceback" not in out + checked.stderr, out + checked.stderr
    for check in ("odd-orders", "events", "processes", "rules"):
        assert f"FAIL {check}" in out, out
    assert "parse_order(state, " in out and "raised IndexError" in out and "must raise OrderError" in out
    assert "has sealed a bid of" in out and "tells what the public view hides" in out
    assert "PYTHONHASHSEED=1 and" in out and "iterate sorted(...)" in out and "use state.rng" in out
    assert "RULES.md is missing" in out


@contextmanager
def serving(tmp_path: Path, site: Path) -> Iterator[SimpleNamespace]:
    """``pbem serve`` (web, worker, SMTP in) with ``site`` on its path and an admin address, mailing an
    SMTP sink: yields ``sink``, ``env`` (for the CLI), ``port`` and ``smtp_port``; stopped with Ctrl-C."""
    from tests.e2e.test_serve import env_for, healthy, start_serve, stop_with_ctrl_c
    from tests.support.celery_proc import wait_until
    from tests.support.services import free_ports
    from tests.support.smtp_sink import SmtpSink

    with SmtpSink() as sink, open(tmp_path / "serve.log", "ab") as log:
        port, smtp_port = free_ports(2)
        env = env_for(tmp_path, sink, port)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH", "")]))
        env["PBEM_ADMIN_EMAIL"] = "admin@serve.test"
        serve = start_serve(env, port, smtp_port, log)
        try:
            wait_until(lambda: healthy(port), 60, "the web process")
            yield SimpleNamespace(sink=sink, env=env, port=port, smtp_port=smtp_port)
        finally:
            code = stop_with_ctrl_c(serve)
        assert code == 0, (tmp_path / "serve.log").read_text()[-3000:]


def _cli(env, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pbem.cli", *args], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _create(served: SimpleNamespace, engine: str) -> int:
    created = _cli(served.env, "game", "create", "--engine", engine, "--player", "Ann <ann@example.org>",
                   "--player", "Bob <bob@example.org>", "--deadline", "1d", "--json")  # fmt: skip
    assert created.returncode == 0, created.stderr
    return json.loads(created.stdout)["id"]


def _reply(served: SimpleNamespace, body: str):
    """Ann's reply to her welcome email, sent to the server's SMTP port."""
    from tests.mail.support import reply_to
    from tests.support.celery_proc import wait_until

    wait_until(lambda: len(served.sink.messages) >= 2, 60, "the welcome emails")
    welcome = next(m for m in served.sink.messages if m.recipients == ["ann@example.org"]).message
    reply = reply_to(welcome, "Ann <ann@example.org>", body)
    with smtplib.SMTP("127.0.0.1", served.smtp_port, timeout=30) as client:
        client.send_message(reply)
    return reply


@pytest.mark.timeout(400)
def test_a_running_server_answers_an_odd_order_in_words_and_tells_the_admin(faulty_site, tmp_path):
    from pbem.services.play.engine_faults import ANSWER
    from tests.support.celery_proc import wait_until

    with serving(tmp_path, faulty_site) as served:
        game_id = _create(served, FAULTY)
        reply = _reply(served, "bid 3\nbid x\nThanks, Ann")
        sink = served.sink

        def answered():
            return [m.message for m in sink.messages if m.message["In-Reply-To"] == reply["Message-ID"]]

        wait_until(answered, 60, "the receipt")
        wait_until(lambda: any(m.recipients == ["admin@serve.test"] for m in sink.messages), 60, "the admin's email")
        receipt = " ".join(text_of(answered()[0]).split())
        assert "Your order is in: bid 3. 2 lines were refused" in receipt, receipt
        assert ANSWER in receipt and "'Thanks,' is not an order of this game" in receipt
        [told] = [m.message for m in sink.messages if m.recipients == ["admin@serve.test"]]
        assert FAULTY in told["Subject"] and "'bid x'" in text_of(told)

        status, page = _get(served.port, f"/games/{game_id}.json")
        public = json.loads(page)["public"]
        assert status == 200 and sorted(public["sealed"].values()) == [False, True], public  # Ann's bid of 3
        status, scraped = _get(served.port, "/metrics")
        assert status == 200 and f'pbem_engine_faults_total{{engine="{FAULTY}"}} 1.0' in scraped
        checked = _cli(served.env, "check")
        expected = f"engine faults: PROBLEM: in the last 24 hours: {FAULTY} failed 1 time in parse_order"
        assert expected in checked.stdout, checked.stdout


@pytest.mark.timeout(400)
def test_a_game_installed_while_the_server_runs_is_played_without_a_restart(tmp_path):
    """The package is pip-installed into a folder already on the server's path after it started."""
    from tests.support.celery_proc import wait_until

    name, site, source = "latebids", tmp_path / "site", tmp_path / "pbem-latebids"
    site.mkdir()
    with serving(tmp_path, site) as served:
        assert _get(served.port, f"/rules/{name}")[0] == 404
        pbem("engine", "new", name, "--dir", str(source), cwd=tmp_path)
        run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
            "--no-index", "--target", str(site), str(source))  # fmt: skip
        game_id = _create(served, name)
        assert _get(served.port, f"/games/{game_id}")[0] == 200
        status, rules = _get(served.port, f"/rules/{name}")
        assert status == 200 and "sealed-bid card game" in rules
        _reply(served, "bid 2")

        def sealed() -> list[bool]:
            return list(json.loads(_get(served.port, f"/games/{game_id}.json")[1])["public"]["sealed"].values())

        wait_until(lambda: True in sealed(), 60, "the reply applied by the worker")
    assert "unknown engine" not in (tmp_path / "serve.log").read_text()
