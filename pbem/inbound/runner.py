"""Inbound mail: store the raw bytes first, process them afterwards.

:func:`receive` is what every transport calls (SMTP listener, ``pbem ingest``,
the webhook, the IMAP poller, the dev mailbox).  It only stores the message,
once per message and recipient (:func:`pbem.mail.message.dedupe_key`: a
redelivery is recognised, a Message-ID shared by two different messages is
not a redelivery, and a copy for each of two reply addresses is two messages),
and nudges the worker after the commit, so that a transport can acknowledge as
soon as the bytes are safe.

:func:`process` parses one stored message (on SQLite before any transaction, as a
write transaction holds the one write lock; on PostgreSQL under the row's claim), then runs
:data:`pbem.inbound.pipeline.PIPELINE` on it inside a single transaction: the
orders, the receipt, any bounce bookkeeping and the message's own verdict commit
together or not at all.  A crash leaves
the message ``pending`` for the sweep; a message already handled is never
handled twice.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Insert, Select, bindparam, null, select, update
from sqlalchemy.dialects import postgresql, sqlite

from pbem.clock import utcnow
from pbem.inbound.context import STORED_COLUMNS, WRITTEN_COLUMNS, StoredMessage
from pbem.mail.message import clean_address, dedupe_key, stored_id, structure_problem
from pbem.models import InboundMessage
from pbem.runtime import Runtime
from pbem.services.ops import outage
from pbem.services.ops.kept_mail import headers_only
from pbem.services.play import engine_faults

log = logging.getLogger(__name__)

#: After this many crashed attempts a message is marked ``failed`` for the admin.
MAX_ATTEMPTS = 5
_INBOUND = InboundMessage.__table__


@dataclass(frozen=True)
class Received:
    """What became of one call to :func:`receive`."""

    id: int | None
    duplicate: bool = False
    #: Why the message was not stored (too large, empty); None when stored or a duplicate.
    refused: str | None = None

    @property
    def stored(self) -> bool:
        return self.id is not None


def _envelope(value: str | None) -> str | None:
    """The envelope sender or recipient as given; ``""`` (the null sender ``<>``) is kept."""
    if value is None:
        return None
    value = value.strip()
    if value in ("", "<>"):
        return ""
    return clean_address(value) or value[:320].replace("\r", " ").replace("\n", " ")


def receive(
    runtime: Runtime,
    raw: bytes,
    *,
    transport: str,
    envelope_from: str | None = None,
    envelope_to: str | None = None,
) -> Received:
    """Store one raw message (once per message and recipient) and nudge ``process_inbound`` after the commit."""
    raw = bytes(raw)
    limit = runtime.settings.max_message_bytes
    if len(raw) > limit:
        return Received(None, refused=f"message too large: {len(raw)} bytes, the limit is {limit}")
    if not raw.strip():
        return Received(None, refused="empty message")
    problem = structure_problem(raw)
    if problem:  # refused at the door (the sending MTA tells its sender), never stored to fail later
        return Received(None, refused=problem)
    recipient = _envelope(envelope_to)
    key = dedupe_key(raw, recipient)
    values = {
        "message_id": stored_id(raw),
        "dedupe_key": key,
        "raw": raw,
        "transport": transport[:20],
        "envelope_from": _envelope(envelope_from),
        "envelope_to": recipient,
        "status": "pending",
    }
    with runtime.db.statements() as connection:
        stored = connection.execute(_store_once(connection.dialect.name), values).scalar()
        if stored is None:  # stored before (a redelivery), maybe by another transport at the same moment
            existing = connection.execute(select(_INBOUND.c.id).where(_INBOUND.c.dedupe_key == key)).scalar_one()
            return Received(existing, duplicate=True)
    runtime.nudge("process_inbound", stored)
    return Received(stored)


def receive_each(
    runtime: Runtime,
    raw: bytes,
    *,
    transport: str,
    envelope_from: str | None = None,
    recipients: list[str | None],
) -> list[Received]:
    """:func:`receive` once for each recipient: one email to two reply addresses applies to both seats."""
    return [
        receive(runtime, raw, transport=transport, envelope_from=envelope_from, envelope_to=recipient)
        for recipient in dict.fromkeys(recipients or [None])
    ]


@functools.cache
def _store_once(dialect: str) -> Insert:
    """``INSERT ... ON CONFLICT (dedupe_key) DO NOTHING RETURNING id``: one statement, race-free."""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(_INBOUND).on_conflict_do_nothing(index_elements=["dedupe_key"]).returning(_INBOUND.c.id)


def _claim(session, inbound_id: int, skip_locked: bool = False, raw: bytes | None = None) -> StoredMessage | None:
    """The row, locked for this transaction (SQLite already holds the write lock).

    With ``skip_locked``, a row another worker holds right now is not waited for: None.
    With ``raw`` (its bytes, read already), they are not read again.
    """
    query = _claim_query(raw is not None, session.get_bind().dialect.name != "sqlite", skip_locked)
    found = session.connection().execute(query, {"inbound_id": inbound_id}).one_or_none()
    if found is None:
        return None
    row = StoredMessage(*found)
    if raw is not None:
        row.raw = raw
    return row


@functools.cache
def _claim_query(raw_in_hand: bool, row_lock: bool, skip_locked: bool) -> Select:
    """The statement of :func:`_claim`, built once for each form (every message takes one)."""
    columns = [_INBOUND.c[name] for name in STORED_COLUMNS]
    if raw_in_hand:  # read already: a NULL in its place (the row's class fills it in)
        columns[STORED_COLUMNS.index("raw")] = null().label("raw")
    query = select(*columns).where(_INBOUND.c.id == bindparam("inbound_id"))
    return query.with_for_update(skip_locked=skip_locked) if row_lock else query


#: What the pipeline wrote on a stored message, in one statement (see :func:`_write`).
_WRITE = update(_INBOUND).where(_INBOUND.c.id == bindparam("row_id"))


def _write(session, row: StoredMessage, *, raw: bool = False) -> None:
    """Write back what the pipeline and its runner set on ``row`` (its bytes too, with ``raw``): the
    one way a claimed message's row is changed."""
    values = {name: getattr(row, name) for name in WRITTEN_COLUMNS}
    if raw:
        values["raw"] = row.raw
    session.connection().execute(_WRITE, {"row_id": row.id, **values})


