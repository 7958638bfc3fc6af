"""Sneak drawn in email-safe HTML: your secret role, counters, the challenge, camps as known to you.

Works from a view only: a private view holds the seat's own camp, sealed answer
and the looks it bought; a hidden answer is drawn as "(hidden)", never by value.
Seat names carry ``data-pick``: on the web page, a click on one offers the
orders that name that seat (a look to buy, a ballot).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from engines import render_kit as kit
from engines.sneak.model import head_count
from engines.sneak.render import STATUS, TAGS

CAMP_FILL = {"Spork": "#2663c6", "Foon": "#22813e", "Sneak": "#8e1b1b"}


def camp_chip(camp: str) -> Markup:
    return kit.chip(camp, CAMP_FILL.get(camp, "#777777"))


def counters(count: int) -> Markup:
    dots = "●" * min(count, 12) + ("+" if count > 12 else "")
    return kit.html('{} <span aria-hidden="true" style="color:#8a5300;letter-spacing:1px">{}</span>', count, dots)


def role_html(view: dict[str, Any]) -> Markup:
    if "seat" not in view:
        return Markup("")
    rows = [kit.para(kit.html("You are <strong>{}</strong> ({}).", view["seat"], view["player"]))]
    if view["camp"] is not None:
        history = view["camp_history"]
        was = f" (this match: {' → '.join(history)})" if len(history) > 1 else ""
        rows.append(kit.line("Your secret camp", kit.html("{}{}", camp_chip(view["camp"]), was)))
    if view.get("instruction"):
        rows.append(kit.line("Your instruction", view["instruction"]))
    if view.get("sealed"):
        rows.append(
            kit.line("Your sealed " + ("answer" if view["phase_key"] == "answer" else "ballot"), view["sealed"])
        )
    return kit.panel(Markup("").join(rows), accent="#8e1b1b", background="#fbeeee")


def seats_html(view: dict[str, Any]) -> Markup:
    rows = []
    for seat in view["seats"]:
        mark = " (to act)" if seat in view["to_act"] else ""
        you = " (you)" if seat == view.get("seat") else ""
        rows.append(
            [
                kit.html(
                    '<strong data-pick="{}">{}</strong>{}{}<br><span style="color:{}">{}</span>',
                    *(seat, seat, you, mark, kit.MUTED, view["players"][seat]),
                ),
                counters(view["counters"][seat]),
                view["scores"][seat],
            ]
        )
    return kit.grid(["Seat and player", "Counters", "Points"], rows, caption="Seats")


def challenge_html(view: dict[str, Any]) -> Markup:
    current = view["challenge"]
    if current is None:
        return Markup("")
    rows = [
        kit.para(
            kit.html(
                "<strong>Challenge “{}”</strong> ({}: {}), drawn by {}",
                current["id"],
                current["kind"].capitalize(),
                current["title"],
                current["by"],
            )
        ),
        instructions(current),
    ]
    rows.append(kit.bullets(current["effects"]))
    rows.append(kit.line("Answered", ", ".join(current["answered"]) or "nobody yet"))
    return kit.panel(Markup("").join(rows), accent="#8a5300", background="#fff8e1")


def instructions(challenge: dict[str, Any]) -> Markup:
    """What each camp was told to do (the Sneak's own line only where the card has one)."""
    told = [("Sporks", "spork"), ("Foons", "foon"), ("The Sneak", "sneak")]
    return Markup("").join(kit.line(label, challenge[key]) for label, key in told if challenge.get(key))


def performed_html(view: dict[str, Any]) -> Markup:
    records = [r for r in view["performed"] if r["match"] == view["match"]]
    if not records:
        return Markup("")
    items = []
    for record in records:
        answers = []
        for answer in record["answers"]:
            if answer["text"] is None:
                said = STATUS.get(answer["status"], "(no answer)")
            elif record["shows"]:
                said = f"showed the “{answer['text']}” card"
            else:
                said = answer["text"] + TAGS.get(answer["status"], "")
            answers.append(f"{answer['seat']}: {said}")
        items.append(
            kit.html(
                "Round {}: {} drew “{}” ({}: {}){}{}",
                record["round"],
                record["by"],
                record["id"],
                record["kind"].capitalize(),
                record["title"],
                instructions(record),
                kit.bullets(answers),
            )
        )
    return kit.html("{}{}", kit.heading(f"Challenges of match {view['match']}"), kit.bullets(items))


def results_html(view: dict[str, Any]) -> Markup:
    out = []
    bought = [p for p in view["purchases"] if p["match"] == view["match"]]
    if bought:
        lines = [
            f"{p['buyer']} bought {p['owner']}'s “{p['challenge']}” card "
            + ("(for everyone, 1 counter)" if p["public"] else "(privately, 2 counters)")
            for p in bought
        ]
        out += [kit.heading("Looks bought this match"), kit.bullets(lines)]
    for result in view["results"]:
        called = f"vote called by {result['caller']}" if result["caller"] else "forced vote"
        rows = [
            [
                seat,
                Markup(" ").join(camp_chip(c) for c in camps),
                result["ballots"][seat],
                f"{result['points'][seat]:+d}",
            ]
            for seat, camps in result["camps"].items()
        ]
        out.append(
            kit.grid(
                ["Seat", "Camp", "Ballot", "Points"],
                rows,
                caption=f"Match {result['match']}: {result['sneak']} was the Sneak ({called})",
            )
        )
    return Markup("").join(out)


def render(view: dict[str, Any]) -> str:
    camps = view["camps"]
    blocks = [kit.para(f"Sneak · {view['phase']}", bold=True), role_html(view)]
    if view["phase_key"] != "over":
        larger = f"; {camps['larger']}s are the larger camp" if camps["larger"] else ""
        blocks.append(
            kit.para(
                f"Camps: {head_count(camps)}{larger}. Match {view['match']} of {view['matches']}, "
                f"round {view['round']} of {view['rounds']}.",
                muted=True,
            )
        )
    blocks += [challenge_html(view)]
    if view["vote"] is not None:
        vote = view["vote"]
        head = "Forced vote" if vote["forced"] else f"Vote called by {vote['caller']}"
        blocks.append(kit.panel(kit.para(f"{head}; voted so far: {', '.join(vote['voted']) or 'nobody'}.")))
    blocks += [seats_html(view), performed_html(view), results_html(view)]
    return kit.document(*blocks, label="Sneak table")
