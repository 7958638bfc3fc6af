"""KidSprout drawn in email-safe HTML: coins by suit, the table, schedules, points, the Buck.

Works from a view only, so it shows no more than the view allows: another
seat's sealed coin is drawn as "sealed", never by its value.  Your coins, your
excuse tiles and every suit carry ``data-pick`` (``play ace``, ``excuse 2``,
``Suns``): on the web page, a click on one offers the orders it can start.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from markupsafe import Markup

from engines import render_kit as kit

SUIT_FILL = {"Suns": "#f7d97d", "Moons": "#2b4c8c", "Crowns": "#8540a2", "Arms": "#c0392b"}
SEALED_FILL = "#3b3b3b"


def coin(seat: str, name: str, note: str = "") -> Markup:
    return kit.chip(name, SUIT_FILL.get(seat, "#777777"), title=f"{seat} coin {name}{note}", round_=True)


def pick(phrase: str, body: Markup) -> Markup:
    """``body`` marked as the start of the orders that hold ``phrase``."""
    return kit.html('<span data-pick="{}">{}</span>', phrase, body)


def sprout(view: dict[str, Any], seat: str) -> Markup:
    """The seat's Sprout on the table: sealed, revealed (with its age when it differs), or nothing."""
    played = view["table"]["sprouts"].get(seat)
    if played is not None:
        base = {"null": 0, "ace": 1}.get(played["coin"])
        value = base if base is not None else int(played["coin"])
        age = "" if value == played["age"] else kit.html(" <span>now age {} after excuses</span>", played["age"])
        return kit.html("{}{}", coin(seat, played["coin"]), age)
    if view["phase"] == "coins" and view["submitted"].get(seat):
        return kit.chip("sealed", SEALED_FILL, title="a sealed coin", round_=True)
    if view["phase"] == "coins":
        return kit.html('<span style="color:{}">not played yet</span>', kit.MUTED)
    return Markup("")


def schedule(view: dict[str, Any], seat: str) -> Markup:
    stacks = [
        f"{entry['at']} {entry['hours']}h × {entry['sum']}"
        + (" ×2 Overnight" if entry["overnight"] else "")
        + f" = {entry['points']}"
        for entry in view["schedules"][seat]["led"]
    ]
    return kit.html("{}", "; ".join(stacks) or "nothing led yet today")


def seat_block(view: dict[str, Any], seat: str) -> Markup:
    """One seat as a card: who, hand, excuses, Sprout, pawn, points (stacks on a phone)."""
    marks = []
    if seat == view["buck"]:
        marks.append(kit.chip("★ Leaping Buck", "#fff3c4", title="holds the Leaping Buck"))
    if seat in view["to_act"]:
        marks.append(kit.chip("to act", "#ffe0e0"))
    if seat == view.get("seat"):
        marks.append(kit.chip("you", "#dbeaff"))
    today = view["schedules"][seat]["today"]
    points = f"{view['scores'][seat]}" + (f" (+{today} today)" if today and view["phase"] != "over" else "")
    head = kit.html(
        "{} <strong>{}</strong> · {} {}",
        pick(seat, kit.chip(seat, SUIT_FILL.get(seat, "#777777"))),
        view["troops"].get(seat, ""),
        view["players"][seat],
        Markup("").join(marks),
    )
    own = seat == view.get("seat")
    coins = view["hands"].get(seat, view["you"]["hand"] if own else None)
    if coins is None:
        hand = kit.html("{} coins, hidden", view["hand_sizes"][seat])
    else:
        hand = kit.chips((pick(f"play {n}", coin(seat, n)) if own else coin(seat, n) for n in coins), "no coins")
    tiles = [pick(f"excuse {v}", kit.html("{}", v)) if own else kit.html("{}", v) for v in view["excuses_left"][seat]]
    excuses = Markup(" ").join(tiles) or "none"
    rows = [
        head,
        kit.line("Hand", hand),
        kit.line("Sprout", sprout(view, seat)) if view["phase"] != "over" else Markup(""),
        kit.line("Excuse tiles", excuses),
        kit.line("Pawn", view["schedules"][seat]["pawn"]),
        kit.line("Schedule", schedule(view, seat)),
        kit.line("Stress Points (fewest wins)", points),
    ]
    return kit.panel(Markup("").join(rows), accent=SUIT_FILL.get(seat, kit.LINE), background="#ffffff")


