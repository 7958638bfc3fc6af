"""A tiny bot that plays pbem seats over the JSON API, with nothing but the standard library.

    python examples/http_bot.py https://pbem.example.org/play/SECRET [more seat links...] [--seed N]

Give it the private link of each seat it plays (from the seat's email or page).
It reads each seat's JSON, sends a random legal order whenever a seat may act,
and otherwise waits for news with a long poll (``?wait=30`` and
``If-None-Match``: the server answers ``304`` until something changes).  It
stops when the game is over.  See docs/api.md for the fields it reads.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

API_VERSION = 1
WAIT = 30
OVER = ("finished", "cancelled")


@dataclass
class Seat:
    link: str
    etag: str = ""
    data: dict = field(default_factory=dict)

    @property
    def json_url(self) -> str:
        return self.link.rstrip("/") + ".json"


def fetch(seat: Seat, wait: int = 0) -> bool:
    """Read the seat's JSON (``wait``: hold up to that many seconds while nothing changes); True if it changed."""
    url = seat.json_url + (f"?wait={wait}" if wait else "")
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if seat.etag:
        request.add_header("If-None-Match", seat.etag)
    try:
        with urllib.request.urlopen(request, timeout=wait + 30) as response:
            seat.data = json.load(response)
            seat.etag = response.headers.get("ETag", "")
            return True
    except urllib.error.HTTPError as error:
        if error.code == 304:  # nothing new
            time.sleep(float(error.headers.get("Retry-After") or 0))  # the server asked us to slow down
            return False
        raise


def choose(data: dict, rng: random.Random, serial: int) -> str | None:
    """A random legal order: one sent as it is, or one that takes words of our own."""
    plain = data["legal_orders"]
    words = f"words of mine number {serial} {rng.randrange(10**6)}"
    worded = [f"{item['order']} {words} {item.get('after', '')}".strip() for item in data["text_orders"]]
    choices = plain + worded
    return rng.choice(choices) if choices else None


def send(seat: Seat, line: str) -> dict:
    body = json.dumps({"orders": line}).encode()
    request = urllib.request.Request(
        seat.json_url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def play(links: list[str], seed: int = 0, log=print) -> dict:
    """Play every seat until the game is over; the game's last JSON."""
    rng = random.Random(seed)
    seats = [Seat(link) for link in links]
    for seat in seats:
        fetch(seat)
        if seat.data.get("api_version") != API_VERSION:
            raise SystemExit(f"{seat.link}: this bot speaks API version {API_VERSION}")
    serial = 0
    while seats[0].data["game"]["status"] not in OVER:
        acted = False
        for seat in seats:
            if not seat.data["to_act"]:  # asked to act now (a sealed order already sent is not asked again)
                continue
            line = choose(seat.data, rng, serial)
            if line is None:
                continue
            serial += 1
            answer = send(seat, line)
            verdict = answer["verdicts"][0] if answer["verdicts"] else {"ok": False, "message": "no verdict"}
            log(f"{seat.data['seat']}: {line} -> {'ok' if verdict['ok'] else 'refused: ' + verdict['message']}")
            fetch(seat)
            acted = True
        if not acted:  # nothing to do: wait for news on one seat (any move changes every seat's JSON)
            fetch(seats[0], wait=WAIT)
        for seat in seats:
            fetch(seat)
    game = seats[0].data["game"]
    log(f"game over: {game['status']}")
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("links", nargs="+", help="each seat's private link (/play/...)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    play(args.links, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
