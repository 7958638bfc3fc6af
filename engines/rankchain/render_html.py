"""Rank Chain drawn in email-safe HTML: the 4 x 8 grid, pawns, turned cards, your hand.

Works from a view only: a face-down card is drawn as a green back with no value,
and only a private view (which holds the seat's own hand) draws a hand.  Each
cell carries ``data-pick`` (its name, and ``stay`` under the seat's own pawn):
on the web page, a click on it offers the orders it can start.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from engines import render_kit as kit
from engines.rankchain.cards import COLUMNS, RANK_NAMES, WILDS, X, card_name
from engines.rankchain.render import PAWN_COLOURS

BACK = "#2e5e3a"


def card_fill(card: str) -> str:
    return {"X": "#f3c1c1", "blank": "#ffffff"}.get(card, "#fbf3d5" if card in WILDS else "#fffdf6")


def card_chip(card: str) -> Markup:
    return kit.chip(card_name(card), card_fill(card), title=card_name(card))


def short_chip(card: str) -> Markup:
    """A card by its rank alone (the legend names them), for the narrow players' table."""
    return kit.chip(card, card_fill(card), title=card_name(card))


def pawn(seat: str) -> Markup:
    return kit.chip(seat[:1], PAWN_COLOURS.get(seat, "#555555"), title=f"{seat}'s pawn", round_=True)


def cell_html(cell: dict[str, Any], chained: bool, seat: str | None = None) -> Markup:
    face, card = cell["face"], cell["card"]
    border = "3px solid #d4a017" if chained else "1px solid #555555"
    if face == "down":
        fill, label, title = BACK, "?", f"{cell['cell']}: face down"
    elif face == "empty":
        fill, label, title = "#f4f1e8", "·", f"{cell['cell']}: empty"
        border = "1px dashed #8a8a8a"
    else:
        fill, label, title = card_fill(card), ("" if card == "blank" else card), f"{cell['cell']}: {card_name(card)}"
    colour = "#b00000" if card == X else kit.ink_on(fill)
    under = pawn(cell["pawn"]) if cell["pawn"] else Markup("&nbsp;")
    pick = f"{cell['cell']}|stay" if seat and cell["pawn"] == seat else cell["cell"]  # your own pawn: "stay"
    return kit.html(
        '<td title="{}" data-pick="{}" style="padding:2px;text-align:center;vertical-align:top">'
        '<div style="border:{};border-radius:4px;background-color:{};color:{};font-weight:bold;font-size:18px;'
        'line-height:30px">{}</div><div style="font-size:12px;line-height:20px">{}</div></td>',
        title,
        pick,
        border,
        fill,
        colour,
        label or Markup("&nbsp;"),  # a blank card keeps its height without min-height (Outlook drops it)
        under,
    )


def grid_html(view: dict[str, Any]) -> Markup:
    chains = {cell for chain in (view["result"] or {}).get("chains", []) for cell in chain}
    head = Markup("").join(
        kit.html(  # equal columns without table-layout (which Outlook ignores)
            '<th scope="col" width="12%" style="width:12%;font-size:12px;color:{};font-weight:normal">{}</th>',
            kit.MUTED,
            c + 1,
        )
        for c in range(COLUMNS)
    )
    rows = []
    for row in view["board"]:
        cells = Markup("").join(cell_html(cell, cell["cell"] in chains, view.get("seat")) for cell in row)
        rows.append(
            kit.html(
                '<tr><th scope="row" style="font-size:12px;padding-right:2px">{}</th>{}</tr>', row[0]["cell"][0], cells
            )
        )
    return kit.html(
        '<table aria-label="The grid" width="100%" cellpadding="0" cellspacing="0" '
        'style="width:100%;border-collapse:collapse;margin:6px 0">'
        '<colgroup><col style="width:18px">{}</colgroup><thead><tr><td></td>{}</tr></thead><tbody>{}</tbody></table>',
        Markup("").join(Markup("<col>") for _ in range(COLUMNS)),
        head,
        Markup("").join(rows),
    )


def seats_html(view: dict[str, Any]) -> Markup:
    rows = []
    for seat in view["seats"]:
        mark = " (to play)" if seat in view["to_act"] else ""
        rows.append(
            [
                kit.html(
                    '{} {}{}<br><span style="color:{}">{}<br>pawn {}</span>',
                    *(pawn(seat), seat, mark, kit.MUTED, view["players"].get(seat, ""), view["pawns"][seat] or "off"),
                ),
                view["hand_sizes"][seat],
                kit.chips((short_chip(card) for card in view.get("known", {}).get(seat, [])), "–"),
            ]
        )
    return kit.grid(["Seat, player, pawn", "Cards", "Taken face up"], rows, caption="Players")


def hand_html(view: dict[str, Any]) -> Markup:
    if "seat" not in view:
        return Markup("")
    rows = [kit.line(f"Your hand ({view['seat']})", kit.chips((card_chip(c) for c in view["hand"]), "no cards"))]
    if view["holds_x"]:
        rows.append(kit.para("You hold an X card: you cannot win until you place it on an empty cell."))
    return kit.panel(Markup("").join(rows), accent="#0b5cad", background="#eef5ff")


def render(view: dict[str, Any]) -> str:
    title = "Rank Chain" + (" (BSA variant)" if view["variant"] == "bsa" else "")
    facts = (
        f"Turn {view['turn']}, round {view['round']} · deck {view['deck']} cards · quiet turns "
        f"{view['quiet_turns']} of {view['quiet_limit']} · a draw after round {view['max_rounds']}"
    )
    legend = "Ranks: " + ", ".join(f"{k} {v}" for k, v in RANK_NAMES.items()) + "; B, S, A wild; X bad; ? face down."
    blocks = [
        kit.para(f"{title} · {view['phase']}", bold=True),
        hand_html(view),
        grid_html(view),
        kit.para(legend, muted=True),
        kit.para(facts, muted=True),
        seats_html(view),
    ]
    if view["recent"]:
        blocks += [kit.heading("Recent turns"), kit.bullets(view["recent"])]
    result = view["result"]
    if result is not None:
        chains = [" – ".join(chain) for chain in result["chains"]]
        blocks.append(
            kit.panel(kit.html("{}{}", kit.para(result["summary"], bold=True), kit.bullets(chains)), accent="#1d6b2a")
        )
    return kit.document(*blocks, label="Rank Chain board")
