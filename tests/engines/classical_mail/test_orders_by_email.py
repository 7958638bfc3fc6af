"""Classical orders as players write them in email replies, and what the answer tells them.

Through the real SMTP listener and inbound pipeline: a numbered or bulleted list of
orders is read as orders; two orders on one line are refused with "one order per
line"; an impossible move is answered with what that unit may do; every accepted
order's answer names the units still without one (or the builds and removals still
owed), so a player who forgot one knows which.
"""

from __future__ import annotations

import pytest

from engines import get_engine
from tests.mail.support import Mailboxes, mail_world, reply_to, send, text_of
from tests.support.play import game_row, start

pytestmark = pytest.mark.slow

PLAYERS = [f"P{n} <p{n}@example.org>" for n in range(1, 8)]


def answer(table, power: str, body: str) -> str:
    """``power``'s player answers their newest email with ``body``; the text of the answer they get at once
    ("" when the reply left them nothing to do this turn: it is confirmed in their next email)."""
    runtime, sink, port, pump, game_id = table
    address = {s.seat: s.account.email for s in game_row(runtime, game_id).seats}[power]
    box = Mailboxes(sink)
    latest = box(address)[-1]
    send(port, reply_to(latest, address, body), address, [latest["Reply-To"].addresses[0].addr_spec])
    pump.drain()
    newest = box(address)[-1]
    if newest is latest:
        return ""
    assert newest["In-Reply-To"] is not None
    return " ".join(text_of(newest).split("\n-- \n")[0].split())  # the answer, its wrapped lines joined


def sealed(runtime, game_id: int, power: str) -> list[str]:
    return get_engine("classical").private_view(game_row(runtime, game_id).state, power)["you"]["orders"]


def test_listed_orders_are_read_and_the_answer_names_the_units_still_to_order(sqlite_runtime):
    runtime = sqlite_runtime
    with mail_world(runtime) as (sink, port, pump):
        game_id = start(runtime, "classical", PLAYERS)
        pump.drain()
        table = (runtime, sink, port, pump, game_id)
        said = answer(table, "Italy", "Hi all,\n\n1. A Venice - Tyrolia\n2) A ven-mun\n\nCheers\nP")
        assert "ACCEPTED: A ven-tyr" in said and "2 more to give: F nap, A rom." in said
        assert "REFUSED: Munich is not next to Venice" in said
        assert "A ven may: hold; move to apu, pie, rom, tri, tus, tyr" in said  # what the unit may do
        said = answer(table, "Italy", "- A rom-ven, F nap-ion")
        assert "REFUSED: 'f nap-ion' is a second order: write one order per line." in said
        assert "Understood: A rom (move)." in said
        assert sealed(runtime, game_id, "Italy") == ["A ven-tyr"]
        said = answer(table, "Italy", "• A rom-ven")
        assert "ACCEPTED: A rom-ven" in said and "1 more to give: F nap." in said
        assert answer(table, "Italy", "(3) F Naples - Ionian Sea") == ""  # all in: confirmed in the next email
        assert sorted(sealed(runtime, game_id, "Italy")) == ["A rom-ven", "A ven-tyr", "F nap-ion"]
        answer(table, "Italy", "A rom hold")  # still replaceable until the phase resolves
        assert sorted(sealed(runtime, game_id, "Italy")) == ["A rom hold", "A ven-tyr", "F nap-ion"]


def holds_but(runtime, game_id: int, power: str, orders: dict[str, str]) -> str:
    """A reply ordering each of ``power``'s units to hold, but those ``orders`` names (by unit)."""
    units = game_row(runtime, game_id).state["units"][power]
    return "\n".join(orders.get(unit, f"{unit} H") for unit in units)


def test_the_answer_in_an_adjustment_counts_the_builds_still_owed(sqlite_runtime):
    runtime = sqlite_runtime
    engine = get_engine("classical")
    moves = [{"F sev": "F sev-rum", "F stp/sc": "F stp/sc-bot"}, {"F bot": "F bot-swe"}]
    with mail_world(runtime) as (sink, port, pump):
        game_id = start(runtime, "classical", PLAYERS)
        pump.drain()
        table = (runtime, sink, port, pump, game_id)
        for orders in moves:  # Spring and Fall 1901: Russia takes Rumania and Sweden, the rest hold
            for power in sorted(engine.to_act(game_row(runtime, game_id).state)):
                answer(table, power, holds_but(runtime, game_id, power, orders))
        state = game_row(runtime, game_id).state
        assert state["phase"] == "adjustment" and state["adjust"] == {"Russia": 2}
        said = answer(table, "Russia", "build A sev")
        assert "ACCEPTED: build A sev" in said and "1 more build to give (or waive)." in said
