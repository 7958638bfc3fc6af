"""The position interface: ``python -m engines.classical adjudicate``, JSON in and out."""

from __future__ import annotations

import json
import subprocess
import sys

from engines.classical.position import adjudicate_case

PANDIN = {
    "phase": "Spring 1901 Movement",
    "units": {"England": ["F lon", "F wal"], "France": ["A bre", "F eng"], "Germany": ["F nth", "F bel"]},
    "orders": {
        "England": ["F lon S F wal-eng", "F wal-eng"],
        "France": ["A bre-lon", "F eng C A bre-lon"],
        "Germany": ["F nth S F bel-eng", "F bel-eng"],
    },
}


def run(cases, *args: str) -> subprocess.CompletedProcess:
    text = cases if isinstance(cases, str) else json.dumps(cases)
    return subprocess.run(
        [sys.executable, "-m", "engines.classical", *(args or ("adjudicate",))],
        input=text,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_command_answers_each_case_in_order():
    retreat = {
        "phase": "Fall 1901 Retreat",
        "units": {"England": ["F eng"], "Germany": ["A pic"]},
        "dislodged": {"France": [{"unit": "A bre", "by": "eng"}, {"unit": "A par", "by": "pic"}]},
        "standoffs": ["gas"],
        "orders": {"France": ["A bre-pic", "A par-bur"]},
    }
    done = run([PANDIN, retreat])
    assert done.returncode == 0, done.stderr
    first, second = json.loads(done.stdout)
    assert first["results"]["France: F eng C A bre-lon"] == "fails"  # Szykman: the paradox's convoy fails
    assert first["results"]["England: F wal-eng"] == "fails" and first["dislodged"] == {}
    assert first["units"]["France"] == ["A bre", "F eng"]
    assert second["results"] == {"France: A bre-pic": "invalid", "France: A par-bur": "succeeds"}
    assert second["units"] == {"England": ["F eng"], "France": ["A bur"], "Germany": ["A pic"]}


def test_bad_input_gets_a_message_and_the_other_cases_are_still_answered():
    done = run([{"phase": "Summer 1901 Movement"}, PANDIN, {"phase": "Spring 1901 Movement", "units": {"X": []}}])
    assert done.returncode == 1
    answers = json.loads(done.stdout)
    assert "cannot read the phase" in answers[0]["error"]
    assert "results" in answers[1]
    assert "unknown power 'X'" in answers[2]["error"]
    assert run("{not json").returncode == 2 and "not JSON" in run("{not json").stderr
    assert run({"a": 1}).returncode == 2
    assert run([], "frobnicate").returncode == 2


def test_orders_read_as_a_referee_reads_them():
    answer = adjudicate_case(
        {
            "phase": "Spring 1901 Movement",
            "units": {"Germany": ["A mun", "A ber"], "France": ["A bur"]},
            "orders": {
                "France": ["A mun-ruh", "A bur-mun", "A bur-mar", "A bur hold"],
                "Germany": ["A ber S A mun", "A mun hold", "A mun hold"],
            },
        }
    )
    results = answer["results"]
    assert results["France: A mun-ruh"] == "invalid"  # not France's unit: ignored
    assert results["France: A bur-mun"] == "invalid" and results["France: A bur-mar"] == "invalid"
    assert results["France: A bur hold"] == "succeeds"  # the last order for the unit counts
    assert results["Germany: A mun hold"] == "invalid" and results["Germany: A mun hold #2"] == "succeeds"


def test_supply_centres_given_are_the_whole_ownership():
    answer = adjudicate_case(
        {
            "phase": "Fall 1901 Adjustment",
            "units": {"Austria": ["A vie"], "Italy": ["A rom", "A ven"]},
            "supply_centers": {"Austria": ["vie", "bud", "tri"], "Italy": ["rom"]},
            "orders": {"Austria": ["build F tri", "build A bud"]},
        }
    )
    assert answer["units"] == {"Austria": ["A bud", "F tri", "A vie"], "Italy": ["A rom"]}
    assert answer["removed"] == {"Italy": ["A ven"]}
