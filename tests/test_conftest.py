"""The suite's own bookkeeping: names it keeps of test modules still name modules."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ABOUT_THE_DATABASE

ROOT = Path(__file__).resolve().parents[1]


def test_the_modules_about_the_database_exist():
    """A module moved or renamed would silently lose its fast-lane PostgreSQL run."""
    missing = [name for name in ABOUT_THE_DATABASE if not (ROOT / (name.replace(".", "/") + ".py")).is_file()]
    assert missing == []
