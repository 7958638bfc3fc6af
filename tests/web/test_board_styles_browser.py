"""An engine's HTML board on the seat's page is drawn by the engine's styles alone, in a real Chromium:
the site's table rules (full width, padded cells, grey row lines) stop at the board.

The board is that of the grid game ``pbem engine new NAME --board`` writes: square cells of
34 px with a dark border on every side and no padding."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engines.scaffolded import installed
from tests.support.live import live_site
from tests.support.play import start
from tests.web.conftest import web_tokens

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "tests" / "artifacts" / "views"

CELL = """() => {
  const board = document.querySelector('.board-html table');
  const cell = board.querySelector('td[title]') || board.querySelectorAll('td')[1];
  const style = getComputedStyle(cell), table = getComputedStyle(board);
  return {boardWidth: board.getBoundingClientRect().width, holder: board.parentElement.getBoundingClientRect().width,
          cellWidth: cell.getBoundingClientRect().width, padding: style.paddingLeft,
          bottom: style.borderBottomColor, top: style.borderTopColor, margin: table.marginBottom};
}"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_sites_css_leaves_an_engines_board_alone(tmp_path, chromium, width):
    with installed(tmp_path / "pkg", "cssboard", kind="board"):

        def prepare(runtime):
            game_id = start(runtime, engine="cssboard", players=["Ann <ann@example.org>", "Bob <bob@example.org>"])
            return {"token": web_tokens(runtime, game_id)["Red"]}

        with live_site(tmp_path, "css-secret", "css-pass-1", prepare) as site:
            page = chromium.new_page(viewport={"width": width, "height": 900})
            page.goto(f"{site.url}/play/{site.token}")
            found = page.evaluate(CELL)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"play-board-{width}.png"), full_page=True)
            page.close()
    assert found["padding"] == "0px", found  # the site's cells are padded; the board's are not
    assert found["bottom"] == found["top"] == "rgb(138, 138, 138)", found  # the board's own border, all round
    assert found["boardWidth"] < found["holder"], found  # not stretched to the column's width
    assert 33 <= found["cellWidth"] <= 36, found  # the engine's 34-pixel squares
    assert found["margin"] == "6px", found  # the engine's margin, not the site's 1rem
