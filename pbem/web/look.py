"""How pages name seats and results: a seat's colour class, and a finished game's standing in words.

A seat named after a colour (Sprawl's Red, Rank Chain's Blue) wears that colour; any other seat
(KidSprout's Suns, Sneak's Ash) a colour of the palette by its place at the table, so two seats of one
game never share one unless the table is larger than the palette.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flask import Flask

COLOURS = frozenset({"red", "blue", "green", "yellow", "orange", "purple", "black", "white", "pink", "teal", "brown"})
PALETTE = ("blue", "red", "green", "yellow", "purple", "orange", "teal", "pink", "brown", "black", "grey", "white")


def seat_class(name: str | None, seats: Sequence[str] = ()) -> str:
    """The classes of a seat's name: ``seat seat-red``."""
    word = (name or "").strip().lower()
    if word in COLOURS:
        return f"seat seat-{word}"
    index = list(seats).index(name) if name in seats else sum(map(ord, word))
    return f"seat seat-{PALETTE[index % len(PALETTE)]}"


def standings(result: Mapping[str, Any] | None, players: Mapping[str, str]) -> list[dict[str, Any]]:
    """``[{place, seat, player, score, first}]`` from a stored result, best first (ties share a place)."""
    if not result:
        return []
    scores = result.get("scores") or {}
    rows, place = [], 1
    for group in result.get("ranking") or []:
        for seat in group:
            rows.append(
                {
                    "place": place,
                    "seat": seat,
                    "player": players.get(seat, ""),
                    "score": scores.get(seat),
                    "first": place == 1,
                }
            )
        place += len(group)
    return rows


def _named(seat: str, players: Mapping[str, str]) -> str:
    player = players.get(seat)
    return f"{seat} ({player})" if player else seat


def winner_words(result: Mapping[str, Any] | None, players: Mapping[str, str], mine: str | None = None) -> str:
    """The winner(s) in a sentence: "Red (Ann) wins.", "Red (Ann) and Blue (Bob) share the win.", "You win!",
    or "A draw, agreed by the table."."""
    winners = list((result or {}).get("winners") or ((result or {}).get("ranking") or [[]])[0])
    if not winners:
        return "Nobody wins: the game ended without a winner."
    if mine and winners == [mine]:
        return "You win!"
    named = [("you" if seat == mine else _named(seat, players)) for seat in winners]
    if (result or {}).get("drawn"):  # the summary names the drawing seats, the standing their players
        return "A draw, agreed by the table."
    if len(named) == 1:
        return f"{named[0]} wins."
    joined = ", ".join(named[:-1]) + f" and {named[-1]}"
    return joined[:1].upper() + joined[1:] + " share the win."


def players_of(game: Mapping[str, Any]) -> dict[str, str]:
    """Seat -> player of a game's public summary (``/games/<id>.json``'s ``seats``)."""
    return {seat["name"]: seat.get("player") or "" for seat in game.get("seats") or [] if seat.get("name")}


def init_app(app: Flask) -> None:
    app.add_template_global(players_of, "players_of")
    app.add_template_global(seat_class, "seat_class")
    app.add_template_global(standings, "standings")
    app.add_template_global(winner_words, "winner_words")
