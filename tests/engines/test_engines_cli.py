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
