"""The example bot (examples/http_bot.py) plays a whole game over HTTP against the real app.

Two bots share the table, one for the first seat and one for the others, so each
waits for the other with long polls (``?wait=30`` and ``If-None-Match``) between turns.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path

from pbem.services.play.verify import verify
from tests.support.live import live_site
from tests.support.play import game_row, start
from tests.web.conftest import web_tokens

ROOT = Path(__file__).resolve().parents[2]


def load_bot():
    spec = importlib.util.spec_from_file_location("http_bot", ROOT / "examples" / "http_bot.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_example_bot_finishes_a_game(tmp_path):
    bot = load_bot()

    def prepare(runtime) -> dict:
        game_id = start(runtime, "sprawl", ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"])
        return {"game_id": game_id, "tokens": web_tokens(runtime, game_id)}

    with live_site(tmp_path, "bot-test-secret", "bot-admin-pass", prepare) as site:
        links = [f"{site.url}/play/{token}" for _, token in sorted(site.tokens.items())]
        said: list[str] = []
        results: dict[str, dict] = {}
        errors: list[BaseException] = []

        def run(name: str, seats: list[str], seed: int) -> None:
            try:
                results[name] = bot.play(seats, seed=seed, log=said.append)
            except BaseException as error:  # reported below, not lost in the thread
                errors.append(error)

        threads = [
            threading.Thread(target=run, args=("first", links[:1], 1)),
            threading.Thread(target=run, args=("others", links[1:], 2)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert not errors, errors
        assert results["first"]["status"] == results["others"]["status"] == "finished"
        game = game_row(site.runtime, site.game_id)
        assert game.status == "finished" and game.result["winners"]
        assert site.runtime.in_reading(verify, site.game_id).ok
        sent = [line for line in said if " -> " in line]
        assert all(line.endswith("-> ok") for line in sent), sent
        assert {line.split(":")[0] for line in sent} == set(site.tokens)  # every seat played its part
        assert any(line == "game over: finished" for line in said)
