"""Sprawl drawn in email-safe HTML: every square a table cell, pieces by colour, size and pointing.

Each square carries ``data-pick`` (its name): on the web page, a click on it
offers the orders that name that square.

The web page shows the SVG drawing (engines/sprawl/svg.py); this is the same
board for email, where SVG is not shown.  It reads only the view: the only
private parts are the seat's own coup cards and its sealed reply.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from engines import render_kit as kit
from engines.sprawl.model import FILL, LETTERS
from engines.sprawl.text import option_lines, spore_squares

ARROW = {"north": "↑", "east": "→", "south": "↓", "west": "←"}


def _letter(seat: str) -> str:
    return LETTERS.get(seat, seat[:1])


def spore_marks(seats: list[str], viewer: str | None) -> Markup:
    """The letters of the seats that could spore to a vacant square, each in its colour; yours first, bold."""
    ordered = sorted(seats, key=lambda seat: seat != viewer)
    return Markup("").join(
        kit.html(
            '<span style="display:inline-block;min-width:9px;margin:0 1px;padding:0 1px;border-radius:3px;'
            'background:{};color:{};font-size:10px;font-weight:{}">{}</span>',
            FILL.get(seat, "#777777"),
            kit.ink_on(FILL.get(seat, "#777777")),
            "bold" if seat == viewer else "normal",
            _letter(seat).lower(),
        )
        for seat in ordered
    )


def square_html(square: str, cell: dict[str, Any] | None, spores: list[str], viewer: str | None = None) -> Markup:
    style = "padding:0;text-align:center;vertical-align:middle;border:1px solid #999999;height:38px;font-size:12px;"
    if cell is None:
        title = square + (f": {', '.join(spores)} could spore here" if spores else "")
        mark = spore_marks(spores, viewer) if spores else Markup("")
        return kit.html(
            '<td title="{}" data-pick="{}" style="{}background:#f3f0e6">{}</td>', title, square, style, mark
        )
    if cell["kind"] == "branch":
        fill = FILL.get(cell["owner"], "#777777")
        label = kit.html("{}<br>{}{}", ARROW[cell["points"]], _letter(cell["owner"]), cell["size"])
        title = f"{square}: {cell['owner']} branch, size {cell['size']}, pointing {cell['points']}"
        return kit.html(
            '<td title="{}" data-pick="{}" style="{}background:{};color:{};font-weight:bold;line-height:1.1">{}</td>',
            title,
            square,
            style,
            fill,
            kit.ink_on(fill),
            label,
        )
    top = FILL.get(cell["controller"], "#777777")
    owners = "".join(_letter(owner) for owner, _ in cell["pieces"])
    sizes = "".join(str(size) for _, size in cell["pieces"])
    ring = "".join(f"{FILL.get(owner, '#777777')}" for owner, _ in cell["pieces"][:1])
    dead = " ✕" if cell["neutralised"] else ""
    title = (
        f"{square}: tower "
        + ", ".join(f"{owner} {size}" for owner, size in cell["pieces"])
        + (" (neutralised)" if cell["neutralised"] else "")
    )
    label = kit.html(
        '<span style="background-color:#ffffff;color:#111111;border:1px solid #111111">&nbsp;{}&nbsp;<br>'
        "&nbsp;{}{}&nbsp;</span>",
        owners,
        sizes,
        dead,
    )
    return kit.html(
        '<td title="{}" data-pick="{}" '
        'style="{}background:{};border:3px solid {};font-weight:bold;line-height:1.1">{}</td>',
        title,
        square,
        style,
        top,
        ring,
        label,
    )


def board_html(view: dict[str, Any]) -> Markup:
    board = view["board"]
    width, height = board["width"], board["height"]
    spores = spore_squares(view)
    small = "font-size:11px;color:#555555;font-weight:normal;text-align:center"
    share = f"{100 // width}%"  # equal columns without table-layout (which Outlook ignores)
    head = Markup("").join(
        kit.html('<th scope="col" width="{}" style="{};width:{}">{}</th>', share, small, share, chr(97 + x))
        for x in range(width)
    )
    rows = []
    for y in range(height - 1, -1, -1):
        cells = Markup("").join(
            square_html(
                f"{chr(97 + x)}{y + 1}",
                board["cells"].get(f"{chr(97 + x)}{y + 1}"),
                spores.get(f"{chr(97 + x)}{y + 1}", []),
                view.get("seat"),
            )
            for x in range(width)
        )
        rows.append(kit.html('<tr><th scope="row" style="{}">{}</th>{}</tr>', small, y + 1, cells))
    return kit.html(
        '<table aria-label="The board" width="100%" cellpadding="0" cellspacing="0" '
        'style="width:100%;border-collapse:collapse;margin:6px 0">'
        '<colgroup><col style="width:16px">{}</colgroup><thead><tr><td></td>{}</tr></thead><tbody>{}</tbody></table>',
        Markup("").join(Markup("<col>") for _ in range(width)),
        head,
        Markup("").join(rows),
    )


def seats_html(view: dict[str, Any]) -> Markup:
    cells = view["board"]["cells"].values()
    coup = view.get("coup")
    rows = []
    for seat in view["seats"]:
        stash = view["stashes"][seat]
        towers = sum(1 for c in cells if c["kind"] == "tower" and c["controller"] == seat and not c["neutralised"])
        mark = " (to act)" if seat in view["to_act"] else ""
        you = " (you)" if seat == view.get("seat") else ""
        row = [
            kit.html("{} {}{}{}", kit.chip(_letter(seat), FILL.get(seat, "#777777")), seat, you, mark),
            view["players"][seat],
            f"{stash['1']}·{stash['2']}·{stash['3']} ({stash['pips']} pips)",
            towers,
        ]
        if coup:
            row.append(coup["cards_held"][seat])
        rows.append(row)
    header = ["Seat", "Player", "Stash (sizes 1·2·3)", "Towers"] + (["Cards"] if coup else [])
    return kit.grid(header, rows, caption="Players", size="0.95em")


def private_html(view: dict[str, Any]) -> Markup:
    seat = view.get("seat")
    if not seat:
        return Markup("")
    rows = [kit.para(kit.html("You are {} {}.", kit.chip(_letter(seat), FILL.get(seat, "#777777")), seat))]
    if view.get("cards"):
        rows.append(kit.line("Your cards", " ".join(view["cards"])))
    if view.get("your_reply"):
        rows.append(kit.line("Your sealed reply", f"{view['your_reply']} (you may change it)"))
    options = option_lines(view.get("options", {}))
    if options:
        rows.append(kit.para(" ".join(line.strip() for line in options), muted=True))
    return kit.panel(Markup("").join(rows), accent="#0b5cad", background="#eef5ff")


def result_html(result: dict[str, Any]) -> Markup:
    rows = []
    for place, group in enumerate(result["ranking"], 1):
        for seat in group:
            cards = result["card_points"][seat]
            rows.append([place, seat, result["scores"][seat], cards or ""])
    return kit.grid(["Place", "Seat", "Score", "Cards"], rows, caption="Result (lowest score wins)")


def render(view: dict[str, Any]) -> str:
    blocks = [kit.para(f"Sprawl · {view['phase']}", bold=True)]
    if view["variant"] != "standard":
        blocks.append(kit.para("Variants: " + view["variant"].replace("+", ", "), muted=True))
    blocks += [private_html(view), board_html(view)]
    blocks.append(
        kit.para(
            "Towers: owners' letters bottom to top, then piece sizes; ✕ neutralised. "
            "Branches: arrow, owner's letter and size. Small letters on a vacant square: "
            "the players who could spore to it now (yours in bold).",
            muted=True,
        )
    )
    blocks.append(seats_html(view))
    coup = view.get("coup")
    if coup:
        blocks.append(kit.para(f"Counting coup: {coup['deck']} cards left in the deck.", muted=True))
    if view["last"]:
        blocks += [kit.heading("Last moves"), kit.bullets(view["last"])]
    if view.get("result"):
        blocks.append(result_html(view["result"]))
    return kit.document(*blocks, label="Sprawl board")
