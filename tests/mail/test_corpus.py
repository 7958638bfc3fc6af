"""The .eml corpus: mail as real clients send it yields exactly the intended lines,
both when read alone and through the whole pipeline into a game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.mail.message import addresses, parse
from pbem.mail.quotes import order_lines
from pbem.mail.text import body_text, html_to_text
from tests.mail.helpers import deliver, outbox, seat_address, text_of
from tests.mail.support import echoed
from tests.support.play import game_row, start

CORPUS = Path(__file__).resolve().parents[1] / "data" / "mail"
EXPECTED = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
PLACEHOLDER = b"play-0123456789abcdef01234567-abcdef0123@pbem.test"


def test_the_corpus_covers_the_client_shapes():
    names = " ".join(EXPECTED)
    for shape in (
        "gmail",
        "outlook_desktop",
        "outlook_web",
        "apple",
        "thunderbird",
        "iphone",
        "android",
        "html_only",
        "quoted_printable",
        "base64",
        "iso_8859_1",
        "utf8",
        "top_posted",
        "bottom_posted",
    ):
        assert shape in names, shape
    assert sorted(EXPECTED) == sorted(p.name for p in CORPUS.glob("*.eml"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_message_yields_exactly_the_intended_lines(name):
    message = parse((CORPUS / name).read_bytes())
    assert order_lines(body_text(message)) == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_message_through_the_pipeline_answers_exactly_those_lines(sqlite_runtime, name):
    runtime = sqlite_runtime
    raw = (CORPUS / name).read_bytes()
    sender = addresses(parse(raw), "From")[0]
    game_id = start(runtime, players=[f"P <{sender}>", "b@x.org", "c@x.org", "d@x.org"])
    seat = next(s for s in game_row(runtime, game_id).seats if s.account.email == sender)
    raw = raw.replace(PLACEHOLDER, seat_address(runtime, seat).encode())
    status, _ = deliver(runtime, raw)
    assert status == "done"
    [receipt] = outbox(runtime, kind="receipt")
    assert receipt.recipient == sender
    assert echoed(text_of(receipt)) == EXPECTED[name]


@pytest.mark.parametrize(
    "footer",
    [
        "Sent from my iPhone",
        "Get Outlook for Android",
        "Verstuurd vanaf mijn iPhone",
        "Verstuurd vanaf mijn Samsung Galaxy-smartphone.",
        "Verzonden met Outlook voor Android",
        "Outlook voor iOS downloaden",
        "Inviato da iPhone",
        "Inviato dal mio smartphone Samsung Galaxy.",
        "Scarica Outlook per iOS",
        "Envoyé de mon iPhone",
        "Envoyé depuis mon iPad",
        "Obtenir Outlook pour iOS",
        "Von meinem iPhone gesendet",
        "Outlook für iOS beziehen",
        "Enviado desde mi iPhone",
        "Obtener Outlook para iOS",
        "Enviado do meu iPhone",
        "Obter o Outlook para iOS",
        "Skickat från min iPhone",
        "Sendt fra min iPhone",
        "Отправлено из мобильной Почты Mail.ru",
        "Wysłane z mojego iPhone'a",
    ],
)
def test_phone_footers_are_not_orders(footer):
    assert order_lines(f"play 3\n\n{footer}\n") == ["play 3"]
    assert order_lines(f"play 3\n{footer}\n\n> quoted\n") == ["play 3"]


#: HTML-only replies, one per client, each with a sign-off under its one order.
HTML_CLIENTS = ("gmail", "outlook_web", "outlook_classic", "outlook_mac", "apple_mail", "thunderbird", "yahoo",
                "proton", "fastmail", "gmx")  # fmt: skip


def test_html_only_replies_from_every_client_read_as_their_one_order():
    replies = {name: lines for name, lines in EXPECTED.items() if name.startswith("html_reply_")}
    assert {client for client in HTML_CLIENTS if any(f"_{client}_" in name for name in replies)} == set(HTML_CLIENTS)
    for name, lines in replies.items():
        assert name.endswith("_signoff.eml") and lines == ["play 4"], name
        html = (CORPUS / name).read_bytes()
        assert b"text/plain" not in html, f"{name} must be HTML only"


@pytest.mark.parametrize(
    "block",
    [
        ["Date: 15 Jan 2024 10:00", "From: pbem <pbem@pbem.test>", "To: ann@example.org", "Subject: Game 1"],
        ["Sent: Monday, 15 January 2024 10:00", "From: pbem", "To: Ann", "Subject: Game 1"],
        ["Subject: Game 1", "Date: 15 Jan 2024", "From: pbem <pbem@pbem.test>", "To: Ann"],
        ["Gesendet: Montag, 15. Januar 2024", "Von: pbem", "An: ann@example.org", "Betreff: Spiel 1"],
        ["Fra: pbem <pbem@pbem.test>", "Sendt: 15. januar 2024 10:00", "Til: Ann", "Emne: Spil 1"],
        ["Od: pbem <pbem@pbem.test>", "Wysłano: poniedziałek, 15 stycznia 2024", "Do: Ann", "Temat: Gra 1"],
        ["De : pbem <pbem@pbem.test>", "Envoyé : lundi 15 janvier 2024 10:00", "À : Ann", "Objet : Partie 1"],
        ["De: pbem <pbem@pbem.test>", "Enviado el: lunes, 15 de enero de 2024", "Para: Ann", "Asunto: Partida 1"],
    ],
)
def test_a_rule_and_a_header_block_in_any_order_end_the_reply(block):
    header = "".join(f"<b>{line.split(':')[0]}:</b> {line.split(': ', 1)[1]}<br>" for line in block)
    html = f"<div>play 4</div><hr><div>{header}</div><div><p>Play one Sprout: play 3</p><p>pass</p></div>"
    assert order_lines(html_to_text(html)) == ["play 4"]
    assert order_lines(html_to_text(html.replace("<hr>", ""))) == ["play 4"], "the header block alone"


@pytest.mark.parametrize("marker", ["-----Oprindelig meddelelse-----", "-----Ursprüngliche Nachricht-----"])
def test_a_localized_original_message_rule_ends_the_reply(marker):
    """Outlook in Danish (or German) quotes the older email unmarked under its own rule: none of it is read."""
    assert order_lines(f"play 2\n\n{marker}\nFra: pbem\nplay 4\npass\n") == ["play 2"]
    assert order_lines(f"play 2\n\n{marker}\nplay 4\n") == ["play 2"]


def test_a_few_header_words_in_the_orders_are_not_a_block():
    assert order_lines("to: the camp\nplay 4\nsubject: none") == ["to: the camp", "play 4", "subject: none"]


def test_html_pre_keeps_its_line_breaks():
    html = "<html><body><p>My orders:</p><pre>play 3\r\nexcuse 1 + Moons  late\n\nhelp</pre><p>a\nb</p></body></html>"
    lines = ["My orders:", "", "play 3", "excuse 1 + Moons late", "", "help", "", "a b"]
    assert html_to_text(html).split("\n") == lines


@pytest.mark.parametrize(
    "attribution",
    [
        "On Sat, Rank Chain #2 wrote:",
        "Rank Chain #2 wrote:",
        "Dnia 15.01.2024 o 10:00, pbem napisał(a):",
        "Den mån 15 jan. 2024 kl 10:00 skrev pbem:",
        "Dne 15. 01. 24 v 10:00 pbem napsal(a):",
        "W dniu 15.01.2024 o 10:00, pbem pisze:",
        "Am 15.01.2024 um 10:00 schrieb Rank Chain #2:",
        "Am Sa., 15. Jan. 2024 um 10:00 Uhr schrieb pbem <pbem@pbem.test>:",
        "Le 15/01/2024 à 10:00, Rank Chain #2 a écrit :",
        "Le sam. 15 janv. 2024 à 10:00, pbem <pbem@pbem.test> a écrit :",
        "El sáb, 15 ene 2024 a las 10:00, pbem (<pbem@pbem.test>) escribió:",
        "Den 15. jan. 2024 kl. 10.00 skrev pbem <pbem@pbem.test>:",
    ],
)
def test_an_attribution_over_a_quote_is_not_an_order(attribution):
    reply = f"play 2\n\n{attribution}\n> Example reply: play 4\n> pass\n"
    assert order_lines(reply) == ["play 2"]
    assert order_lines(f"{attribution}\n\n> play 4\n") == []


def test_a_line_ending_in_wrote_with_no_quote_under_it_is_kept():
    """Without an address, a time, a year or a quote under it, "... wrote:" is the player's own line."""
    lines = ["mime the squirrel I wrote:", "play 2"]
    assert order_lines("\n".join(lines)) == lines
