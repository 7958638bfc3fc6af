"""A view as email-safe HTML: the phase, each power's centres and units, the last results, your orders.

The map itself is a picture (``engines.classical.drawing``); this is the table
beside it, and what an email client that shows no pictures still reads.  Each
unit carries ``data-pick="^A par"``: on the web page a tap on it offers the
orders that start with it.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from engines import render_kit as kit
from engines.classical.drawing.scene import TINT, TOKEN
from engines.classical.render import describe

RESULT_INK = {"fails": "#b00000", "invalid": "#b00000"}


def power_chip(power: str) -> Markup:
    """The power's name on the tint of the provinces it holds: legible as sent and in every dark mode
    (its unit colour, a middle tone, is not against either black or white text)."""
    return kit.chip(power, TINT.get(power, "#dddddd"))


def unit_html(unit: str) -> Markup:
    """A unit, kept on one line (no-break space), marked for the web page's tap-to-order."""
    return kit.html('<span data-pick="^{}">{}&nbsp;{}</span>', unit, *unit.split(" ", 1))


def order_html(entry: dict[str, Any]) -> Markup:
    """An order of the last phase, its result named in red where it did not succeed."""
    text = Markup("&nbsp;").join(describe(entry).split(" ", 1))
    if entry["result"] == "succeeds":
        return text
    return kit.html('{} <span style="color:{}">({})</span>', text, RESULT_INK[entry["result"]], entry["result"])


def powers_html(view: dict[str, Any]) -> Markup:
    board = view["board"]
    rows = []
    for power in view["seats"]:
        units = board["units"].get(power, [])
        centres = board["centres"].get(power, [])
        who = kit.html('{}<br><span style="color:{}">{}</span>', power_chip(power), kit.MUTED, view["players"][power])
        if not units and not centres:
            rows.append([who, "eliminated", ""])
            continue
        you = " (you)" if power == view.get("seat") else ""
        waiting = " (to order)" if power in view["to_act"] else ""
        rows.append(
            [
                kit.html("{}{}{}", who, you, waiting),
                kit.html("<strong>{}</strong> {}", len(centres), " ".join(centres)),
                Markup(", ").join(unit_html(unit) for unit in units) or "none",
            ]
        )
    return kit.grid(["Power", "Centres", "Units"], rows, caption="Centres and units")


def dislodged_html(view: dict[str, Any]) -> Markup:
    entries = [(power, e) for power, items in view["board"]["dislodged"].items() for e in items]
    if not entries:
        return Markup("")
    rows = [[power_chip(power), unit_html(e["unit"]), ", ".join(e["retreats"]) or "nowhere"] for power, e in entries]
    return kit.grid(["Power", "Dislodged", "May retreat to"], rows, caption="Dislodged units")


def last_html(view: dict[str, Any]) -> Markup:
    board = view["board"]
    if not board["last_orders"]:
        return Markup("")
    by_power: dict[str, list[Markup]] = {}
    for entry in board["last_orders"]:
        by_power.setdefault(entry["power"], []).append(order_html(entry))
    rows = [[power_chip(power), Markup(", ").join(orders)] for power, orders in by_power.items()]
    return kit.grid(["Power", "Orders"], rows, caption=f"Last phase: {board['last_phase']}", size="0.95em")


def yours_html(view: dict[str, Any]) -> Markup:
    you = view.get("you")
    if not you or view.get("result"):
        return Markup("")
    parts = []
    if you["orders"]:
        parts.append(kit.line("Your sealed orders", ", ".join(you["orders"])))
    if you["unordered"]:
        parts.append(kit.line("Still to order", Markup(", ").join(unit_html(u) for u in you["unordered"])))
    if view.get("prompt"):
        parts.append(kit.para(view["prompt"]))
    return kit.panel(Markup("").join(parts), accent=TOKEN.get(view["seat"], kit.LINE)) if parts else Markup("")


def render(view: dict[str, Any]) -> str:
    top = [kit.heading(view["phase"])]
    if view.get("result"):
        top.append(kit.para(view["result"]["summary"], bold=True))
    elif view["to_act"]:
        top.append(kit.para("Waiting for: " + ", ".join(view["to_act"]) + ".", muted=True))
    top.append(kit.para(f"The game ends with 18 supply centres or after Fall {view['last_year']}.", muted=True))
    return kit.document(
        *top,
        yours_html(view),
        powers_html(view),
        dislodged_html(view),
        last_html(view),
        label=f"Classical: {view['phase']}",
    )
