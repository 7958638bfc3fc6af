"""What an email says, kept as data when it may never be sent.

Emails are rendered as they are queued, but for one that waits (a receipt or
press ``deferred`` to the seat's next email, :mod:`pbem.services.mailout.folds`):
most of those are only ever shown as a block at the top of another email, so
rendering them would be thrown away.  Such a row keeps instead, in its
``fold``, what its templates read (:meth:`Draft.kept`: a few strings, the block's
data, and the game's name, turn, phase and status; never the seat's view, which
a receipt does not show); if it ever goes alone, it is rendered from that
(:func:`rendered`), so it says byte for byte what it would have said when it
was queued, whatever the game did since.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from pbem.mail.compose import render
from pbem.models import Game, OutboxMessage, Seat
from pbem.services.mailout import preferences

#: The key of a row's ``fold`` that holds its kept draft.
KEY = "email"
#: What the templates of an email that may wait read of its game and seat; the rest is in its context.
GAME_FIELDS = ("name", "turn", "phase", "status")
SEAT_FIELDS = ("seat",)


@dataclass(frozen=True)
class Draft:
    """An email before rendering: its template and everything the template is given."""

    template: str
    kind: str
    subject: str
    context: dict[str, Any]
    #: ``(preference, preferences URL)`` of the "how to change it" footer; None: no footer.
    footer: tuple[str, str] | None = None

    def render(self, game: Any, seat: Any) -> tuple[str, str]:
        """``(text, html)``: the templates, then the footer."""
        text, html = render(self.template, subject=self.subject, game=game, seat=seat, kind=self.kind, **self.context)
        if self.footer is not None:
            text, html = preferences.with_footer(text, html, *self.footer)
        return text, html

    def kept(self, game: Game | None, seat: Seat | None) -> dict[str, Any]:
        """The draft as JSON, with what its templates read of ``game`` and ``seat`` as they are now."""
        return {
            "template": self.template,
            "context": self.context,
            "footer": list(self.footer) if self.footer else None,
            "game": _fields(game, GAME_FIELDS),
            "seat": _fields(seat, SEAT_FIELDS),
        }


def rendered(fold: dict[str, Any] | None, kind: str, subject: str) -> dict[str, Any]:
    """The columns of a row that kept its draft (:meth:`Draft.kept`), rendered as it was when
    queued: its text, its HTML and its ``fold`` without the draft; nothing for a row rendered then."""
    kept = (fold or {}).get(KEY)
    if kept is None:
        return {}
    footer = kept.get("footer")
    draft = Draft(kept["template"], kind, subject, kept["context"], tuple(footer) if footer else None)
    text, html = draft.render(_namespace(kept.get("game")), _namespace(kept.get("seat")))
    return {"body_text": text, "body_html": html, "fold": {key: value for key, value in fold.items() if key != KEY}}


def fill(row: OutboxMessage) -> None:
    """Render ``row`` if it kept its draft (see :func:`rendered`)."""
    for column, value in rendered(row.fold, row.kind, row.subject).items():
        setattr(row, column, value)


def _fields(thing: Any, names: tuple[str, ...]) -> dict[str, Any] | None:
    return None if thing is None else {name: getattr(thing, name) for name in names}


def _namespace(fields: dict[str, Any] | None) -> SimpleNamespace | None:
    """A kept game or seat, read by the templates as the object was (a field not kept fails loudly)."""
    return None if fields is None else SimpleNamespace(**fields)
