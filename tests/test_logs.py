"""Library chatter is kept out of the logs below DEBUG (see pbem.logs)."""

from __future__ import annotations

import logging

import pytest

from pbem.logs import CHATTY, quiet_chatter


@pytest.fixture(autouse=True)
def _restore_levels():
    saved = {name: logging.getLogger(name).level for name in CHATTY}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.parametrize("level", [logging.INFO, "INFO", "warning", logging.ERROR])
def test_chatter_is_kept_to_warnings_above_debug(level):
    quiet_chatter(level)
    for name in CHATTY:
        assert not logging.getLogger(name).isEnabledFor(logging.INFO), name
        assert logging.getLogger(name).isEnabledFor(logging.WARNING), name


@pytest.mark.parametrize("level", [logging.DEBUG, "DEBUG", "debug"])
def test_at_debug_the_chatter_follows_the_process_level(level):
    logging.getLogger(CHATTY[0]).setLevel(logging.WARNING)
    quiet_chatter(level)
    for name in CHATTY:
        assert logging.getLogger(name).level == logging.NOTSET, name
