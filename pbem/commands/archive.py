"""``pbem backup FILE`` and ``pbem restore FILE``: the whole instance in one file, and back.

This works on whole databases (SQLite's backup API, ``pg_dump`` in an exported
snapshot, an empty instance checked before a restore), below any game's rows, so
it opens its own connections: it lives with the commands that are its only
entry points, not among the services, which take the caller's unit of work.

A backup is a gzipped tar archive, readable by its owner only, holding:

* ``pbem-backup.json``: what it is (format, version, when, which database, the
  schema's migration, how many games);
* ``database.sqlite3``: an SQLite database copied with SQLite's online backup
  API, a consistent snapshot even while the server writes; or
  ``database.pgdump``: ``pg_dump --format=custom`` of PostgreSQL, taken in one
  snapshot (the counts in the manifest are read in the same snapshot);
* ``secret_key``: the instance secret, which signs every reply address,
  web link and session; without it the restored players' old emails and links
  would stop working.

``restore`` takes a backup into an empty instance only (no pbem tables in its
database), writes the secret into the instance folder, and brings the schema
to the newest migration, so a backup from an older release restores into a
newer one.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, func, inspect, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

from pbem.config import SECRET_FILE, Settings
from pbem.db import normalise_url
from pbem.models import Game, Seat
from pbem.services import ServiceError

FORMAT = "pbem-backup"
VERSION = 1
MANIFEST = "pbem-backup.json"
SQLITE_MEMBER = "database.sqlite3"
PGDUMP_MEMBER = "database.pgdump"
#: Seconds pg_dump or pg_restore may take before the backup or restore is given up.
TOOL_TIMEOUT = 3600


class BackupError(ServiceError):
    """A backup or restore that cannot be made; the message says why and what to do."""


@dataclass(frozen=True)
class BackupInfo:
    """What a backup holds (from its manifest)."""

    database: str
    revision: str | None
    games: int
    seats: int
    created_at: str
    schema: str | None = None
    secret_from: str = "instance"

    def describe(self) -> str:
        return (
            f"{self.games} game(s), {self.seats} seat(s); {self.database} database at migration "
            f"{self.revision or 'none'}; taken {self.created_at}"
        )


def _kind(url: str) -> str:
    backend = make_url(normalise_url(url)).get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise BackupError(f"a {backend} database cannot be backed up here; pbem runs on SQLite or PostgreSQL")
    return backend


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _counts(connection) -> tuple[str | None, int, int]:
    """The schema's migration and the number of games and seats, on ``connection``."""
    if not inspect(connection).has_table("alembic_version"):
        return None, 0, 0
    revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    games = connection.execute(select(func.count()).select_from(Game.__table__)).scalar() or 0
    seats = connection.execute(select(func.count()).select_from(Seat.__table__)).scalar() or 0
    return revision, int(games), int(seats)


def secret_source(settings: Settings) -> str:
    """Where the instance secret comes from: the environment (or its file) or the instance folder."""
    path = settings.instance / SECRET_FILE
    if path.is_file() and path.read_text().strip() == settings.secret_key:
        return "instance"
    return "PBEM_SECRET_KEY"


# -- backup ---------------------------------------------------------------------------


def backup(settings: Settings, target: Path) -> BackupInfo:
    """Write the instance's database and secret to ``target`` (replaced only once complete)."""
    if not settings.secret_key:
        raise BackupError("this instance has no secret key yet, so there is nothing to back up")
    kind = _kind(settings.database_url)
    with tempfile.TemporaryDirectory(prefix="pbem-backup-") as folder:
        work = Path(folder)
        if kind == "sqlite":
            member, info = SQLITE_MEMBER, _sqlite_snapshot(settings.database_url, work / SQLITE_MEMBER)
        else:
            member, info = PGDUMP_MEMBER, _pg_dump(settings.database_url, work / PGDUMP_MEMBER)
        info = {**info, "database": kind, "created_at": _now(), "secret_from": secret_source(settings)}
        manifest = {"format": FORMAT, "version": VERSION, **info}
        _write_archive(target, work / member, member, manifest, settings.secret_key)
    return _info(manifest)