def process(
    runtime: Runtime, inbound_id: int, *, skip_locked: bool = False, steps: tuple[Callable[..., None], ...] = ()
) -> str:
    """Run the pipeline (or ``steps``) on one stored message; returns its final status (idempotent).

    ``skip_locked``: a message another worker is processing is left to it (``busy``).
    """
    from pbem.inbound import pipeline

    try:
        # SQLite: read and parsed before the unit, which holds the one write lock.  PostgreSQL: read
        # with the row's claim and parsed under it (a row lock keeps no one else waiting): one statement.
        raw, prepared = _prepared(runtime, inbound_id) if runtime.db.is_sqlite else (None, None)
        with runtime.unit() as uow:
            row = _claim(uow.session, inbound_id, skip_locked, raw)
            if row is None:
                return "busy" if skip_locked else "missing"
            if row.status != "pending":
                return row.status
            if prepared is None:
                prepared = pipeline.prepare(row.raw)
            outcome = pipeline.run(uow, row, steps or pipeline.PIPELINE, prepared)
            row.status = outcome.status
            row.verdict = outcome.verdict[:4000]
            row.processed_at = utcnow()
            unanswered = outcome.status == "dropped" and row.seat_id is None  # to nobody's seat
            if unanswered:
                row.raw = headers_only(row.raw)
            _write(uow.session, row, raw=unanswered)
            return outcome.status
    except Exception as error:  # the transaction rolled back: nothing was applied
        if outage.unreachable(error):
            raise  # not the message's fault: it stays pending, uncounted (the task reports the outage once)
        log.exception("inbound message %s could not be processed", inbound_id)
        return _record_failure(runtime, inbound_id, error)


def _prepared(runtime: Runtime, inbound_id: int):
    """``(raw, parsed)`` of the pending message on SQLite, read and parsed before its unit of work
    opens (that unit holds the one write lock, which parsing a large message must not keep from every
    other writer); ``(None, None)`` if it is not pending."""
    from pbem.inbound import pipeline

    query = select(_INBOUND.c.raw).where(_INBOUND.c.id == inbound_id, _INBOUND.c.status == "pending")
    with runtime.reading() as uow:
        found = uow.session.execute(query).first()
    if found is None:
        return None, None
    raw = bytes(found[0])
    return raw, pipeline.prepare(raw)


def _record_failure(runtime: Runtime, inbound_id: int, error: Exception) -> str:
    """Count the attempt; after :data:`MAX_ATTEMPTS` the message is ``failed``, and never in silence:
    the admin is told and its sender, if a player here, answered (:func:`_tell_failure`)."""
    with runtime.unit() as uow:
        session = uow.session
        row = _claim(session, inbound_id)
        if row is None or row.status != "pending":
            return row.status if row else "missing"
        row.attempts += 1
        if row.attempts >= MAX_ATTEMPTS:
            row.status, row.verdict, row.processed_at = "failed", f"internal error: {type(error).__name__}", utcnow()
        _write(session, row)
        status = row.status
    if status == "failed":
        _tell_failure(runtime, inbound_id, error)
    return status


def _tell_failure(runtime: Runtime, inbound_id: int, error: Exception) -> None:
    """The admin told (within the budget of :mod:`~pbem.services.play.engine_faults`), then the sender
    answered, each in a unit of its own: the second runs steps that may fail again."""
    from pbem.inbound import pipeline

    said = f"{type(error).__name__}: {error}"[:400]
    try:
        with runtime.unit() as uow:
            sender = uow.session.execute(select(_INBOUND.c.sender).where(_INBOUND.c.id == inbound_id)).scalar()
            engine_faults.tell_failed_message(uow, inbound_id, said, sender)
        with runtime.unit() as uow:
            row = _claim(uow.session, inbound_id)
            if row is None:
                return
            if pipeline.answer_failure(uow, row):
                row.verdict = f"{row.verdict}; its sender was told"[:4000]
            _write(uow.session, row)  # with what the steps that found its sender read
    except Exception:  # the log keeps it; the admin console lists the failed message anyway
        log.exception("inbound message %s failed, and telling of it failed too", inbound_id)
