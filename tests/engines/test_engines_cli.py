"""``pbem engines`` says which games exist and how their variants are named."""

from __future__ import annotations

import json

from click.testing import CliRunner

from engines import registry
from pbem.cli import main


def test_every_engine_is_listed_and_combinable_variants_say_so():
    rows = json.loads(CliRunner().invoke(main, ["engines", "--json"]).output)
    assert [row["name"] for row in rows] == sorted(registry())
    combining = {row["name"] for row in rows if row["variants_combine"]}
    assert combining == {"sprawl"}
    text = CliRunner().invoke(main, ["engines"]).output
    [sprawl_line] = [line for line in text.splitlines() if line.startswith("sprawl")]
    assert "overload" in sprawl_line and "combine with +" in sprawl_line
    assert "combine" not in next(line for line in text.splitlines() if line.startswith("kidsprout"))


def test_a_game_of_exactly_two_is_listed_as_two_players(tmp_path):
    from tests.engines.scaffolded import installed

    with installed(tmp_path, "twoonly", kind="board") as engine:
        text = CliRunner().invoke(main, ["engines"]).output
        assert engine.players_text() == "2 players" and engine.players_text("-") == "2 players"
    [line] = [line for line in text.splitlines() if line.startswith("twoonly")]
    assert "(2 players)" in line and "2-2" not in line
    [rankchain] = [line for line in text.splitlines() if line.startswith("rankchain")]
    assert "(2-6 players)" in rankchain


def test_engine_new_board_writes_a_grid_game(tmp_path):
    result = CliRunner().invoke(main, ["engine", "new", "gridtest", "--board", "--dir", str(tmp_path / "g")])
    assert result.exit_code == 0, result.output
    rules = (tmp_path / "g" / "gridtest" / "rules.py").read_text()
    assert "def place(" in rules and "one_at_a_time = True" in (tmp_path / "g" / "gridtest" / "engine.py").read_text()
    assert sorted(p.name for p in (tmp_path / "g" / "gridtest" / "golden").iterdir()) == [
        "gridtest-misere-2p.json",
        "gridtest-standard-2p.json",
    ]


def test_engine_golden_after_a_rules_change_says_what_to_run(tmp_path):
    """No traceback: the file whose log no longer replays is named, with --fresh; --fresh records it."""
    import json

    from tests.engines.scaffolded import installed

    with installed(tmp_path, "goldencli") as engine:
        path = engine.home() / "golden" / "goldencli-standard-2p.json"
        kept = json.loads(path.read_text())
        kept["log"][0]["text"] = "bid 99"  # an order the rules refuse
        path.write_text(json.dumps(kept))
        result = CliRunner().invoke(main, ["engine", "golden", "goldencli"])
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        assert "kept " in result.output and "goldencli-standard-2p.json" in result.output
        assert "log entry 0" in result.output and "is refused now" in result.output
        assert "pbem engine golden goldencli --fresh" in result.output
        fresh = CliRunner().invoke(main, ["engine", "golden", "goldencli", "--fresh"])
        assert fresh.exit_code == 0, fresh.output
        assert json.loads(path.read_text())["log"][0]["text"] != "bid 99"
