"""What players see, in a real headless Chromium, for every engine at phone and desktop width.

One server (the real app on a loopback port, SQLite) and one browser serve the
whole module.  For each engine a game is started and played a little; then its
public status page, the private page of a seat that must act and that seat's
latest turn email (its HTML part) are loaded at 390 and 1280 pixels, and each
must fit the screen (no sideways scroll), show a drawn board, and open with the
action: the first visible text is inside the ``data-action`` block and says
what this seat must do.  axe-core (installed from the npm registry by .ci/run)
checks the status, player, rules and admin pages for serious or critical
accessibility violations.  Phone-width screenshots go to tests/artifacts/views/
(and to ``$PBEM_SCREENSHOTS`` when set: that is how docs/screenshots/ is made).
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from engines import get_engine, registry
from pbem.models import OutboxMessage, Seat
from pbem.services.mailout import drafts
from pbem.web.choices import plain_grammar
from tests.support.live import live_site
from tests.support.play import game_row, play_some, start
from tests.support.services import required

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts" / "views"
PLAYERS = [
    "Ann <ann@example.org>",
    "Bob <bob@example.org>",
    "Cy <cy@example.org>",
    "Di <di@example.org>",
    "Ed <ed@example.org>",
    "Fay <fay@example.org>",
    "Gus <gus@example.org>",
]
#: engine -> (players, random orders played before looking, seed): a board with pieces on it, for
#: every installed engine (those below are chosen for the screenshots in docs/; others get a few orders).
SHOWN = {"kidsprout": (3, 2, 11), "rankchain": (3, 5, 12), "sneak": (5, 1, 2), "sprawl": (3, 7, 14)}
GAMES = {name: SHOWN.get(name, (engine.min_players, 3, 1)) for name, engine in registry().items()}
WIDTHS = (390, 1280)
ADMIN_PASSWORD = "views-pass-1"

FIRST_TEXT = """(root) => {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement, box = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (!box.width || !box.height || style.visibility === 'hidden') continue;
    const action = el.closest('[data-action]');
    return {text: el.innerText, action: action ? action.innerText : null};
  }
  return null;
}"""
OVERFLOW = "document.documentElement.scrollWidth - window.innerWidth"


def axe_script() -> Path | None:
    """axe.min.js from the npm cache dir .ci/run fills (``$PBEM_AXE_DIR``, default tests/artifacts/node)."""
    base = Path(os.environ.get("PBEM_AXE_DIR", ROOT / "tests" / "artifacts" / "node"))
    path = base / "node_modules" / "axe-core" / "axe.min.js"
    return path if path.is_file() else None


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The app on a free port with one started game per engine, an admin, and each game's watched seat."""
    tmp = tmp_path_factory.mktemp("views")

    def prepare(runtime) -> dict:
        games = {}
        for engine_name, (players, moves, seed) in GAMES.items():
            name, two_days = f"{engine_name} camp", 172800
            game_id = start(runtime, engine_name, PLAYERS[:players], name=name, deadline_seconds=two_days)
            play_some(runtime, game_id, seed, moves)
            games[engine_name] = watched_seat(runtime, game_id)
        return {"games": games}

    with live_site(tmp, "views-test-secret", ADMIN_PASSWORD, prepare) as served:
        yield served


def watched_seat(runtime, game_id: int) -> SimpleNamespace:
    """A seat that must act now, its page, its prompt and the HTML of the latest email that asked it."""
    game = game_row(runtime, game_id)
    assert game.status == "active"
    engine = get_engine(game.engine)
    seat_name = sorted(engine.to_act(game.state))[0]
    with runtime.db.read() as session:
        seat = session.scalars(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat_name)).one()
        mail = session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.seat_id == seat.id, OutboxMessage.kind.in_(("turn", "welcome")))
            .order_by(OutboxMessage.id.desc())
        ).first()
        drafts.fill(mail)  # rendered as it is sent (this session is never committed)
        return SimpleNamespace(
            id=game_id,
            seat=seat_name,
            token=seat.web_token,
            prompt=engine.prompt(game.state, seat_name),
            email_html=mail.body_html,
        )


