"""The dev mailbox once an email's text is pruned: its envelope, and a line that says the text is gone."""

from __future__ import annotations

import datetime as dt

from pbem.services.mailout import retention
from tests.mailout.test_retention import age, mark_sent, rows
from tests.support.play import start


def test_the_dev_mailbox_says_a_text_is_no_longer_kept(admin_client, sqlite_runtime):
    start(sqlite_runtime)
    mark_sent(sqlite_runtime)
    [first, *_] = rows(sqlite_runtime)
    age(sqlite_runtime, dt.timedelta(days=20), id=first.id)
    assert sqlite_runtime.in_unit(retention.prune) == 1
    page = admin_client.get(f"/dev/mail/to?address={first.recipient}").get_data(as_text=True)
    assert "This email&#39;s text is no longer kept (sent emails are kept for 14 days)." in page
    assert first.subject in page and first.message_id.strip("<>") in page, "its envelope is still shown"
