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
import subprocess
import sys
from pathlib import Path

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
