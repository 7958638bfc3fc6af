"""``pbem db upgrade``, ``pbem admin create`` and ``pbem admin link``."""

from __future__ import annotations

import click
from sqlalchemy import select
from werkzeug.security import generate_password_hash

from pbem.commands import fail, runtime
from pbem.migrations import upgrade
from pbem.models import AdminUser
from pbem.runtime import shown_url


@click.group("db")
def db_group() -> None:
    """Database schema."""


@db_group.command("upgrade")
def db_upgrade() -> None:
    """Apply every pending migration."""
    settings = runtime(create=True).settings
    upgrade(settings.database_url)
    click.echo(f"database is up to date ({shown_url(settings.database_url)}; instance folder {settings.instance})")


@click.group("admin")
def admin_group() -> None:
    """Admin users of the web console."""


def _username(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """Checked before the password is asked for: a bad name is refused at once."""
    value = value.strip()
    if not value or len(value) > 100:
        raise click.BadParameter("the username must be 1 to 100 characters, not empty or blank")
    return value


@admin_group.command("create")
@click.argument("username", callback=_username)
@click.password_option("--password", envvar="PBEM_ADMIN_PASSWORD", help="Prompted for if not given.")
def admin_create(username: str, password: str) -> None:
    """Create an admin user (or set a new password for an existing one)."""
    if len(password) < 8:
        fail("the password must have at least 8 characters")
    rt = runtime()
    with rt.unit() as uow:
        session = uow.session
        user = session.scalars(select(AdminUser).where(AdminUser.username == username)).one_or_none()
        if user is None:
            session.add(AdminUser(username=username, password_hash=generate_password_hash(password)))
            click.echo(f"admin user {username} created")
        else:
            user.password_hash = generate_password_hash(password)
            user.session_epoch += 1  # a cookie stolen under the old password stops working
            click.echo(f"password of admin user {username} changed; every session of {username} has ended")


@admin_group.command("link")
@click.argument("username", callback=_username)
def admin_link(username: str) -> None:
    """Print a one-time log-in link for an admin (works once, for 15 minutes; ends their other sessions).

    For when the password form is shut by too many failed log-ins for that username."""
    from pbem.services import ServiceError
    from pbem.services.ops import admin_links

    try:
        url = runtime().in_unit(admin_links.make_link, username)
    except ServiceError as error:
        fail(str(error))
    click.echo(url)
