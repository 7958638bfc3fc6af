"""The table is drawn once per public view and shared by every seat's drawing,
which stays exactly what drawing it afresh gives, with no seat's secrets in another's."""

from __future__ import annotations

from functools import cache

from engines.kidsprout import ENGINE, render_html
from engines.playout import random_playout, replay


@cache
def drawings_of_a_game() -> list[list[tuple[dict, str]]]:
    """Per state, every seat's view and the public view, each drawn cold (nothing kept); drawn once for all
    the tests here, which only read it."""
    playout = random_playout(ENGINE, 4, 21, optional_rate=0.2)
    out = []
    for state in list(replay(ENGINE, playout.setup, playout.log))[::2]:
        views = [ENGINE.private_view(state, seat) for seat in state["seats"]] + [ENGINE.public_view(state)]
        cold = []
        for view in views:
            render_html._DRAWN.clear()
            cold.append((view, render_html.render(view)))
        out.append(cold)
    return out


def test_each_drawing_with_the_shared_table_is_the_one_drawn_afresh():
    game = drawings_of_a_game()
    render_html._DRAWN.clear()
    for cold in game:
        for view, fresh in cold:  # one seat after another, as a turn's emails are written
            assert render_html.render(view) == fresh
    assert render_html._DRAWN, "the public blocks were kept"


def test_what_is_kept_holds_only_public_blocks():
    render_html._DRAWN.clear()
    for cold in drawings_of_a_game()[:10]:
        for view, _ in cold:
            render_html.render(view)
    for blocks in render_html._DRAWN.values():
        for name, markup in blocks.items():
            assert 'data-pick="play ' not in markup, f"{name}: a seat's own coins (pickable) were kept"
            assert "&nbsp;you&nbsp;" not in markup, f"{name}: a seat's own card was kept"


def test_the_kept_drawings_are_bounded():
    render_html._DRAWN.clear()
    for cold in drawings_of_a_game():
        for view, _ in cold:
            render_html.render(view)
    assert len(render_html._DRAWN) <= render_html._DRAWN_KEPT
