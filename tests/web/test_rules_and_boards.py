"""The rules page, its links from every page, email and ``help`` answer of a game, and drawn boards on pages."""

from __future__ import annotations

import re

from engines import registry
from pbem.services.play import seat_page
from pbem.web.page_board import web_html
from pbem.web.rules import markdown
from tests.support.play import outbox, seat_ids, start
from tests.web.conftest import web_tokens


def test_rules_page_renders_the_engines_rules_md(client):
    response = client.get("/rules/kidsprout")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<h1>KidSprout Jumboree — rules as this server plays them</h1>" in html
    assert "This file" not in html and "(engine" not in html, "the page speaks of itself as a page"
    assert "<li>" in html and "<strong>Seats are suits</strong>" in html
    for name in registry():
        assert client.get(f"/rules/{name}").status_code == 200, f"{name} ships no RULES.md"
    index = client.get("/rules").get_data(as_text=True)
    assert all(f'href="/rules/{name}"' in index for name in registry())


def test_each_engine_names_its_rules_file_and_the_page_shows_it(client):
    for name, engine in registry().items():
        assert engine.rules_path.name == "RULES.md" and engine.rules_path.is_file(), name
        title = engine.rules_path.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").split(" (")[0]
        assert title in client.get(f"/rules/{name}").get_data(as_text=True), name


def test_unknown_rules_are_a_clean_404(client):
    response = client.get("/rules/chess")
    assert response.status_code == 404
    assert "Traceback" not in response.get_data(as_text=True)


def test_markdown_raw_html_is_not_passed_through():
    html = markdown().render("<script>x()</script>\n\n| a |\n|---|\n| b |")
    assert "<script>" not in html and "&lt;script&gt;" in html and "<table>" in html


def test_pages_and_emails_of_a_game_link_the_rules(client, sqlite_runtime):
    game_id = start(sqlite_runtime, "rankchain", ["Ann <ann@example.org>", "Bob <bob@example.org>"])
    rules = "/rules/rankchain"
    assert f'href="{rules}"' in client.get(f"/games/{game_id}").get_data(as_text=True)
    token = next(iter(web_tokens(sqlite_runtime, game_id).values()))
    assert f'href="{rules}"' in client.get(f"/play/{token}").get_data(as_text=True)
    mails = [mail for mail in outbox(sqlite_runtime, game_id=game_id) if mail.status != "folded"]  # as sent
    assert mails
    for mail in mails:
        assert rules in mail.body_text and f'{rules}"' in mail.body_html


def test_help_answer_links_the_rules(sqlite_runtime):
    game_id = start(sqlite_runtime, "sneak", [f"P{i} <p{i}@example.org>" for i in range(4)])
    seat_id = next(iter(seat_ids(sqlite_runtime, game_id).values()))
    answer = sqlite_runtime.in_unit(seat_page.answer_seat, game_id, seat_id, ["help"])
    text = " ".join(v.message for v in answer.verdicts)
    assert f"{sqlite_runtime.settings.base_url}/rules/sneak" in text


def test_pages_draw_the_board_with_classes_under_a_nonce(client, sqlite_runtime):
    game_id = start(sqlite_runtime, "kidsprout", ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <c@x.org>"])
    token = web_tokens(sqlite_runtime, game_id)["Suns"]
    for path in (f"/play/{token}", f"/games/{game_id}", f"/games/{game_id}"):  # twice: the cached status page
        response = client.get(path)
        html = response.get_data(as_text=True)
        nonce = re.search(r'<style nonce="([^"]+)">', html).group(1)
        assert f"style-src 'self' 'nonce-{nonce}'" in response.headers["Content-Security-Policy"]
        assert "unsafe-inline" not in response.headers["Content-Security-Policy"]
        board = html[html.index("data-board") :]
        assert "style=" not in board[: board.index("</div>\n")], "an inline style would be blocked by the CSP"
        assert "null" in board and "Leaping Buck" in board


def test_web_html_turns_styles_into_classes():
    from markupsafe import Markup

    converted = web_html(Markup('<p style="color:#111;font-family:&#39;A B&#39;">x</p><b style="color:#111">y</b>'))
    assert 'style="' not in converted.markup
    classes = re.findall(r'class="(v[0-9a-f]+)"', converted.markup)
    assert len(classes) == 2 and len(set(classes)) == 2
    assert "font-family:'A B'" in converted.css and converted.css.count("{") == 2
    # a style that could end the <style> element is never moved into it: the drawing is refused instead
    assert web_html(Markup('<p style="x&lt;/style&gt;">a</p>')) is None