def _sqlite_snapshot(url: str, copy: Path) -> dict[str, Any]:
    source = Path(make_url(normalise_url(url)).database or "")
    if not source.is_file():
        raise BackupError(f"there is no database file at {source}")
    live, snapshot = sqlite3.connect(source, timeout=30), sqlite3.connect(copy)
    try:
        live.backup(snapshot)  # SQLite's online backup: one consistent copy while writers go on
    finally:
        live.close()
        snapshot.close()
    engine = create_engine(f"sqlite:///{copy}", poolclass=NullPool)
    try:
        with engine.connect() as connection:
            revision, games, seats = _counts(connection)
    finally:
        engine.dispose()
    return {"revision": revision, "games": games, "seats": seats, "schema": None}


def libpq(url: str) -> tuple[str, dict[str, str]]:
    """A libpq connection URI for the pg_ tools and the environment carrying its password."""
    parsed = make_url(normalise_url(url))
    env = dict(os.environ)
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)
    plain: URL = parsed.set(drivername="postgresql", password=None)
    return plain.render_as_string(hide_password=False), env


def schema_of(url: str) -> str | None:
    """The schema a ``search_path`` in the URL's ``options`` names (None: the database's default)."""
    options = make_url(normalise_url(url)).query.get("options") or ""
    if isinstance(options, tuple):
        options = " ".join(options)
    match = re.search(r"search_path\s*=\s*([A-Za-z_][A-Za-z0-9_$]*)", options)
    return match.group(1) if match else None


def _tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise BackupError(
            f"{name} is not installed; install PostgreSQL's client tools (Debian: apt-get install postgresql-client), "
            "of the server's version or newer"
        )
    return found


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TOOL_TIMEOUT, check=False)
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise BackupError(f"{what} failed: {lines[0][:300] if lines else f'exit status {done.returncode}'}")


