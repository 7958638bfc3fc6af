"""What each seat sees: own camp and answers, never another's camp or an unbought answer."""

from __future__ import annotations

from engines.conformance import check_no_leaks, check_views
from engines.sneak import ENGINE
from engines.sneak.model import FOON, SNEAK, SPORK
from tests.engines.sneak.helpers import ACT, WRITE, answer_all, draw_this, game, give_turn, play, set_camps

CAMPS = {"Ash": SPORK, "Birch": FOON, "Cedar": SNEAK, "Dogwood": SPORK, "Elm": FOON}


def _state_with_secrets():
    state = set_camps(give_turn(game(deck=[WRITE, ACT]), "Ash"), CAMPS)
    state = draw_this(state, "Ash", "w-one")
    state = answer_all(state, {seat: f"{seat} hides this" for seat in state["seats"]}).state
    state = play(state, "Birch", "buy Cedar w-one private").state
    return state


def test_the_public_view_shows_no_camp_and_no_unbought_answer():
    state = _state_with_secrets()
    public = ENGINE.public_view(state)
    text = str(public) + ENGINE.render_text(public)
    assert "hides this" not in text
    for seat in state["seats"]:
        assert f"'{seat}': ['" not in text
    assert public["camps"] == {"Sneak": 1, "Spork": 2, "Foon": 2, "larger": None}


def test_a_private_view_shows_own_camp_own_answers_and_what_was_bought():
    state = _state_with_secrets()
    birch = ENGINE.private_view(state, "Birch")
    assert birch["camp"] == FOON and birch["camp_history"] == [FOON]
    answers = {a["seat"]: a for a in birch["performed"][0]["answers"]}
    assert answers["Birch"]["status"] == "yours" and answers["Cedar"]["status"] == "known"
    assert answers["Ash"]["status"] == "hidden" and answers["Ash"]["text"] is None
    text = ENGINE.render_text(birch)
    assert "Cedar hides this [known to you]" in text and "Birch hides this [yours, secret]" in text
    assert "Your camp: Foon." in text
    cedar = ENGINE.private_view(state, "Cedar")
    assert cedar["camp"] == SNEAK


def test_the_sneaks_prompt_and_instruction():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state["current"] = {"id": "toll", "kind": "act", "by": "Ash", "answers": {}}
    state["phase"] = "answer"
    assert "answer as spork" in ENGINE.prompt(state, "Cedar")
    assert ENGINE.private_view(state, "Cedar")["instruction"].startswith("Follow either")
    assert ENGINE.private_view(state, "Ash")["instruction"] == "Pay one counter to the bank and sigh loudly."
    assert "answer as" not in ENGINE.prompt(state, "Ash")


def test_a_sneak_told_what_to_do_gets_that_instruction():
    state = set_camps(give_turn(game(deck=[WRITE, dict(ACT, sneak_as="foon")]), "Ash"), CAMPS)
    state = draw_this(state, "Ash", "bow")
    assert ENGINE.private_view(state, "Cedar")["instruction"] == "Act as a Foon: Curtsy."
    assert ENGINE.private_view(state, "Birch")["instruction"] == "Curtsy."
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state["current"] = {"id": "confession", "kind": "write", "by": "Ash", "answers": {}}
    state["phase"] = "answer"
    sneak = ENGINE.private_view(state, "Cedar")
    assert sneak["instruction"] == "Write a true fact, as a Spork would."
    assert "The Sneak must act as a Spork." in sneak["challenge"]["effects"]
    assert ENGINE.private_view(state, "Elm")["instruction"] == "Write a believable lie about yourself."


def test_camps_become_public_when_the_match_ends():
    state = set_camps(give_turn(game(), "Ash"), CAMPS)
    state = play(state, "Ash", "vote").state
    state = ENGINE.apply_timeout(state).state
    result = ENGINE.public_view(state)["results"][0]
    assert result["camps"] == {seat: [camp] for seat, camp in CAMPS.items()}
    assert result["ballots"]["Ash"] == "abstained"


def test_write_answers_stay_secret_across_matches_until_the_game_ends():
    state = _state_with_secrets()
    state = play(state, "Cedar", "vote").state
    state = ENGINE.apply_timeout(state).state
    assert state["match"] == 2
    public = ENGINE.public_view(state)
    assert "hides this" not in str(public)
    state["match"] = 3
    state = play(give_turn(state, "Ash"), "Ash", "vote").state
    state = ENGINE.apply_timeout(state).state
    assert state["phase"] == "over"
    answers = ENGINE.public_view(state)["performed"][0]["answers"]
    assert [a["text"] for a in answers] == [f"{seat} hides this" for seat in state["seats"]]
    assert ENGINE.secret_paths(state) == {seat: [] for seat in state["seats"]} | {"": [("rng",)]}


def test_views_obey_the_contract_in_every_phase():
    state = _state_with_secrets()
    sealed = play(play(state, "Cedar", "challenge").state, "Dogwood", "answer sealed words").state
    voting = play(play(state, "Cedar", "vote").state, "Elm", "ballot Ash").state
    for each in (state, sealed, voting):
        check_views(ENGINE, each)
        check_no_leaks(ENGINE, each)
    assert "sealed words" in ENGINE.render_text(ENGINE.private_view(sealed, "Dogwood"))
    assert "sealed words" not in str(ENGINE.private_view(sealed, "Elm"))
    assert "Your sealed ballot: Ash" in ENGINE.render_text(ENGINE.private_view(voting, "Elm"))
    assert "Ash" not in ENGINE.public_view(voting)["vote"]["voted"]


def test_text_views_fit_72_columns_even_with_long_answers():
    state = set_camps(give_turn(game(deck=[WRITE]), "Ash"), CAMPS)
    state = play(state, "Ash", "challenge").state
    long = "word " * 60 + "x" * 100
    state = answer_all(state, {seat: long for seat in state["seats"]}).state
    state["players"]["Ash"] = "A very long player name that goes on and on"
    for view in [ENGINE.public_view(state), ENGINE.private_view(state, "Ash")]:
        assert max(len(line) for line in ENGINE.render_text(view).splitlines()) <= 72


def test_past_challenges_keep_the_spork_and_foon_instructions_for_the_vote():
    """Every camp's instruction is read aloud when a challenge is drawn; voters judge the answers
    against them, so each past challenge of the match shows them, in every view and drawing."""
    state = set_camps(give_turn(game(deck=[WRITE, ACT]), "Ash"), CAMPS)
    state = draw_this(state, "Ash", "w-one")
    state = answer_all(state, {seat: f"{seat}'s cat" for seat in state["seats"]}).state
    assert state["phase"] == "turn" and state["current"] is None, "the challenge is over"
    views = [ENGINE.public_view(state), *(ENGINE.private_view(state, seat) for seat in state["seats"])]
    for view in views:
        past = view["performed"][0]
        assert (past["spork"], past["foon"]) == ("Write a cat.", "Write a dog.")
        text = ENGINE.render_text(view)
        assert "Sporks: Write a cat." in text and "Foons: Write a dog." in text
        html = ENGINE.render_html(view)
        assert "Write a cat." in html and "Write a dog." in html
