"""A year of Classical played by email only, from ``pbem game create --engine classical``.

Seven players answer their newest email over SMTP (the real listener and inbound
pipeline); every email the server sends comes back through the SMTP sink. The
orders are chosen to pass through every kind of phase of a year: Spring and Fall
movement (Italy takes Trieste with a supported attack, so Austria's fleet is
dislodged), the Fall retreat (the fleet retreats to Albania), and the Winter
adjustment (Italy and others build, Austria, with more units than centres,
removes one). Spring has no dislodgement, so its retreat phase is skipped.

Every turn email a player gets carries the map inline: ``multipart/related``
holding the HTML and the PNG its ``<img src="cid:...">`` names, the whole email
under 200 KB; the text part lists the units by power.
"""

from __future__ import annotations

import email
import email.policy
import io
import re
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner
from PIL import Image

from pbem.cli import main
from tests.mail.support import Mailboxes, echoed, mail_world, reply_to, send, text_of
from tests.support.play import game_row, outbox
from tests.support.smtp_sink import Received

pytestmark = pytest.mark.slow

PLAYERS = [f"player{n}@example.org" for n in range(1, 8)]
CID = re.compile(r'<img src="cid:([^"]+)"')
LIMIT = 200_000

#: Each phase's orders by power, as players type them (the notations of the rules page).
SPRING = {
    "Austria": ["A Vienna hold", "A bud H", "F tri hold"],
    "England": ["F lon-nth", "F Edinburgh - Norwegian Sea", "A lvp-yor"],
    "France": ["A Par-Bur", "A mar - spa", "F bre-mao"],
    "Germany": ["F kie-den", "A ber-kie", "A mun H"],
    "Italy": ["A Venice - Tyrolia", "A rom-ven", "F nap-ion"],
    "Russia": ["F stp/sc-bot", "A mos-ukr", "A war H", "F sev-rum"],
    "Turkey": ["A con-bul", "F ank-bla", "A smy hold"],
}
FALL = {
    "Austria": ["A vie H", "A bud H", "F tri H"],
    "England": ["F nth C A yor-nwy", "A yor-nwy", "F nwg H"],
    "France": ["A bur H", "A spa H", "F mao-por"],
    "Germany": ["F den H", "A kie-hol", "A mun H"],
    "Italy": ["A ven-tri", "A tyr S A ven-tri", "F ion-tun"],
    "Russia": ["F bot-swe", "A ukr H", "A war H", "F rum H"],
    "Turkey": ["A bul H", "F bla H", "A smy H"],
}
RETREAT = {"Austria": ["F tri-alb"]}
WINTER = {
    "Austria": ["remove F alb"],
    "England": ["build F lon"],
    "France": ["build A par", "waive"],
    "Germany": ["build F kie", "build A ber"],
    "Italy": ["build A rom", "build F nap"],
    "Russia": ["build F stp/nc", "build A mos"],
    "Turkey": ["build F ank"],
}


@dataclass
class Table:
    """The game and the players' mailboxes, and what each email was sent as (its outbox kind)."""

    runtime: object
    sink: object
    port: int
    pump: object
    game_id: int
    emails: dict[str, str]
    box: Mailboxes
    kinds: dict[str, str] = field(default_factory=dict)

    def state(self) -> dict:
        return game_row(self.runtime, self.game_id).state

    def reply(self, power: str, lines: list[str]) -> list[Received]:
        """``power``'s player answers their newest email with ``lines``; the emails that caused."""
        address = self.emails[power]
        latest = self.box(address)[-1]
        message = reply_to(latest, address, "\n".join(lines))
        before = len(self.sink.messages)
        send(self.port, message, address, [latest["Reply-To"].addresses[0].addr_spec])
        self.pump.drain()
        return self.sink.messages[before:]

    def kind(self, message) -> str:
        """The outbox kind the email was sent as (``turn``, ``welcome``, a receipt...)."""
        if message["Message-ID"] not in self.kinds:
            for row in outbox(self.runtime):
                self.kinds[row.message_id] = row.kind
        return self.kinds[message["Message-ID"]]


def create_by_cli(runtime) -> int:
    """``pbem game create --engine classical`` with seven players, as an admin would run it."""
    players = [flag for address in PLAYERS for flag in ("--player", address)]
    result = CliRunner().invoke(main, ["game", "create", "--engine", "classical", "--seed", "4", "--no-deadline",
                                       *players])  # fmt: skip
    assert result.exit_code == 0, result.output
    return int(result.output.splitlines()[0])


def check_inline_map(data: bytes) -> str:
    """A turn email as received: text and an HTML part related to its PNG; the text part."""
    assert len(data) < LIMIT, f"the email is {len(data)} bytes"
    message = email.message_from_bytes(data, policy=email.policy.default)
    assert message.get_content_type() == "multipart/alternative"
    plain, related = message.get_payload()
    assert related.get_content_type() == "multipart/related"
    html, image = related.get_payload()
    assert html.get_content_type() == "text/html" and image.get_content_type() == "image/png"
    [cid] = CID.findall(html.get_content())
    assert image["Content-ID"] == f"<{cid}>" and image.get_content_disposition() == "inline"
    assert Image.open(io.BytesIO(image.get_content())).format == "PNG"
    assert "/map.png" in html.get_content()  # the link to the full-size map
    return plain.get_content()


