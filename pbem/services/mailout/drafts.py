"""What an email says, kept as data until it is sent.

Two kinds of email are not rendered as they are queued:

- one that waits (a receipt or press ``deferred`` to the seat's next email,
  :mod:`pbem.services.mailout.folds`): most of those are only ever shown as a
  block at the top of another email, so rendering them would be thrown away;
- one in :data:`AT_SEND` (the turn email every seat gets when
  a phase ends): drawing each seat's board and rendering its templates is most
  of an order's cost, and it need not be paid inside the game's transaction, nor
  at all for an email that is held for a digest, waits for the seat's next one
  or is suppressed.

Such a row keeps instead, in its ``fold``, what its templates read
(:meth:`Draft.kept`: a few strings, the block's data, the seat's private view as
JSON, and the game's name, engine, turn, phase and status); it is rendered from
that when it is sent or shown (:func:`rendered`), so it says byte for byte what
it would have said when it was queued, whatever the game did since.  The sent
row keeps what was sent (:func:`pbem.services.mailout.outbox.finish`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from pbem.engine_output import board_picture, drawn
from pbem.mail.compose import render
from pbem.models import Game, OutboxMessage, Seat
from pbem.services.mailout import kinds, preferences
from pbem.zoned import for_reader

#: The key of a row's ``fold`` that holds its kept draft.
KEY = "email"
#: What the templates of an email that may wait read of its game and seat; the rest is in its context.
GAME_FIELDS = ("name", "engine", "turn", "phase", "status")
#: ``(template, kind)`` of the emails rendered when sent (see the module's text): the news of a
#: phase, of an admin's or a vacation's change, whose templates read no more of the game than
#: GAME_FIELDS (a kind with a ``kinds/<kind>`` template of its own, a welcome's or a game over's, is not one).
AT_SEND = frozenset((kinds.TURN_TEMPLATE, kind) for kind in kinds.where(at_send=True))
#: The context's key of a seat's private view as JSON, drawn (text and board) when rendered.
VIEW = "view"
#: The context's key of a picture the email shows inline (the public board of an observer's email).
IMAGE = "board_image"
#: The key of a row's ``fold`` listing the pictures its HTML shows inline (``cid:``): each drawn
#: again from its view when the email is written (:func:`pbem.engine_output.inline_pictures`).
PICTURES = "pictures"
SEAT_FIELDS = ("seat",)
#: The context's key of the reader's time zone: every time the table's texts write in UTC is shown in it.
READER_ZONE = "reader_zone"


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
        """``(text, html)``: the templates, then the footer; a kept view is drawn first."""
        context = self.context
        if VIEW in context:
            context = {key: value for key, value in context.items() if key != VIEW}
            context.update(drawn(game.engine, self.context[VIEW]))
        text, html = render(self.template, subject=self.subject, game=game, seat=seat, kind=self.kind, **context)
        if self.footer is not None:
            text, html = preferences.with_footer(text, html, *self.footer)
        zone = self.context.get(READER_ZONE)
        return for_reader(text, zone), for_reader(html, zone)

    def pictures(self, game: Any) -> list[dict[str, Any]]:
        """The pictures the rendered HTML shows inline: the seat's board drawn from its kept view
        (drawn once: :func:`~pbem.engine_output.board_png` keeps it), or one the context names."""
        found = []
        if VIEW in self.context and game is not None:
            found.append(board_picture(game.engine, self.context[VIEW]))
        elif isinstance(self.context.get(IMAGE), dict):
            found.append(self.context[IMAGE])
        return [picture for picture in found if picture]

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
    game = _namespace(kept.get("game"))
    text, html = draft.render(game, _namespace(kept.get("seat")))
    left = {key: value for key, value in fold.items() if key != KEY}
    pictures = draft.pictures(game)
    if pictures:
        left[PICTURES] = pictures
    return {"body_text": text, "body_html": html, "fold": left}


def text_and_html(row: Any, bodies: dict[str, Any] | None = None) -> tuple[str, str]:
    """``row``'s text and HTML as sent: from its draft's ``bodies`` (:func:`rendered`, rendered here if
    not given) if it kept one, else its own."""
    bodies = rendered(row.fold, row.kind, row.subject) if bodies is None else bodies
    return bodies.get("body_text", row.body_text), bodies.get("body_html", row.body_html)


def pictures_of(row: Any, bodies: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The pictures ``row``'s HTML shows inline, as its draft's ``bodies`` (:func:`rendered`) or
    the row itself keep them."""
    fold = (bodies or {}).get("fold", row.fold) or {}
    return list(fold.get(PICTURES) or ())


def fill(row: OutboxMessage) -> None:
    """Render ``row`` if it kept its draft (see :func:`rendered`)."""
    for column, value in rendered(row.fold, row.kind, row.subject).items():
        setattr(row, column, value)


def _fields(thing: Any, names: tuple[str, ...]) -> dict[str, Any] | None:
    return None if thing is None else {name: getattr(thing, name) for name in names}


def _namespace(fields: dict[str, Any] | None) -> SimpleNamespace | None:
    """A kept game or seat, read by the templates as the object was (a field not kept fails loudly)."""
    return None if fields is None else SimpleNamespace(**fields)
