"""The soak: days of play on a fast clock through the real ``pbem serve`` (web, worker and beat,
SMTP listener), its mail to an SMTP sink, a driver playing seats by email and on the web.

The default run plays two simulated days; the ``slow`` one five (``PBEM_SOAK_DAYS`` sets it,
e.g. 30 for the month BENCHMARKS.md reports).  Both assert what must hold whatever the machine's
speed: no game stuck, every game verifies, no email sent twice, every engine played, and the
figures in the design's shape.  Speed is measured, not asserted: how late deadlines were handled
is printed by the benchmark, not checked here beyond the tolerance that defines "stuck".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from bench.__main__ import ROOT, environment

ENGINES_BUILT_IN = {"kidsprout", "rankchain", "sneak", "sprawl"}


def soak(days: float, rate: float) -> tuple[dict, str]:
    """The figures (``--json``) and the run in words (its standard error)."""
    result = subprocess.run(
        [sys.executable, "-m", "bench", "soak", "--days", str(days), "--rate", str(rate), "--json"],
        cwd=ROOT,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=1800 + days * 86400 / rate * 2,
    )
    assert result.stdout.strip(), result.stderr
    figures = json.loads(result.stdout)
    assert result.returncode == 0, json.dumps(figures, indent=1) + result.stderr
    return figures, result.stderr


def installed_engines() -> set[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "engines", "--json"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return {engine["name"] for engine in json.loads(listed.stdout)}


def check(run: tuple[dict, str], days: float) -> None:
    """What must hold after any soak; a failure shows the run's figures and words."""
    figures, words = run
    try:
        check_figures(figures, days)
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n{json.dumps(figures, indent=1)}\n{words}") from None


def check_figures(figures: dict, days: float) -> None:
    assert set(figures) == {
        "days", "games", "stuck", "duplicates", "emails_per_day", "absent_players", "db_bytes", "rss_mb",
        "deadlines_at_the_hour", "not_asked",
    }  # fmt: skip
    assert figures["days"] == days
    hour = figures["deadlines_at_the_hour"]  # the grace games' (20:00 Paris); a vacation's wait ends at any hour
    assert hour["shown"] > 0 and hour["at_hour"] >= hour["shown"] - 2, hour
    assert figures["stuck"] == 0 and figures["duplicates"] == 0
    not_asked = figures["not_asked"]  # no reminder for a seat the bot plays, no grace notice to a bystander
    assert not_asked["reminders_to_bot_played"] == 0 and not_asked["grace_notices_to_bystanders"] == 0, not_asked
    games = figures["games"]
    assert {game["engine"] for game in games} == installed_engines() >= ENGINES_BUILT_IN, "every engine, none skipped"
    for game in games:
        assert set(game) == {"id", "engine", "deadlines_expected", "deadlines_fired", "verified"}
        assert game["verified"] is True, game
        assert game["deadlines_fired"] == game["deadlines_expected"], game
    assert sum(game["deadlines_expected"] for game in games) > 0, "deadlines came due and were handled"
    # Cat and Dan never act; Ann and Bob play every turn; Eve plays after her vacation.
    assert {"cat@soak.example", "dan@soak.example"} <= set(figures["absent_players"])
    assert not {"ann@soak.example", "bob@soak.example"} & set(figures["absent_players"])
    mail = figures["emails_per_day"]
    for player in ("ann@soak.example", "bob@soak.example", "cat@soak.example", "dan@soak.example"):
        counts = mail[player]
        assert counts["all"] > 0 and abs(sum(v for k, v in counts.items() if k != "all") - counts["all"]) < 0.05
    assert "unknown" not in {kind for counts in mail.values() for kind in counts}, "every email's kind is known"
    assert len(figures["db_bytes"]) == 2 and 0 < figures["db_bytes"][0] <= figures["db_bytes"][1]
    assert len(figures["rss_mb"]) == 2 and all(mb > 50 for mb in figures["rss_mb"])


def test_two_days_of_play_on_a_fast_clock():
    check(soak(2, 2880), 2)


@pytest.mark.slow
def test_days_of_play_on_a_fast_clock():
    days = float(os.environ.get("PBEM_SOAK_DAYS") or 5)
    run = soak(days, 1080 if days > 10 else 2880)
    check(run, days)
    if days >= 3:  # days enough for a digest's hour and the reminders of several turns, however busy the machine
        dan = mail_kinds(run[0], "dan@soak.example")  # the digest holds his late notices and tells his deadlines
        assert "digest" in dan and "late" not in dan, dan
        assert mail_kinds(run[0], "cat@soak.example") >= {"reminder", "late"}
    if days >= 5:  # backed off after her second missed deadline: her games' news comes in one digest
        assert "digest" in mail_kinds(run[0], "cat@soak.example")


def mail_kinds(figures: dict, player: str) -> set[str]:
    return set(figures["emails_per_day"][player]) - {"all"}
