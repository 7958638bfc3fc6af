"""``pbem admin list`` and ``pbem admin delete``: the web console's admins."""

from __future__ import annotations

import json

import click
from sqlalchemy import func, select

from pbem.commands import fail, runtime
from pbem.models import AdminUser


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def admin_list(as_json: bool) -> None:
    """List the admin users (names and when each was created; never a password)."""
    with runtime().reading() as uow:
        session = uow.session
        rows = [
            {"username": user.username, "created_at": user.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")}
            for user in session.scalars(select(AdminUser).order_by(AdminUser.username))
        ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    elif not rows:
        click.echo("no admin users yet; create one with: pbem admin create NAME")
    for row in [] if as_json else rows:
        click.echo(f"{row['username']:<30} created {row['created_at']}")


@click.command("delete")
@click.argument("username")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
def admin_delete(username: str, yes: bool) -> None:
    """Delete an admin user: their sessions end at once."""
    rt = runtime()
    with rt.reading() as uow:
        session = uow.session
        user = session.scalars(select(AdminUser).where(AdminUser.username == username.strip())).one_or_none()
        total = session.scalar(select(func.count()).select_from(AdminUser))
    if user is None:
        fail(f"there is no admin user {username.strip()!r} (see pbem admin list)")
    last = " It is the last admin: the web console has none until `pbem admin create NAME`." if total == 1 else ""
    if not yes:
        click.confirm(f"Delete the admin user {user.username}?{last}", abort=True)
    with rt.unit() as uow:
        session = uow.session
        session.execute(AdminUser.__table__.delete().where(AdminUser.__table__.c.id == user.id))
    click.echo(f"admin user {user.username} deleted" + (" (no admin is left)" if last else ""))
