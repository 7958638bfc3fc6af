"""The daily digest: one email per account gathering the news emails held for it.

Accounts whose preference is ``digest`` get their turn and news emails written
to the outbox as ``held`` (see :mod:`pbem.services.preferences`).  Once a day
(the beat's ``send_digests``) each recipient with held rows gets one digest:
per game, the subjects of what happened and the latest held email in full
(its private view, links and reply address are that recipient's own).  The
held rows become ``digested`` in the same transaction as the digest is
queued, so running the task twice sends nothing twice.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import select

from pbem.models import Account, Game, OutboxMessage
from pbem.runtime import Runtime
from pbem.services import notify, preferences


def held_recipients(runtime: Runtime, account_id: int | None = None) -> list[str]:
    with runtime.db.read() as session:
        query = select(OutboxMessage.recipient).where(OutboxMessage.status == "held").distinct()
        if account_id is not None:
            account = session.get(Account, account_id)
            if account is None:
                return []
            query = query.where(OutboxMessage.recipient == account.email)
        return sorted(session.scalars(query))


def send_digest_to(runtime: Runtime, recipient: str) -> int:
    """Queue one digest for ``recipient`` from its held rows; returns how many rows it gathered."""
    settings = runtime.settings
    with runtime.db.write() as session:
        rows = list(
            session.scalars(
                select(OutboxMessage)
                .where(OutboxMessage.status == "held", OutboxMessage.recipient == recipient)
                .order_by(OutboxMessage.id)
                .with_for_update()
            )
        )
        if not rows:
            return 0
        by_game: dict[int | None, list[OutboxMessage]] = defaultdict(list)
        for row in rows:
            by_game[row.game_id].append(row)
        sections: list[dict[str, Any]] = []
        for game_id, group in by_game.items():
            game = session.get(Game, game_id) if game_id is not None else None
            title = game.name if game else "Other"
            last = group[-1]
            reply = last.headers.get("Reply-To") if last.headers else None
            if reply:
                title += f" (reply to {reply} to play)"
            sections.append({"title": title, "subjects": [r.subject for r in group], "latest": last.body_text.rstrip()})
            for row in group:
                row.status = "digested"
        account = session.scalars(select(Account).where(Account.email == recipient)).one_or_none()
        pref_url = preferences.preferences_url(runtime, account) if account else settings.base_url
        pref = (account.notify if account else None) or "digest"
        headline = f"Your daily digest: {len(rows)} update(s) in {len(sections)} game(s)."
        notify.queue(
            runtime,
            session,
            game=None,
            seat=None,
            recipient=recipient,
            template="async_digest",
            subject=f"[pbem] daily digest: {len(rows)} update(s)",
            kind="digest",
            headline=headline,
            sections=sections,
            footer_line=preferences.footer_text(pref, pref_url),
        )
        return len(rows)


def send_digests(runtime: Runtime, account_id: int | None = None) -> int:
    """Send every due digest (or one account's); returns how many digests were queued."""
    return sum(send_digest_to(runtime, email) > 0 for email in held_recipients(runtime, account_id))
