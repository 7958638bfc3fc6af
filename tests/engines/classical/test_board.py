"""The standard board as data: provinces, centres, homes, and who may move where."""

from __future__ import annotations

from collections import Counter

from engines.classical.board import (
    ARMY,
    CENTRES,
    FLEET,
    HOMES,
    NEIGHBOURS,
    POWERS,
    PROVINCES,
    SEAS_AT,
    START_UNITS,
    distances_from,
    fleet_coasts_reachable,
    fleet_locations,
    province_of,
)
from engines.classical.routes import needed_fleets, reachable_by_convoy


def test_seventy_five_provinces_thirty_four_centres_twenty_two_homes():
    assert len(PROVINCES) == 75
    assert Counter(p.kind for p in PROVINCES.values()) == {"coast": 42, "sea": 19, "land": 14}
    assert len(CENTRES) == 34
    assert sum(len(h) for h in HOMES.values()) == 22
    assert {len(HOMES[p]) for p in POWERS if p != "Russia"} == {3} and len(HOMES["Russia"]) == 4
    assert all(PROVINCES[c].home == p for p, homes in HOMES.items() for c in homes)
    assert all(PROVINCES[p].kind != "sea" for p in CENTRES)
    assert "swi" not in PROVINCES


def test_the_start_puts_a_unit_in_each_home_centre():
    for power, units in START_UNITS.items():
        assert sorted(province_of(u.split(" ")[1]) for u in units) == sorted(HOMES[power])
    assert "F stp/sc" in START_UNITS["Russia"]


def test_adjacency_is_symmetric_and_by_terrain():
    for origin, targets in ARMY.items():
        assert PROVINCES[origin].kind != "sea"
        for target in targets:
            assert origin in ARMY[target] and PROVINCES[target].kind != "sea"
    for origin, targets in FLEET.items():
        assert PROVINCES[province_of(origin)].kind != "land"
        for target in targets:
            assert origin in FLEET[target], (origin, target)
    # every province can be reached by something
    assert all(NEIGHBOURS[p] for p in PROVINCES)


def test_split_coasts():
    assert fleet_locations("spa") == ("spa/nc", "spa/sc")
    assert fleet_locations("stp") == ("stp/nc", "stp/sc")
    assert fleet_locations("bul") == ("bul/ec", "bul/sc")
    assert "spa" not in FLEET and "stp" not in FLEET and "bul" not in FLEET
    assert FLEET["spa/nc"] == {"gas", "mao", "por"}
    assert FLEET["spa/sc"] == {"lyo", "mao", "mar", "por", "wes"}
    assert FLEET["stp/nc"] == {"bar", "nwy"} and FLEET["stp/sc"] == {"bot", "fin", "lvn"}
    assert FLEET["bul/ec"] == {"bla", "con", "rum"} and FLEET["bul/sc"] == {"aeg", "con", "gre"}
    assert fleet_coasts_reachable("mao", "spa") == ["spa/nc", "spa/sc"]
    assert fleet_coasts_reachable("gas", "spa") == ["spa/nc"]
    assert fleet_coasts_reachable("con", "bul") == ["bul/ec", "bul/sc"]
    assert fleet_coasts_reachable("bla", "bul") == ["bul/ec"]
    assert fleet_coasts_reachable("bot", "stp") == ["stp/sc"]
    # armies ignore coasts
    assert {"gas", "mar", "por"} == ARMY["spa"] and {"fin", "lvn", "mos", "nwy"} == ARMY["stp"]


def test_provinces_a_fleet_sails_through():
    # Kiel, Denmark, Sweden and Constantinople join two seas without being split
    assert {"bal", "hel"} <= FLEET["kie"] and {"bal", "hel", "nth", "ska"} <= FLEET["den"]
    assert {"bal", "bot", "ska"} <= FLEET["swe"] and {"aeg", "bla"} <= FLEET["con"]
    assert SEAS_AT["kie"] == {"bal", "hel"} and SEAS_AT["con"] == {"aeg", "bla"}


def test_tricky_borders():
    assert "ven" not in FLEET["rom"] and "ven" in ARMY["rom"]  # DATC 6.A.9
    assert "smy" not in FLEET["ank"] and "smy" in FLEET["con"]
    assert "lvp" not in FLEET["edi"] and "edi" in FLEET["cly"]
    assert "nwy" not in FLEET["fin"] and "stp/nc" in FLEET["nwy"]
    assert "swi" not in ARMY["mar"] and "mun" not in ARMY["ven"]
    assert "nap" not in ARMY["ven"] and "tus" in ARMY["ven"]


def test_convoy_routes_and_the_fleets_they_need():
    fleets = frozenset({"nth", "eng", "iri", "mao"})
    assert {"bel", "hol", "bre", "wal", "naf"} <= reachable_by_convoy(fleets, "lon")
    needed = needed_fleets(fleets, "lon")
    assert needed["bel"] == {"nth", "eng"}
    assert needed["naf"] == {"eng", "mao"}  # London, Channel, Mid-Atlantic: the Irish Sea is never needed
    assert "iri" not in needed["wal"]  # the Channel alone reaches Wales
    assert reachable_by_convoy(fleets, "par") == frozenset()


def test_distances_for_civil_disorder_cross_land_and_sea():
    assert distances_from("gre")["nap"] == 2  # over the Ionian Sea
    assert distances_from("pie")["nap"] == 3
    assert distances_from("ska")["stp"] == 2
