"""Every email template is used, and each has both parts (plain text and HTML)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mail_templates
from engines import registry
from engines.render_kit import email_problems
from pbem.mail.compose import render
from pbem.services.mailout.kinds import EmailKind
from tests.support.play import PLAYERS, outbox, play_some, start

ROOT = Path(mail_templates.__file__).parent
SOURCES = Path(__file__).resolve().parents[2] / "pbem"


def code_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in SOURCES.rglob("*.py"))


def template_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in ROOT.rglob("*.txt"))


#: The HTML part's table frame, its box macro and the board's picture: plain text has none of them.
HTML_ONLY = {Path("_frame"), Path("_panel"), Path("_board_image")}


def test_every_template_has_a_text_and_an_html_part():
    texts = {p.relative_to(ROOT).with_suffix("") for p in ROOT.rglob("*.txt")}
    htmls = {p.relative_to(ROOT).with_suffix("") for p in ROOT.rglob("*.html")}
    assert texts == htmls - HTML_ONLY
    for name in HTML_ONLY:
        assert f'"{name}.html"' in "".join(p.read_text() for p in ROOT.rglob("*.html")), f"{name} is never used"


def test_no_template_is_dead():
    code, templates = code_text(), template_text()
    named = set(re.findall(r'template="([a-z_]+)"', code))
    kinds = set(re.findall(r'kind="([a-z_]+)"', code)) | {
        EmailKind[name].value for name in re.findall(r"EmailKind\.([A-Z_]+)\b", code)
    }
    extended = set(re.findall(r'{% extends "([a-z_/]+)\.txt" %}', templates))
    included = set(re.findall(r'{% include "([a-z_/]+)\.txt" %}', templates))
    blocks = set(re.findall(r'Fold\("([a-z_]+)"', code))  # folded into an email as _<block>_block
    for path in ROOT.glob("*.txt"):
        if path.stem.endswith("_block"):
            assert path.stem[1:-6] in blocks, f"{path.name} is no block a Fold names"
            continue
        assert path.stem in named | extended | included, f"{path.name} is never rendered"
    for path in (ROOT / "kinds").glob("*.txt"):
        assert path.stem in kinds, f"kinds/{path.name} matches no kind of email"
    for path in (ROOT / "engines").glob("*/*.txt"):
        assert path.parent.name in registry(), f"engines/{path.parent.name} is no engine"
        assert f'"/{path.name}"' in templates, f"engines/*/{path.name} is never included"


def test_commands_footer_is_about_command_mode():
    text, html = render("commands", subject="Re: hi", game=None, seat=None, kind="commands", verdicts=[])
    assert "with your orders" not in text and "with your orders" not in html
    assert '"status GAME"' in text and "<code>status GAME</code>" in html


@pytest.mark.parametrize(("name", "players"), [("kidsprout", 3), ("rankchain", 2), ("sneak", 4), ("sprawl", 3)])
def test_every_email_of_a_game_is_email_safe_html(sqlite_runtime, name, players):
    """Whole emails, not only the drawings: what Gmail, Outlook and Apple Mail strip or block
    (script, SVG, style sheets, remote images, forms) appears in no email a game sends."""
    game_id = start(sqlite_runtime, name, players=PLAYERS[:players])
    play_some(sqlite_runtime, game_id, seed=5, count=30)
    rows = [row for row in outbox(sqlite_runtime, game_id=game_id) if row.status != "folded"]  # the sent ones
    assert {row.kind for row in rows} >= {"turn"}
    for row in rows:
        body = re.search(r"<body[^>]*>(.*)</body>", row.body_html, re.DOTALL).group(1)  # the head holds meta only
        assert email_problems(body) == [], (row.kind, email_problems(body))
        assert 'style="' in body and "<table" in body, "inline styles and a drawn table, nothing linked"
