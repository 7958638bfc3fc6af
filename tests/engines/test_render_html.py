"""The engines' HTML renderers: pure functions from a view to email-safe markup.

Each test starts a game with the engine alone, plays a few seeded random orders,
and checks that the markup draws the right pieces, escapes player text, holds
nothing an email client would block, and never shows another seat's secret.
"""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import get_engine, registry
from engines import render_kit as kit
from engines.playout import choose_order
from engines.render_kit import chip, email_problems, grid, ink_on, plainly_safe
from engines.rng import Rng

EVIL = '<script>alert("x")</script>&'
#: Every installed engine at its smallest table.
SMALLEST = [(name, engine.min_players) for name, engine in registry().items()]


def started(name: str, players: int, moves: int = 0, seed: int = 3, names: list[str] | None = None):
    engine = get_engine(name)
    names = names or [f"P{i}" for i in range(players)]
    state = engine.new_game(names, 7, engine.default_variant, engine.resolve_options(None)).state
    rng = Rng(seed)
    for serial in range(moves):
        seat = rng.choice(sorted(engine.to_act(state)))
        text = choose_order(engine, state, seat, rng, serial)
        state = engine.apply_order(state, seat, engine.parse_order(state, seat, text)).state
    return engine, state


def test_kit_escapes_and_reads():
    assert "&lt;script&gt;" in chip(EVIL) and "<script>" not in chip(EVIL)
    table = grid(["a<b"], [[EVIL]])
    assert "<script>" not in table and "a&lt;b" in table and 'width="100%"' in table
    assert ink_on("#ffffff") == "#111111" and ink_on("#000000") == "#ffffff"
    assert ink_on("#2ca02c") == "#111111"  # white on this green would fail WCAG AA


@pytest.mark.parametrize(
    "markup",
    [
        "<svg></svg>",
        "<script>x</script>",
        "<style>p{}</style>",
        '<img src="https://example.org/a.png">',
        '<p onclick="x()">a</p>',
        '<a href="javascript:x()">a</a>',
        '<p style="background:url(https://e.org/t)">a</p>',
        "<div href :>",  # a space before the colon: an attribute of its own, not a CSS property
        "<div background :x>",
    ],
)
def test_email_problems_finds_what_clients_block(markup):
    assert email_problems(markup)
    assert not plainly_safe(markup)


#: What random tags are made of: names, and attribute text harmless and harmful.
NAMES = ["div", "p", "a", "td", "span", "svg", "SCRIPT", "img", "style", "meta", "x-on"]
ATTRS = [
    " ", "/", '"', "'", "=", "on", "click", "onload=", "ON", "href", "src", "srcset", "background", "background:",
    ":", "style=", "title=", "javascript:", "java script:", "url(", "expression(", "&#39;", "&#106;", "&amp;",
    "&colon;", "http://e.org", "https:", "-", "x", "\n", "\t", ">",
]  # fmt: skip
TEXT = ["x", " ", "<!--", "-->", "<!x>", "<?x>", "&#39;", ">", "<", "Segoe UI"]
tags = st.builds(
    lambda end, name, attrs: f"<{end}{name}{''.join(attrs)}>",
    st.sampled_from(["", "/"]),
    st.sampled_from(NAMES),
    st.lists(st.sampled_from(ATTRS), max_size=8),
)


def never_calls_unsafe_markup_safe(parts):
    """:func:`plainly_safe` may send safe markup on to the full parse, but never lets a problem through."""
    markup = "".join(parts)
    first = plainly_safe(markup)
    if first:
        assert full_scan(markup) == [], markup
    assert plainly_safe(markup) == first, "the pass's memory of cleared tags changed its answer"


markups = st.lists(st.one_of(tags, st.sampled_from(TEXT)), max_size=12)
#: A few hundred markups in the fast lane, thousands in the whole suite.
test_the_quick_pass_never_calls_unsafe_markup_safe = settings(max_examples=300, deadline=None)(
    given(markups)(never_calls_unsafe_markup_safe)
)
test_the_quick_pass_never_calls_unsafe_markup_safe_in_thousands = pytest.mark.slow(
    settings(max_examples=3000, deadline=None)(given(markups)(never_calls_unsafe_markup_safe))
)


def full_scan(markup: str) -> list[str]:
    from engines.render_kit import _Scan

    scan = _Scan()
    scan.feed(markup)
    scan.close()
    return scan.problems


def test_the_renderers_markup_takes_the_quick_pass():
    """Every engine's own drawings are judged by the quick pass alone (the full parse is the exception)."""
    for name, players in SMALLEST:
        engine, state = started(name, players, moves=12)
        seats = engine.public_view(state)["seats"]
        views = [engine.public_view(state), *(engine.private_view(state, seat) for seat in seats)]
        assert all(plainly_safe(engine.render_html(view)) for view in views), name


