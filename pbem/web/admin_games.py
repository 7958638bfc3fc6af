"""The admin's list of every game, a page at a time (``/admin/games?page=N``).

Kept apart from :mod:`pbem.web.admin` (the console's actions) and guarded by
the same log-in check.  Pages are keyset pages, newest first; a status filter
reads the ``(status, id)`` index.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from pbem.game_status import GameStatus
from pbem.models import Game
from pbem.services.play.game_pages import Cursor, list_page
from pbem.services.play.queries import game_fields
from pbem.web import common
from pbem.web.admin import require_admin

bp = Blueprint("admin_games", __name__, url_prefix="/admin/games")
bp.before_request(require_admin)

STATUSES = tuple(GameStatus)


def admin_row(game: Game) -> dict[str, Any]:
    """A game as the admin sees it in a list: players by name, late seats counted."""
    return {
        **game_fields(game),
        "deadline": game.deadline,
        "players": [seat.account.display for seat in game.seats],
        "late": sum(1 for seat in game.seats if seat.missed_deadlines),
    }


@bp.get("")
def games():
    status = request.args.get("status") or ""
    statuses = (status,) if status in STATUSES else None
    cursor = Cursor.parse(**{name: request.args.get(name) for name in ("page", "after", "before")})
    listing = common.run(list_page, cursor, admin_row, statuses)
    return render_template("admin/games.html", listing=listing, status=status if statuses else "", statuses=STATUSES)
