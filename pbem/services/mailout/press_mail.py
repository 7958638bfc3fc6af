"""How press looks in the mail: the press a reply answers, found from its
Message-ID, and how its sender is named to each reader.  Below the press service
so the digest can quote press without depending on the table's rules."""

from __future__ import annotations

import re

from pbem.models import Game, PressMessage

_PRESS_MESSAGE_ID = re.compile(r"<press-(\d+)-(?:t\d+-)?[0-9a-f]+@[^>]+>")


def press_id_from_message_id(message_id: str | None) -> int | None:
    """The press a reply answers, from its ``In-Reply-To``/``References`` (None if not a press email)."""
    for match in _PRESS_MESSAGE_ID.finditer(message_id or ""):
        return int(match.group(1))
    return None


def sender_label(game: Game, press: PressMessage, viewer: str | None) -> str:
    """How the sender is shown to ``viewer`` (a seat name, or None for the public)."""
    if not press.signed and viewer != press.from_seat:
        return "an anonymous player"
    for seat in game.seats:
        if seat.seat == press.from_seat:
            return seat.public_label
    return press.from_seat