def you_block(view: dict[str, Any]) -> Markup:
    you = view.get("you")
    if not you:
        return Markup("")
    seat = view["seat"]
    rows = [
        kit.para(kit.html("You are <strong>{}</strong> ({}), {}.", seat, you["troop"], you["player"])),
        kit.line(
            "Your coins", kit.chips((pick(f"play {name}", coin(seat, name)) for name in you["hand"]), "none left")
        ),
    ]
    if you["sealed"]:
        again = f" (replaced {you['replaced']} time(s))" if you["replaced"] else ""
        rows.append(kit.line("Your sealed Sprout", kit.html("{}{}", coin(seat, you["sealed"]), again)))
    return kit.panel(Markup("").join(rows), accent="#0b5cad", background="#eef5ff")


def table_block(view: dict[str, Any]) -> Markup:
    out = []
    activity = view["activity"]
    if activity:
        hours = "hour" if activity["hours"] == 1 else "hours"
        out.append(
            kit.para(
                kit.html(
                    "<strong>Activity:</strong> {} (roll {}, {} {})",
                    activity["name"],
                    activity["roll"],
                    activity["hours"],
                    hours,
                )
            )
        )
    out.append(
        kit.para(
            "The oldest Sprout leads the Activity, and leading costs Stress Points: "
            "the fewest Stress Points after three days wins.",
            muted=True,
        )
    )
    if view["table"]["excuses"]:
        said = [
            kit.html("{} {}{} on {}: “{}”", item["by"], item["sign"], item["value"], item["target"], item["text"])
            for item in view["table"]["excuses"]
        ]
        out += [kit.heading("Excuses on the table"), kit.bullets(said)]
    facts = []
    if view["stressed_out"]:
        facts.append(f"Stressed out (may not lead this Activity): {', '.join(view['stressed_out'])}")
    if view["tied"]:
        facts.append(f"Tied for oldest: {', '.join(view['tied'])}")
    if view["phase"] == "excuses" and view["passed"]:
        facts.append(f"Passed since the last excuse: {', '.join(view['passed'])}")
    out.append(kit.bullets(facts))
    return Markup("").join(out)


def last_block(view: dict[str, Any]) -> Markup:
    out = []
    last = view["last"]
    if last and view["phase"] in ("coins", "over"):
        sprouts = kit.chips(coin(seat, item["coin"]) for seat, item in last["sprouts"].items())
        night = ", Overnight" if last["overnight"] else ""
        out.append(kit.heading(f"Last Activity (day {last['day']}, {last['round']}: {last['activity']})"))
        out.append(kit.para(kit.html("{} led with {} — {} points{}.", last["leader"], sprouts, last["points"], night)))
    if view["day_scores"]:
        rows = [
            [f"Day {i + 1}", *(day.get(seat, "") for seat in view["seats"])] for i, day in enumerate(view["day_scores"])
        ]
        out.append(kit.grid(["", *view["seats"]], rows, caption="Stress Points by day"))
    if view.get("result"):
        out.append(kit.panel(kit.para(view["result"]["summary"], bold=True), accent="#1d6b2a"))
    return Markup("").join(out)


#: What only the viewing seat's view holds; everything else is the same for every seat.
PRIVATE = ("seat", "you", "prompt")
#: Public parts drawn for the latest public views (each a game version as the seats see it).
_DRAWN: dict[str, dict[str, Markup]] = {}
_DRAWN_KEPT = 64
_DRAWN_LOCK = threading.Lock()  # a worker's threads draw at once


def _drawn_public(view: dict[str, Any]) -> dict[str, Markup]:
    """The public blocks already drawn for this view's public part (the same dict for every seat).

    A turn's emails show every seat the same table and each seat's card as the others
    see it; only the reader's own card and "you" block differ, so those are drawn for
    each reader and the rest once per public view.
    """
    public = {key: value for key, value in view.items() if key not in PRIVATE}
    key = json.dumps(public, sort_keys=True, default=sorted)
    with _DRAWN_LOCK:
        drawn = _DRAWN.pop(key, None)
        if drawn is None:
            drawn = {}
            while len(_DRAWN) >= _DRAWN_KEPT:
                _DRAWN.pop(next(iter(_DRAWN)))
        _DRAWN[key] = drawn  # the newest last
    return drawn


def render(view: dict[str, Any]) -> str:
    drawn = _drawn_public(view)
    viewer = view.get("seat")

    def public(name: str, draw) -> Markup:
        if name not in drawn:
            drawn[name] = draw()
        return drawn[name]

    return kit.document(
        kit.para(f"KidSprout Jumboree {view['variant']} · {view['phase_text']}", bold=True),
        you_block(view),
        public("/table", lambda: table_block(view)),
        *(
            seat_block(view, seat) if seat == viewer else public(seat, lambda seat=seat: seat_block(view, seat))
            for seat in view["seats"]
        ),
        public("/last", lambda: last_block(view)),
        label="KidSprout table",
    )
