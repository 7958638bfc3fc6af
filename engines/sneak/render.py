"""Fixed-width text of a view (public or private) for email, at most 72 columns."""

from __future__ import annotations

import textwrap
from typing import Any

from engines.sneak.model import head_count

WIDTH = 72
STATUS = {"hidden": "(hidden)", "no answer": "(no answer)"}
TAGS = {"yours": " [yours, secret]", "known": " [known to you]", "public": ""}


def _wrap(text: str, first: str = "", rest: str | None = None) -> list[str]:
    lines = textwrap.wrap(
        text,
        width=WIDTH,
        initial_indent=first,
        subsequent_indent=first if rest is None else rest,
        break_on_hyphens=False,
    )
    return lines or [first.rstrip()]


def _short(text: str, size: int) -> str:
    return text if len(text) <= size else text[: size - 1] + "~"


def _table(view: dict[str, Any]) -> list[str]:
    to_act = set(view["to_act"])
    lines = [f"  {'Seat':<8} {'Player':<24} {'Counters':>8} {'Points':>7}"]
    for seat in view["seats"]:
        mark = "*" if seat in to_act else " "
        name = _short(view["players"][seat], 24)
        lines.append(f"{mark} {seat:<8} {name:<24} {view['counters'][seat]:>8} {view['scores'][seat]:>7}")
    marks = "* still to act; " if to_act else ""
    lines.append(f"  ({marks}Points: this game's total so far, the highest wins)")
    return lines


def _challenge(view: dict[str, Any]) -> list[str]:
    current = view["challenge"]
    if current is None:
        return []
    lines = [""]
    lines += _wrap(
        f"Challenge '{current['id']}' ({current['kind'].capitalize()}: {current['title']}), drawn by {current['by']}:"
    )
    lines += _instructions(current, "  ", "    ")
    for effect in current["effects"]:
        lines += _wrap(effect, "  - ", "    ")
    lines += _wrap("Answered: " + (", ".join(current["answered"]) or "nobody yet"), "  ", "    ")
    if view.get("instruction"):
        lines += _wrap(f"Your instruction: {view['instruction']}", "  ", "    ")
    if view.get("sealed") and view["phase_key"] == "answer":
        lines += _wrap(f"Your sealed answer: {view['sealed']}", "  ", "    ")
    return lines


def _instructions(challenge: dict[str, Any], first: str, rest: str) -> list[str]:
    """What each camp was told to do (the Sneak's own line only where the card has one)."""
    lines: list[str] = []
    for label, key in (("Sporks", "spork"), ("Foons", "foon"), ("The Sneak", "sneak")):
        if challenge.get(key):
            lines += _wrap(f"{label}: {challenge[key]}", first, rest)
    return lines


def _performed(view: dict[str, Any]) -> list[str]:
    records = [r for r in view["performed"] if r["match"] == view["match"]]
    if not records:
        return []
    lines = ["", f"Challenges of match {view['match']}:"]
    for record in records:
        lines += _wrap(
            f"R{record['round']} {record['by']} drew '{record['id']}' "
            f"({record['kind'].capitalize()}: {record['title']})",
            "  ",
            "    ",
        )
        lines += _instructions(record, "    ", "      ")
        for answer in record["answers"]:
            if answer["text"] is None:
                said = STATUS.get(answer["status"], "(no answer)")
            elif record["shows"]:
                said = f"showed the '{answer['text']}' card"
            else:
                said = answer["text"] + TAGS.get(answer["status"], "")
            lines += _wrap(f"{answer['seat']}: {said}", "    ", "      ")
    return lines


def _purchases(view: dict[str, Any]) -> list[str]:
    bought = [p for p in view["purchases"] if p["match"] == view["match"]]
    if not bought:
        return []
    lines = ["", "Looks bought this match:"]
    for p in bought:
        how = "for everyone, 1 counter" if p["public"] else "privately, 2 counters"
        lines += _wrap(f"{p['buyer']} bought {p['owner']}'s '{p['challenge']}' card ({how})", "  ", "    ")
    return lines


def _results(view: dict[str, Any]) -> list[str]:
    lines = []
    for result in view["results"]:
        called = f"vote called by {result['caller']}" if result["caller"] else "forced vote"
        lines += ["", f"Match {result['match']}: {result['sneak']} was the Sneak ({called})"]
        lines.append(f"  {'Seat':<8} {'Camp':<24} {'Ballot':<16} {'Points':>6}")
        for seat, camps in result["camps"].items():
            camp = _short("/".join(camps), 24)
            ballot = _short(result["ballots"][seat], 16)
            lines.append(f"  {seat:<8} {camp:<24} {ballot:<16} {result['points'][seat]:>+6d}")
    return lines


def render_text(view: dict[str, Any]) -> str:
    lines = _wrap(f"SNEAK - {view['phase']}")
    if "seat" in view:
        lines += _wrap(f"You are {view['seat']} ({view['player']}).")
        if view["camp"] is not None:
            history = view["camp_history"]
            was = f" (this match: {' -> '.join(history)})" if len(history) > 1 else ""
            lines += _wrap(f"Your camp: {view['camp']}{was}.")
    camps = view["camps"]
    if view["phase_key"] != "over":
        larger = f"; {camps['larger']}s are the larger camp" if camps["larger"] else ""
        lines += _wrap(
            f"Camps: {head_count(camps)}{larger}. "
            f"Match {view['match']} of {view['matches']}, round {view['round']} of {view['rounds']}."
        )
    lines += ["", *_table(view)]
    lines += _challenge(view)
    if view["vote"] is not None:
        vote = view["vote"]
        head = "Forced vote" if vote["forced"] else f"Vote called by {vote['caller']}"
        lines += ["", *_wrap(f"{head}; voted so far: {', '.join(vote['voted']) or 'nobody'}.")]
        if view.get("sealed"):
            lines += _wrap(f"Your sealed ballot: {view['sealed']}", "  ")
    lines += _performed(view)
    lines += _purchases(view)
    lines += _results(view)
    if view.get("prompt"):
        lines += ["", *_wrap(view["prompt"])]
    return "\n".join(lines) + "\n"
