"""Open hands (the default) and hidden hands (``open_hands`` no): what each player may know of the coins."""

from __future__ import annotations

from engines.conformance import check_no_leaks
from engines.kidsprout import ENGINE
from tests.engines.kidsprout.helpers import new


def after_a_reveal(**options):
    """Every seat has played a coin once (revealed), so each hand is one coin short and different."""
    state = new(players=3, **options)
    for seat, coin in zip(state["seats"], ("5", "ace", "3"), strict=True):
        state = ENGINE.apply_order(state, seat, ENGINE.parse_order(state, seat, f"play {coin}")).state
    return state


def test_open_hands_show_every_players_remaining_coins():
    state = after_a_reveal()
    assert ENGINE.resolve_options(None)["open_hands"] is True
    first, second, third = state["seats"]
    view = ENGINE.private_view(state, first)
    assert "5" not in view["hands"][first] and "ace" not in view["hands"][second] and "3" not in view["hands"][third]
    assert all(len(view["hands"][seat]) == 5 for seat in state["seats"])
    assert view["hands"][first] == view["you"]["hand"]


def test_hidden_hands_show_a_player_only_their_own_coins():
    state = after_a_reveal(open_hands="no")
    second = state["seats"][1]
    for reader in state["seats"]:
        view = ENGINE.private_view(state, reader)
        assert view["hands"] == {} and view["open_hands"] is False
        assert view["hand_sizes"] == {seat: 5 for seat in state["seats"]}
        assert len(view["you"]["hand"]) == 5
        text = ENGINE.render_text(view)
        others = [seat for seat in state["seats"] if seat != reader]
        for seat in others:
            assert any(line.startswith(seat) and "5 coins" in line for line in text.splitlines()), seat
        assert "5 coins, hidden" in ENGINE.render_html(view)
    public = ENGINE.public_view(state)
    assert public["hands"] == {} and "you" not in public
    assert ENGINE.secret_paths(state)[second], "each hand is a secret of its seat"
    check_no_leaks(ENGINE, state)
