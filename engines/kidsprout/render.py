"""Fixed-width text for emails (at most 72 columns) and the order help.

Rendering works from a view only, never from the state, so it can show no more
than the view allows.
"""

from __future__ import annotations

import textwrap
from typing import Any

WIDTH = 72
RULE = "-" * WIDTH

HELP = """\
KidSprout Jumboree orders (one per line, case does not matter):

  play <coin>          seal one Sprout for this Activity; coin is null
                       (or 0), ace (or a, 1), 2, 3, 4 or 5. Until the
                       last coin arrives you may send another play to
                       replace it.
  excuse <1|2> <+|-> <seat> <excuse text>
                       play your Excuse tile 1 or 2 on a Sprout, adding
                       or subtracting its value, with a verbal excuse
                       never used before in this game.
  pass                 no more excuses from you (unless someone else
                       plays one: that clears every pass).
  gone                 Leaping Buck only: "going... going..." opens a
                       short last call; then the excuses close.
  choose <seat>        Leaping Buck only, when Sprouts tie for oldest:
                       who leads the Activity.

A seat is named by suit (Suns, Moons, Crowns, Arms), troop (Sun Beam,
Night Owl, Royal Fir, Blue Arrowhead), player name, or a prefix of any
of them that fits only one seat.

Examples:
  play ace
  excuse 2 - moons Their Sprout was helping the cook all morning
  excuse 1 + night owl He told me he loves knots
  pass
  choose crowns

Missed deadlines: your lowest coin is played; you pass on excuses; a
tie the Buck did not break is broken at random.
"""


def cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def wrap(text: str, indent: str = "", first: str = "") -> list[str]:
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first or indent,
        subsequent_indent=indent,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def sprout_cell(view: dict[str, Any], seat: str) -> str:
    sprout = view["table"]["sprouts"].get(seat)
    if view["phase"] == "over":
        return ""
    if sprout is not None:
        coin = sprout["coin"]
        base = {"null": 0, "ace": 1}.get(coin)
        value = base if base is not None else int(coin)
        return coin if value == sprout["age"] else f"{coin}>{sprout['age']}"
    if view["phase"] == "coins":
        return "sealed" if view["submitted"].get(seat) else "-"
    return ""


def hand_text(view: dict[str, Any], seat: str) -> str:
    """A seat's coins when hands are open (or the hand is the reader's), else only how many."""
    coins = view["hands"].get(seat)
    if coins is None and seat == view.get("seat"):
        coins = view["you"]["hand"]
    if coins is None:
        return f"{view['hand_sizes'][seat]} coins"
    return " ".join(coins) or "-"


def seat_table(view: dict[str, Any]) -> list[str]:
    head = f"{'Seat':<6} {'Player':<10} {'Hand':<16} {'Ex':<3} {'Sprout':<9} {'Pawn':<10} Points"
    lines = [head, RULE]
    for seat in view["seats"]:
        marks = ("*" if seat == view["buck"] else "") + ("!" if seat in view["to_act"] else "")
        today = view["schedules"][seat]["today"]
        pending = today and view["phase"] != "over"
        points = f"{view['scores'][seat]}" + (f"+{today}" if pending else "")
        excuses = " ".join(str(v) for v in view["excuses_left"][seat]) or "-"
        lines.append(
            f"{seat:<6} {cut(view['players'][seat], 10):<10} {hand_text(view, seat):<16} "
            f"{excuses:<3} {sprout_cell(view, seat):<9} {view['schedules'][seat]['pawn']:<10} "
            f"{points}{marks}"
        )
    return lines + legend(view)


def legend(view: dict[str, Any]) -> list[str]:
    """What the marks and columns mean, for a newcomer (each line under 72 columns)."""
    marks = "* Leaping Buck (breaks ties)" + ("   ! still to act" if view["to_act"] else "")
    return [
        f"{marks}   Ex: Excuse tiles left",
        "Sprout: the coin played; 3>5 is a 3 that excuses made a 5. The",
        "  oldest Sprout leads the Activity, and leading costs Stress Points.",
        "Points: Stress Points so far (+today's, added at the day's end).",
        "  Fewest Stress Points wins.",
    ]


