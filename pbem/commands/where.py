"""Which instance a command works on, and a clear refusal where there is none.

An instance is a folder (``PBEM_INSTANCE``, else ``./instance``) with its
database, secret key and settings.  Only ``pbem serve`` and ``pbem db upgrade``
make a new one; any other command run where no database exists stops and says
where the running servers keep theirs, rather than quietly starting a second,
empty instance whose links point at another server's games.

``pbem serve`` notes each running server (its instance and address) in the
user's state folder (``$XDG_STATE_HOME/pbem/servers``), so the refusal can name it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

import click
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from pbem.config import Settings, instance_is_named, user_state_home
from pbem.db import normalise_url
from pbem.runtime import shown_url


def state_folder() -> Path:
    """Where this user's running servers are noted."""
    return user_state_home() / "pbem" / "servers"


def _note_path(instance: Path) -> Path:
    return state_folder() / (hashlib.sha256(str(instance).encode()).hexdigest()[:16] + ".json")


def note_server(instance: Path, url: str, pid: int) -> None:
    """Note a running server; nothing fails if the state folder cannot be written."""
    with contextlib.suppress(OSError):
        path = _note_path(instance)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"instance": str(instance), "url": url, "pid": pid}), encoding="utf-8")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_servers() -> list[dict[str, str]]:
    """Servers noted by ``pbem serve`` whose process still runs and whose instance still exists."""
    found = []
    try:
        notes = sorted(state_folder().glob("*.json"))
    except OSError:
        return []
    for path in notes:
        try:
            note = json.loads(path.read_text(encoding="utf-8"))
            if _alive(int(note["pid"])) and Path(note["instance"]).is_dir():
                found.append({"instance": str(note["instance"]), "url": str(note["url"])})
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found


def database_exists(url: str) -> bool:
    """True if the database holds pbem's tables (never creates a file or a table to find out)."""
    url = normalise_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        if not path or path == ":memory:" or not Path(path).is_file():
            return False
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return inspect(connection).has_table("alembic_version")
    finally:
        engine.dispose()


class SchemaBehind(click.ClickException):
    """The database exists with an older schema than this code's: ``pbem db upgrade`` is the way out."""


def require_database(settings: Settings) -> None:
    """Stop with the way out unless the instance's database exists with this code's schema.

    Only ``pbem db upgrade`` and ``pbem serve`` migrate; any other command stops here."""
    from pbem.migrations import behind_message

    if not database_exists(settings.database_url):
        raise click.ClickException(missing_database_message(settings))
    behind = behind_message(settings.database_url)
    if behind:
        raise SchemaBehind(f"{behind} ({shown_url(settings.database_url)})")


def missing_database_message(settings: Settings) -> str:
    """What is missing, which instance was looked at, and where the running servers keep theirs."""
    instance = settings.instance
    origin = "PBEM_INSTANCE" if instance_is_named() else "./instance, as PBEM_INSTANCE is not set"
    if make_url(normalise_url(settings.database_url)).get_backend_name() == "sqlite":
        what = f"there is no pbem database in the instance folder {instance} ({origin})"
    else:
        what = f"the database {shown_url(settings.database_url)} has no pbem tables yet (instance folder {instance})"
    lines = [what + "."]
    servers = [s for s in running_servers() if Path(s["instance"]) != instance]
    for server in servers:
        lines.append(
            f"A server runs at {server['url']} with its instance in {server['instance']}: "
            f"run the command in {Path(server['instance']).parent}, or set PBEM_INSTANCE={server['instance']}."
        )
    if not servers:
        lines.append("Run the command where the server runs, or set PBEM_INSTANCE to its instance folder.")
    lines.append("To start a new instance here instead: `pbem db upgrade` (or `pbem serve`).")
    return "\n".join(lines)