def _pg_dump(url: str, dump: Path) -> dict[str, Any]:
    """``pg_dump`` in a snapshot exported from a transaction that also counts the games."""
    pg_dump = _tool("pg_dump")
    uri, env = libpq(url)
    schema = schema_of(url)
    engine = create_engine(normalise_url(url), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            connection.execution_options(isolation_level="REPEATABLE READ")
            with connection.begin():
                snapshot = connection.execute(text("SELECT pg_export_snapshot()")).scalar()
                revision, games, seats = _counts(connection)
                command = [pg_dump, "--format=custom", "--no-owner", "--no-acl", f"--snapshot={snapshot}"]
                command += [f"--schema={schema}"] if schema else []
                _run([*command, f"--file={dump}", f"--dbname={uri}"], env, "pg_dump")
    finally:
        engine.dispose()
    return {"revision": revision, "games": games, "seats": seats, "schema": schema}


def _write_archive(target: Path, database: Path, member: str, manifest: dict[str, Any], secret: str) -> None:
    """The archive, owner-readable only, written beside ``target`` and renamed into place."""
    target = target.resolve()
    partial = target.with_name(target.name + ".part")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as archive:
            _add_bytes(archive, MANIFEST, json.dumps(manifest, indent=2).encode())
            archive.add(database, arcname=member, filter=_private)
            _add_bytes(archive, SECRET_FILE, secret.encode() + b"\n")
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _private(entry: tarfile.TarInfo) -> tarfile.TarInfo:
    entry.mode, entry.uid, entry.gid, entry.uname, entry.gname = 0o600, 0, 0, "", ""
    return entry


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    entry = tarfile.TarInfo(name)
    entry.size, entry.mode, entry.mtime = len(data), 0o600, int(dt.datetime.now(dt.UTC).timestamp())
    archive.addfile(entry, io.BytesIO(data))


def _info(manifest: dict[str, Any]) -> BackupInfo:
    return BackupInfo(
        database=str(manifest["database"]),
        revision=manifest.get("revision"),
        games=int(manifest.get("games") or 0),
        seats=int(manifest.get("seats") or 0),
        created_at=str(manifest.get("created_at") or "?"),
        schema=manifest.get("schema"),
        secret_from=str(manifest.get("secret_from") or "instance"),
    )


# -- restore --------------------------------------------------------------------------


def read_backup(source: Path, into: Path) -> tuple[dict[str, Any], Path, str]:
    """Unpack ``source`` into ``into``: its manifest, its database file and its secret."""
    try:
        with tarfile.open(source, mode="r:gz") as archive:
            names = set(archive.getnames())
            if MANIFEST not in names or SECRET_FILE not in names:
                raise BackupError(f"{source} is not a pbem backup (no {MANIFEST} or {SECRET_FILE} inside)")
            archive.extractall(into, members=[m for m in archive.getmembers() if m.isfile()], filter="data")
    except FileNotFoundError:
        raise BackupError(f"there is no file {source}") from None
    except (tarfile.TarError, OSError, EOFError) as error:
        raise BackupError(f"{source} is not a pbem backup ({error})") from None
    manifest = json.loads((into / MANIFEST).read_text())
    if manifest.get("format") != FORMAT or int(manifest.get("version") or 0) > VERSION:
        raise BackupError(f"{source} is not a pbem backup this version can read (format {manifest.get('format')!r})")
    member = SQLITE_MEMBER if manifest.get("database") == "sqlite" else PGDUMP_MEMBER
    if not (into / member).is_file():
        raise BackupError(f"{source} is incomplete: it has no {member}")
    return manifest, into / member, (into / SECRET_FILE).read_text().strip()


def restore(settings: Settings, source: Path) -> BackupInfo:
    """Restore ``source`` into this instance, which must be empty; then upgrade its schema."""
    from pbem.migrations import upgrade

    kind = _kind(settings.database_url)
    with tempfile.TemporaryDirectory(prefix="pbem-restore-") as folder:
        manifest, database, secret = read_backup(source, Path(folder))
        info = _info(manifest)
        if info.database != kind:
            raise BackupError(
                f"this backup holds a {info.database} database and this instance uses {kind} "
                f"(PBEM_DATABASE_URL); restore it into an instance with a {info.database} database"
            )
        _check_empty(settings.database_url)
        _check_secret(settings, secret)
        if kind == "sqlite":
            _sqlite_restore(database, settings.database_url)
        else:
            _pg_restore(database, settings.database_url, info.schema)
        _write_secret(settings.instance, secret)
    upgrade(settings.database_url)
    return info


def _check_secret(settings: Settings, secret: str) -> None:
    """A secret fixed by PBEM_SECRET_KEY must be the backup's, or the old addresses would break."""
    if secret_source(settings) == "PBEM_SECRET_KEY" and settings.secret_key != secret:
        raise BackupError(
            "PBEM_SECRET_KEY is set here and differs from the backup's secret, so the restored players' reply "
            "addresses and links would stop working; unset it (the instance folder then keeps the backup's "
            "secret), or set it to the backup's: tar -xzOf BACKUP secret_key"
        )


def _check_empty(url: str) -> None:
    """Refuse a database that already holds tables: a restore never mixes two instances."""
    url = normalise_url(url)
    if make_url(url).get_backend_name() == "sqlite":
        path = Path(make_url(url).database or "")
        if not path.exists() or path.stat().st_size == 0:
            return
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            tables = inspect(connection).get_table_names()
            _, games, _ = _counts(connection)
    finally:
        engine.dispose()
    if tables:
        raise BackupError(
            f"this instance's database is not empty ({len(tables)} tables, {games} games); restore only into an "
            "empty instance: a new PBEM_INSTANCE folder, or a new empty database in PBEM_DATABASE_URL"
        )


def _sqlite_restore(database: Path, url: str) -> None:
    target = Path(make_url(normalise_url(url)).database or "")
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
        leftover.unlink(missing_ok=True)
    source, copy = sqlite3.connect(database), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()


def _pg_restore(dump: Path, url: str, schema: str | None) -> None:
    target_schema = schema_of(url)
    if schema and schema != target_schema:
        raise BackupError(
            f"the backup holds the schema {schema!r}, while PBEM_DATABASE_URL here uses "
            f"{target_schema or 'the default schema'}; set options=-csearch_path%3D{schema} in PBEM_DATABASE_URL"
        )
    if schema:
        _drop_empty_schema(url, schema)  # pg_restore creates it with everything in it
    uri, env = libpq(url)
    _run(
        [
            _tool("pg_restore"),
            "--no-owner",
            "--no-acl",
            "--exit-on-error",
            "--single-transaction",
            f"--dbname={uri}",
            str(dump),
        ],
        env,
        "pg_restore",
    )


def _drop_empty_schema(url: str, schema: str) -> None:
    engine = create_engine(normalise_url(url), poolclass=NullPool)
    try:
        with engine.begin() as connection:
            exists = connection.execute(
                text("SELECT 1 FROM information_schema.schemata WHERE schema_name = :name"), {"name": schema}
            ).scalar()
            if exists:
                connection.execute(text(f'DROP SCHEMA "{schema}"'))  # RESTRICT: only if empty (checked above)
    finally:
        engine.dispose()


def _write_secret(instance: Path, secret: str) -> None:
    instance.mkdir(parents=True, exist_ok=True)
    path = instance / SECRET_FILE
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret)