def schedule_lines(view: dict[str, Any]) -> list[str]:
    lines = [f"Schedules (day {view['day']}):"]
    for seat in view["seats"]:
        stacks = [
            f"{entry['at']} {entry['hours']}h x {entry['sum']}"
            + (" x2 Overnight" if entry["overnight"] else "")
            + f" = {entry['points']}"
            for entry in view["schedules"][seat]["led"]
        ]
        lines += wrap("; ".join(stacks) or "nothing led yet", indent=" " * 9, first=f"  {seat:<6} ")
    return lines


def excuse_lines(title: str, excuses: list[dict[str, Any]]) -> list[str]:
    lines = [title]
    for item in excuses:
        said = f'{item["by"]} {item["sign"]}{item["value"]} on {item["target"]}: "{item["text"]}"'
        lines += wrap(said, indent="    ", first="  ")
    return lines


def last_lines(view: dict[str, Any]) -> list[str]:
    """The Activity just led, recapped while the next one's coins are sealed and once the game is over."""
    last = view["last"]
    if not last or view["phase"] not in ("coins", "over"):
        return []
    sprouts = ", ".join(f"{seat} {item['coin']}" for seat, item in last["sprouts"].items())
    night = ", Overnight" if last["overnight"] else ""
    return [
        RULE,
        *wrap(
            f"Last: day {last['day']}, Activity {last['round']}, {last['activity']}: {last['leader']} "
            f"led ({sprouts}; {last['points']} points{night})."
        ),
    ]


def reader_lines(view: dict[str, Any]) -> list[str]:
    """The closing lines: the reader's seat and prompt, or, in an onlooker's copy, who is still to act."""
    you = view.get("you")
    if not you:
        return wrap(f"Waiting for: {', '.join(view['to_act'])}") if view["to_act"] else []
    lines = [RULE, *wrap(f"You are {view['seat']} ({you['troop']}), {you['player']}.")]
    if you["sealed"] and you["replaced"]:
        lines.append(f"You have replaced your sealed Sprout {you['replaced']} time(s).")
    if view.get("prompt"):
        lines += wrap(view["prompt"])
    return lines


def render(view: dict[str, Any]) -> str:
    lines = [cut(f"KidSprout Jumboree {view['variant']} - {view['phase_text']}", WIDTH)]
    activity = view["activity"]
    if activity:
        plural = "hour" if activity["hours"] == 1 else "hours"
        lines += wrap(f"Activity: {activity['name']} (roll {activity['roll']}, {activity['hours']} {plural})")
    lines.append(f"Leaping Buck: {view['buck']} ({cut(view['players'][view['buck']], 40)})")
    lines.append(RULE)
    lines += seat_table(view)
    lines.append(RULE)
    lines += schedule_lines(view)
    if view["table"]["excuses"]:
        lines += excuse_lines("Excuses on the table:", view["table"]["excuses"])
    if view["stressed_out"]:
        lines += wrap(f"Stressed out (may not lead this Activity): {', '.join(view['stressed_out'])}")
    if view["tied"]:
        lines.append(f"Tied for oldest: {', '.join(view['tied'])}")
    if view["phase"] == "excuses" and view["passed"]:
        lines.append(f"Passed since the last excuse: {', '.join(view['passed'])}")
    lines += last_lines(view)
    if view["day_scores"]:
        days = "; ".join(
            f"day {i + 1}: " + ", ".join(f"{s} {p}" for s, p in day.items()) for i, day in enumerate(view["day_scores"])
        )
        lines += wrap(f"Stress Points by day: {days}")
    if view.get("result"):
        lines.append(RULE)
        lines += wrap(view["result"]["summary"])
    lines += reader_lines(view)
    return "\n".join(lines) + "\n"
