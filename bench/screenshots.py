"""Every page of the site, as a phone and a desktop show it, light and dark: pictures to look at side by side.

    python -m bench screenshots              # or: python bench/screenshots.py [--out DIR] [--only NAME ...]

Builds a temporary SQLite instance (a game of each engine played a little, a finished
game, an open game in the lobby, a signed-in player's own game waiting on its invite
link, an admin), serves the real app on a loopback port and loads each page in
Debian's Chromium (headless, through Playwright) at 390 and 1280 px wide with
``prefers-color-scheme`` light and dark.  Each page's first screen (390 x 844 or
1280 x 900; ``--full`` for whole pages) is kept as a 256-colour PNG in
``docs/screenshots/site/`` named ``PAGE-WIDTH-SCHEME.png``, and a line per page says
its whole height and whether anything is wider than the screen.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "docs" / "screenshots" / "site"
ADMIN_PASSWORD = "screenshots-admin-pass"
SECRET = "screenshots-secret-of-the-pbem-bench-0123"
PLAYERS = [
    "Ann Example <ann@example.org>",
    "Bob Builder <bob@example.org>",
    "Cy Young <cy@example.org>",
    "Di Prince <di@example.org>",
    "Ed Norton <ed@example.org>",
    "Fay Wray <fay@example.org>",
    "Gus Grissom <gus@example.org>",
]
#: engine -> (players, random orders played first, seed)
TABLES = {
    "kidsprout": (3, 2, 11),
    "rankchain": (3, 5, 12),
    "sneak": (5, 1, 2),
    "sprawl": (3, 7, 14),
    "classical": (7, 0, 1),
}
WIDTHS = (390, 1280)
SCHEMES = ("light", "dark")


def build(runtime) -> dict[str, Any]:
    """The games the pages show; Ann plays in every one and owns the invite-only game."""
    from sqlalchemy import select

    from engines import registry
    from pbem.models import Account, Seat
    from pbem.services.play import games, invites, lobby, new_game
    from tests.support.play import play_some, play_to_end

    installed = registry()
    tables = {}
    for engine, (players, moves, seed) in TABLES.items():
        if engine not in installed:
            continue
        request = games.NewGame(
            engine=engine, players=PLAYERS[:players], seed=seed, name=f"{engine} camp", deadline_seconds=172800
        )
        game_id = runtime.in_unit(games.create_game, request)
        play_some(runtime, game_id, seed, moves)
        tables[engine] = game_id
    finished = runtime.in_unit(
        games.create_game, games.NewGame(engine="sprawl", players=PLAYERS[:3], seed=5, name="Finished sprawl")
    )
    play_to_end(runtime, finished, 5)
    runtime.in_unit(lobby.create_open_game, games.NewGame(engine="sprawl", players=PLAYERS[1:2], open_seats=2, seed=5))
    with runtime.db.read() as session:
        ann = session.scalars(select(Account.id).where(Account.email == "ann@example.org")).one()
        tokens = {seat.game_id: seat.web_token for seat in session.scalars(select(Seat).where(Seat.account_id == ann))}
    parsed = new_game.read(invites.parser_values("ann@example.org", {"engine": "rankchain", "seats": "3"}))
    made, code = runtime.in_unit(invites.create, ann, parsed, True)
    return {"tables": tables, "finished": finished, "ann": ann, "tokens": tokens, "made": made, "invite": code}


def pages(site) -> list[tuple[str, str, str]]:
    """(name, path, who): who is "" (a visitor), "ann" (signed in) or "admin"."""
    listed = [
        ("front", "/", ""),
        ("signin", "/signin", ""),
        ("me", "/me", "ann"),
        ("profile", "/me/profile", "ann"),
        ("new-game", "/games/new", "ann"),
        ("share-invite", f"/games/{site.made}/invite", "ann"),
        ("invite", f"/invite/{site.invite}", ""),
        ("rules", "/rules", ""),
        ("rules-kidsprout", "/rules/kidsprout", ""),
        ("player", "/players/__ann__", ""),
        ("ratings", "/ratings/sprawl", ""),
        ("finished-status", f"/games/{site.finished}", ""),
        ("finished-seat", f"/play/{site.tokens[site.finished]}", ""),
    ]
    for engine, game_id in site.tables.items():
        listed.append((f"{engine}-status", f"/games/{game_id}", ""))
        listed.append((f"{engine}-seat", f"/play/{site.tokens[game_id]}", ""))
    listed += [
        ("admin-login", "/admin/login", ""),
        ("admin", "/admin/", "admin"),
        ("admin-games", "/admin/games", "admin"),
        ("admin-game", f"/admin/games/{site.tables['sprawl']}", "admin"),
        ("admin-new-game", "/admin/games/new", "admin"),
    ]
    return listed


def player_path(site) -> str:
    """Ann's public page, as the finished game's status page links it."""
    import re
    import urllib.request

    html = urllib.request.urlopen(f"{site.url}/games/{site.finished}").read().decode()
    found = re.findall(r'href="(/players/[^"]+)"', html)
    return found[0] if found else "/players/1"


def sign_in_cookie(site) -> dict[str, str]:
    """A signed-in session for Ann, as the emailed sign-in link leaves it."""
    from pbem.services.people import sessions
    from pbem.web.signin import SESSION_KEY

    token = site.runtime.in_unit(sessions.begin, site.ann)
    value = site.app.session_interface.get_signing_serializer(site.app).dumps({SESSION_KEY: token})
    return {"name": "session", "value": value, "url": site.url}


def admin_log_in(page, site) -> None:
    page.goto(f"{site.url}/admin/login")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", ADMIN_PASSWORD)
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_load_state()


def keep_small(path: Path) -> None:
    """A 256-colour PNG: the pages are flat colours and text, and a tenth of the bytes."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    small.save(path, optimize=True)