def play_phase(table: Table, orders: dict[str, list[str]], phase: str) -> dict[str, list[Received]]:
    """Every power in ``orders`` replies (in a fixed order); the emails each reply caused."""
    assert table.state()["phase"] == phase
    return {power: table.reply(power, lines) for power, lines in orders.items()}


def turn_emails(table: Table, received: list[Received]) -> dict[str, str]:
    """The turn email each player got among ``received`` (one each), checked for the map; its text by power."""
    found: dict[str, str] = {}
    for item in received:
        if table.kind(item.message) != "turn":
            continue
        [address] = item.recipients
        power = next(p for p, a in table.emails.items() if a == address)
        assert power not in found, f"{power} got two turn emails"
        found[power] = check_inline_map(item.data)
    assert sorted(found) == sorted(table.emails), "every player gets the new turn's email"
    return found


def units(text: str, power: str) -> str:
    """The entry of the text part that lists ``power``'s centres and units (its wrapped lines joined)."""
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith(f"  {power} ("))
    entry = [lines[start]]
    for line in lines[start + 1 :]:
        if not line.startswith("    "):
            break
        entry.append(line.strip())
    return " ".join(entry)


def test_a_year_of_classical_by_email_with_the_map_in_every_turn_email(sqlite_runtime):
    runtime = sqlite_runtime
    game_id = create_by_cli(runtime)
    with mail_world(runtime) as (sink, port, pump):
        for row in outbox(runtime, status="pending"):  # the CLI nudged the worker; the pump stands in for it
            pump.tasks.put(("deliver_outbox", (row.id,)))
        pump.drain()
        game = game_row(runtime, game_id)
        table = Table(runtime, sink, port, pump, game_id, {s.seat: s.account.email for s in game.seats},
                      Mailboxes(sink))  # fmt: skip
        assert sorted(table.emails) == sorted(SPRING) and sorted(table.emails.values()) == sorted(PLAYERS)
        for power, address in table.emails.items():
            [welcome] = table.box(address)
            assert table.kind(welcome) == "welcome" and f"You play {power}" in text_of(welcome)
            assert "Spring 1901 Movement" in check_inline_map(welcome.as_bytes())

        spring = play_phase(table, SPRING, "movement")
        fall_emails = turn_emails(table, [m for sent in spring.values() for m in sent])
        assert table.state()["season"] == "fall" and table.state()["phase"] == "movement"  # no retreat to make
        assert "Classical: Fall 1901 Movement" in fall_emails["Italy"]
        assert "A tyr" in units(fall_emails["Italy"], "Italy") and "A ven" in units(fall_emails["Italy"], "Italy")
        for power in SPRING:  # sealed until the phase resolved: Italy's orders reached nobody before
            for item in spring[power]:
                if table.kind(item.message) != "turn":
                    assert "ven-tyr" not in text_of(item.message) or item.recipients == [table.emails["Italy"]]

        fall = play_phase(table, FALL, "movement")
        retreat_emails = turn_emails(table, [m for sent in fall.values() for m in sent])
        state = table.state()
        assert state["phase"] == "retreat" and list(state["dislodged"]) == ["Austria"]
        assert "Classical: Fall 1901 Retreat" in retreat_emails["Austria"]
        assert "F tri" in retreat_emails["Austria"] and "alb" in retreat_emails["Austria"]
        assert "A tri" in units(retreat_emails["Austria"], "Italy")

        retreat = play_phase(table, RETREAT, "retreat")
        winter_emails = turn_emails(table, retreat["Austria"])
        state = table.state()
        assert state["phase"] == "adjustment"
        assert state["adjust"]["Austria"] == -1 and state["adjust"]["Italy"] == 2
        assert "F alb" in units(winter_emails["Austria"], "Austria")
        assert "Remove 1" in winter_emails["Austria"] and "build 2" in winter_emails["Italy"]

        winter = play_phase(table, WINTER, "adjustment")
        spring_emails = turn_emails(table, [m for sent in winter.values() for m in sent])
        state = table.state()
        assert (state["year"], state["season"], state["phase"]) == (1902, "spring", "movement")
        assert "F alb" not in units(spring_emails["Austria"], "Austria")
        italy = units(spring_emails["Italy"], "Italy")
        assert all(unit in italy for unit in ("A rom", "F nap", "A tri", "A tyr", "F tun")), italy
        assert "F stp/nc" in units(spring_emails["Russia"], "Russia")
        assert all(status == "done" for status in pump.processed)
    for power, address in table.emails.items():  # every order a player sent was answered as accepted
        said = [line for m in table.box(address) for line in echoed(text_of(m))]
        sent_lines = [line for phase in (SPRING, FALL, RETREAT, WINTER) for line in phase.get(power, [])]
        assert set(sent_lines) <= set(said), f"{power}: {set(sent_lines) - set(said)} never confirmed"