@pytest.mark.parametrize(("name", "players"), SMALLEST)
def test_every_drawing_is_email_safe_and_escapes_names(name, players):
    engine, state = started(name, players, moves=4, names=[EVIL + str(i) for i in range(players)])
    for view in (
        engine.public_view(state),
        *(engine.private_view(state, s) for s in engine.public_view(state)["seats"]),
    ):
        html = engine.render_html(view)
        assert email_problems(html) == []
        assert "<script>" not in html and "&lt;script&gt;" in html
        assert html.startswith("<div") and "data-board" in html
        for dropped in ("max-width", "overflow-wrap", "white-space", "display:inline-block", "table-layout"):
            assert dropped not in html, f"{dropped}: a client that drops it must not lose layout"


def test_kidsprout_draws_coins_by_suit_and_seals_other_coins():
    engine, state = started("kidsprout", 3)
    html = engine.render_html(engine.private_view(state, "Suns"))
    assert html.count(">&nbsp;null&nbsp;<") >= 3 and "Leaping&nbsp;Buck" in html and "Stress Points" in html
    assert "#f7d97d" in html and "#2b4c8c" in html  # Suns' and Moons' coins in their suits' colours
    state = engine.apply_order(state, "Suns", engine.parse_order(state, "Suns", "play 5")).state
    mine = engine.render_html(engine.private_view(state, "Suns"))
    theirs = engine.render_html(engine.private_view(state, "Moons"))
    assert "Your sealed Sprout" in mine and 'title="Suns coin 5"' in mine.split("Your sealed Sprout")[1]
    assert "Your sealed Sprout" not in theirs and ">&nbsp;sealed&nbsp;<" in theirs


def test_kidsprout_escapes_excuse_text():
    engine, state = started("kidsprout", 3)
    view = engine.public_view(state)
    view["table"]["excuses"] = [{"by": "Suns", "sign": "+", "value": 1, "target": "Moons", "text": EVIL}]
    html = engine.render_html(view)
    assert "Excuses on the table" in html and "&lt;script&gt;" in html and "<script>" not in html


def test_rankchain_draws_the_grid_pawns_and_only_your_hand():
    engine, state = started("rankchain", 3, moves=3)
    public = engine.render_html(engine.public_view(state))
    assert len(re.findall(r'<td title="[A-D][1-8]: ', public)) == 32
    assert "Your hand" not in public
    pawns = [seat for seat, cell in engine.public_view(state)["pawns"].items() if cell]
    assert pawns and all(f'title="{seat}&#39;s pawn"' in public for seat in pawns)
    seat = engine.public_view(state)["seats"][0]
    private = engine.render_html(engine.private_view(state, seat))
    hand = engine.private_view(state, seat)["hand_names"]
    assert f"Your hand ({seat})" in private and all(name in private for name in hand)
    faces = [cell["face"] for row in engine.public_view(state)["board"] for cell in row]
    assert public.count(": face down") == faces.count("down")


def test_sneak_draws_your_secret_camp_only_for_you():
    engine, state = started("sneak", 4, moves=1, seed=2)
    public = engine.render_html(engine.public_view(state))
    assert "secret camp" not in public and "Counters" in public
    for seat in engine.public_view(state)["seats"]:
        view = engine.private_view(state, seat)
        html = engine.render_html(view)
        assert "Your secret camp:</strong> <span" in html and f">&nbsp;{view['camp']}&nbsp;<" in html
    assert "Challenge “" in public


def test_sprawl_draws_pieces_by_colour_size_and_pointing():
    engine, state = started("sprawl", 3, moves=7, seed=14)
    view = engine.public_view(state)
    html = engine.render_html(view)
    width, height = view["board"]["width"], view["board"]["height"]
    assert len(re.findall(r'<td title="[a-z]\d+', html)) == width * height
    for square, cell in view["board"]["cells"].items():
        if cell["kind"] == "branch":
            assert f"{square}: {cell['owner']} branch, size {cell['size']}, pointing {cell['points']}" in html
        else:
            assert f"{square}: tower " in html
    assert {"branch", "tower"} <= {cell["kind"] for cell in view["board"]["cells"].values()}


def test_pills_read_as_coloured_words_without_their_css():
    """Where padding, rounded corners and inline-block are dropped (Outlook on Windows), a pill is
    its words on its colour: padded and joined by no-break spaces, set apart from the next by a space."""
    pill = str(kit.chip("Leaping Buck", "#fff3c4"))
    assert ">&nbsp;Leaping&nbsp;Buck&nbsp;<" in pill and "background-color:#fff3c4" in pill
    row = str(kit.chips([kit.chip(2), kit.chip(3)]))
    assert "</span> <span" in row, "two coins never read as 23"


def test_drawings_depend_on_the_view_alone():
    engine, state = started("kidsprout", 3, moves=2)
    view = engine.private_view(state, "Moons")
    before = engine.render_html(copy.deepcopy(view))
    assert engine.render_html(view) == before  # pure: same view, same markup, view untouched
    assert view == engine.private_view(state, "Moons")
