"""``/me/deadlines.ics``: every deadline of a player's running games as an iCalendar feed.

Calendar programs fetch the feed without a session, so it sits behind a secret
link (:func:`pbem.services.people.accounts.calendar_token`), which the player
can replace at any time and which "sign out everywhere" replaces too.  Events
carry the game's name and turn and link its public page: a calendar is shared
and synced far and wide, so never a seat's own link (which plays the seat);
nothing about other seats.
"""

from __future__ import annotations

import datetime as dt

from icalendar import Calendar, Event

from pbem.clock import utcnow
from pbem.runtime import UnitOfWork
from pbem.services import NotFound
from pbem.services.people.accounts import account_by_calendar_token, my_games


def deadlines_ics(uow: UnitOfWork, token: str) -> bytes:
    """The feed of the account whose calendar secret is ``token`` (:class:`NotFound` otherwise)."""
    session = uow.session
    account = account_by_calendar_token(session, token)
    if account is None:
        raise NotFound("this calendar link is not valid (it may have been replaced); copy the new one from /me")
    account_id = account.id
    return feed(uow, account_id)


def feed(uow: UnitOfWork, account_id: int) -> bytes:
    home = my_games(uow, account_id)
    domain, base = uow.settings.mail_domain, uow.settings.base_url
    calendar = Calendar()
    calendar.add("prodid", "-//pbem//deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", "pbem deadlines")
    stamp = utcnow().replace(tzinfo=dt.UTC)
    for game in home["games"]:
        if not game["deadline"]:
            continue
        due = dt.datetime.strptime(game["deadline"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
        event = Event()
        event.add("uid", f"game-{game['id']}-turn-{game['turn']}@{domain}")
        event.add("dtstamp", stamp)
        event.add("dtstart", due)
        event.add("dtend", due + dt.timedelta(minutes=15))
        mark = "your move: " if game["to_act"] else ""
        event.add("summary", f"{mark}{game['name']}, turn {game['turn']} deadline")
        public = f"{base}/games/{game['id']}"
        event.add("description", f"{game['phase']}\nThe game: {public}\nYour games: {base}/me")
        event.add("url", public)
        calendar.add_component(event)
    return calendar.to_ical()