def shoot_all(site, browser, out: Path, only: set[str], full: bool) -> list[str]:
    """Every page at every width and scheme; a line each (name, status, height, overflow)."""
    lines = []
    chosen = [(name, path, who) for name, path, who in pages(site) if not only or name in only]
    player = player_path(site)
    for width in WIDTHS:
        for scheme in SCHEMES:
            contexts = {}
            for who in ("", "ann", "admin"):
                context = browser.new_context(
                    viewport={"width": width, "height": 844 if width < 500 else 900},
                    color_scheme=scheme,
                    timezone_id="Europe/Paris",
                )
                if who == "ann":
                    context.add_cookies([sign_in_cookie(site)])
                if who == "admin":
                    admin_log_in(context.new_page(), site)
                contexts[who] = context
            for name, path, who in chosen:
                page = contexts[who].new_page()
                response = page.goto(site.url + (player if path == "/players/__ann__" else path))
                page.wait_for_load_state("networkidle")
                overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
                height = page.evaluate("document.documentElement.scrollHeight")
                target = out / f"{name}-{width}-{scheme}.png"
                page.screenshot(path=str(target), full_page=full)
                keep_small(target)
                status = response.status if response else 0
                lines.append(
                    f"{name:18} {width:>5} {scheme:6} {status} height {height:>5} px"
                    + (f"  WIDER THAN THE SCREEN by {overflow} px" if overflow > 0 else "")
                )
                page.close()
            for context in contexts.values():
                context.close()
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where the PNGs go (default docs/screenshots/site)")
    parser.add_argument("--full", action="store_true", help="whole pages, not the first screen (to look, not to keep)")
    parser.add_argument("--only", nargs="*", default=[], help="these pages only (front, me, sprawl-seat, ...)")
    args = parser.parse_args(argv)
    from tests.support.live import headless_chromium, live_site

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request drowns the summary
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as folder,
        live_site(Path(folder), SECRET, ADMIN_PASSWORD, build) as site,
        headless_chromium() as browser,
    ):
        lines = shoot_all(site, browser, args.out, set(args.only), args.full)
    print("\n".join(lines))
    wide = sum("WIDER" in line for line in lines)
    failed = sum(" 200 " not in line for line in lines)
    print(f"{len(lines)} screenshots in {args.out} ({time.perf_counter() - started:.0f} s); "
          f"{wide} wider than the screen, {failed} not answered 200")  # fmt: skip
    return 1 if wide or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