def words(text: str) -> str:
    return " ".join(text.split())


def check_view(page, name: str, prompt: str, root: str) -> None:
    """No sideways scroll, a visible drawn board, and the action as the first visible text."""
    assert page.evaluate(OVERFLOW) <= 0, f"{name}: {page.evaluate(OVERFLOW)} px wider than the screen"
    board = page.locator("[data-board]").first
    assert board.count() and board.is_visible(), f"{name}: no drawn board"
    assert board.bounding_box()["height"] > 150, f"{name}: the board is not drawn"
    first = page.locator(root).first.evaluate(FIRST_TEXT)
    assert first and first["action"], f"{name}: opens with {first and first['text']!r}, not with the action"
    if prompt:
        assert words(prompt) in words(first["action"]), f"{name}: the action block does not say {prompt!r}"


def page_words(prompt: str) -> str:
    """The prompt as a page shows it: its order grammar put in words (``play <a|b>`` -> "play a or b")."""
    return html.unescape(re.sub(r"<[^>]+>", "", str(plain_grammar(prompt))))


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    target = os.environ.get("PBEM_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(target) / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("engine_name", sorted(GAMES))
def test_every_engine_is_drawn_fits_and_opens_with_the_action(site, chromium, engine_name, width):
    game = site.games[engine_name]
    context = chromium.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        errors: list[str] = []  # e.g. a style the page's Content-Security-Policy blocked
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(f"{site.url}/games/{game.id}")
        check_view(page, f"{engine_name} status page at {width}px", "", "main")
        assert game.seat in page.locator("[data-action]").inner_text(), "the status page names who must act"
        page.goto(f"{site.url}/play/{game.token}")
        check_view(page, f"{engine_name} player page at {width}px", page_words(game.prompt), "main")
        if width == 390:
            shoot(page, f"{engine_name}-player")
        assert not errors, errors
        page.close()
        page = context.new_page()  # a blank page: no CSP of the site applies to the email, as in a mail client
        page.set_content(game.email_html)
        check_view(page, f"{engine_name} turn email at {width}px", game.prompt, "body")
        if width == 390:
            shoot(page, f"{engine_name}-email")
    finally:
        context.close()


def serious_violations(page, script: Path) -> list[str]:
    page.add_script_tag(path=str(script))
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".filter(v => v.impact === 'serious' || v.impact === 'critical')"
        ".map(v => v.id + ': ' + v.help + ' (' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join(', ') + ')')"
    )
    return list(found)


def test_pages_have_no_serious_accessibility_violation(site, chromium):
    script = axe_script()
    if script is None:
        if required():
            pytest.fail("axe-core is required (PBEM_REQUIRE_SERVICES=1): .ci/run installs it with npm")
        pytest.skip("axe-core not installed (npm install --no-save --prefix tests/artifacts/node axe-core@4)")
    # The pages' Content-Security-Policy forbids inline script; the test lifts it only to inject axe.
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    problems: dict[str, list[str]] = {}
    try:
        paths = ["/rules"]
        for engine_name, game in sorted(site.games.items()):
            paths += [f"/games/{game.id}", f"/play/{game.token}", f"/rules/{engine_name}"]
        for path in paths:
            page.goto(site.url + path)
            problems[path] = serious_violations(page, script)
        page.goto(f"{site.url}/admin/login")
        page.get_by_label("Username").fill("admin")
        page.get_by_label("Password").fill(ADMIN_PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{site.url}/admin/")
        for path in ["/admin/", "/admin/games/new", f"/admin/games/{site.games['kidsprout'].id}"]:
            page.goto(site.url + path)
            assert page.url == site.url + path, f"{path} redirected to {page.url}"
            problems[path] = serious_violations(page, script)
    finally:
        context.close()
    # Every engine's three pages, the rules index and the admin's three pages were checked.
    assert len(problems) == 3 * len(site.games) + 1 + 3
    assert {path: found for path, found in problems.items() if found} == {}
