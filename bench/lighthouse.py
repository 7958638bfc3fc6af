"""The pages people open, as Lighthouse and the wire see them, in one run.

    python -m bench lighthouse             # or: python bench/lighthouse.py [--no-lighthouse] [--json]

Builds a temporary SQLite instance (one game of each engine played a little, an
open game, ``--games`` more games for the lists, which the player whose ``/me``
is measured does not play), serves the real app with
``pbem web`` on a loopback port, and measures:

1. **Lighthouse** (npm ``lighthouse``, Debian's Chromium through ``CHROME_PATH``)
   on the front page, a status page, a player page, ``/me``, a rules page,
   ``/games/new``, ``/me/profile``, a game's invite pages and the admin
   dashboard, with the mobile and the desktop presets, ``--runs`` times each
   (the median run by performance score is kept, as Lighthouse's own advice
   for a noisy machine says).  Aim: mobile performance >= 98,
   accessibility and best practices 100 on every page.
2. **Bytes per page**: each page's body as sent without compression (as before
   compression was on) and with gzip and brotli; and what a repeat view costs
   (the page revalidated with its ETag, the fingerprinted static files not asked for).
3. **Conditional GETs** against the bare ``/healthz`` route in the same run:
   requests per second for an unchanged game's page and JSON and a seat's JSON,
   each sent with its ETag (every answer a ``304``).  Aim: at least half the bare rate.

Lighthouse 12.2.3 is installed with npm on first use into ``bench/out/node``
(``PBEM_LIGHTHOUSE_DIR``); ``--no-lighthouse`` skips part 1.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.web_status import free_port, measure, wait_up  # noqa: E402

LIGHTHOUSE = "lighthouse@12.2.3"
NODE_DIR = Path(os.environ.get("PBEM_LIGHTHOUSE_DIR", ROOT / "bench" / "out" / "node"))
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking"
SECRET = "bench-secret-of-the-pbem-benchmarks-0123"
ADMIN_PASSWORD = "bench-admin-pass"
PLAYERS = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>", "Di <di@example.org>"]
FIVE = [*PLAYERS, "Ed <ed@example.org>"]
#: engine -> (players, random orders played first, seed)
TABLES = {
    "kidsprout": (PLAYERS[:3], 2, 11),
    "rankchain": (PLAYERS[:3], 5, 12),
    "sneak": (FIVE, 1, 2),
    "sprawl": (PLAYERS[:3], 7, 14),
}
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def build(instance: Path, base_url: str, extra_games: int) -> dict[str, Any]:
    """The instance's database: a played game per engine, an open game, more games for the lists, an admin."""
    from sqlalchemy import select
    from werkzeug.security import generate_password_hash

    from engines.rng import Rng
    from pbem.config import load_settings
    from pbem.migrations import upgrade
    from pbem.models import Account, AdminUser, Seat
    from pbem.runtime import make_runtime, set_runtime
    from pbem.services.people import sessions
    from pbem.services.play import games, invites, lobby, new_game
    from tests.support.play import play_one, play_some

    url = f"sqlite:///{instance / 'pbem.sqlite3'}"
    settings = load_settings(
        instance=instance,
        database_url=url,
        broker_url="filesystem://",
        smtp_url=None,
        base_url=base_url,
        secret_key=SECRET,
        mail_domain="pbem.bench",
        server_address="pbem@pbem.bench",
    )
    upgrade(url)
    runtime = make_runtime(settings)
    set_runtime(runtime)
    tables = {}
    for engine, (players, moves, seed) in TABLES.items():
        request = games.NewGame(
            engine=engine, players=players, seed=seed, name=f"{engine} camp", deadline_seconds=172800
        )
        game_id = runtime.in_unit(games.create_game, request)
        play_some(runtime, game_id, seed, moves)
        tables[engine] = game_id
    runtime.in_unit(lobby.create_open_game, games.NewGame(engine="sprawl", players=PLAYERS[:1], open_seats=2, seed=5))
    rng = Rng(1)
    for index in range(extra_games):
        engine = "kidsprout" if index % 2 == 0 else "rankchain"
        request = games.NewGame(engine=engine, players=PLAYERS[1:4], seed=index, deadline_seconds=86400)  # not Ann
        game_id = runtime.in_unit(games.create_game, request)
        for serial in range(index % 4):
            play_one(runtime, game_id, rng, serial)
    with runtime.db.write() as session:
        session.add(AdminUser(username="admin", password_hash=generate_password_hash(ADMIN_PASSWORD)))
    with runtime.db.read() as session:
        ann = session.scalars(select(Account.id).where(Account.email == "ann@example.org")).one()
        tokens = {seat.game_id: seat.web_token for seat in session.scalars(select(Seat).where(Seat.account_id == ann))}
    parsed = new_game.read(invites.parser_values("ann@example.org", {"engine": "rankchain", "seats": "3"}))
    made, code = runtime.in_unit(invites.create, ann, parsed, True)  # Ann's own game, waiting for friends
    session_token = runtime.in_unit(sessions.begin, ann)
    return {
        "url": url,
        "tables": tables,
        "ann": ann,
        "session": session_token,
        "tokens": tokens,
        "games": extra_games + len(tables) + 2,
        "made": made,
        "invite": code,
    }


def player_cookie(session_token: str) -> str:
    """A signed-in player's session cookie (what the emailed sign-in link leaves): the key to a session
    kept on the server."""
    from flask import Flask

    from pbem.web.signin import SESSION_KEY

    app = Flask("bench")
    app.secret_key = SECRET
    return "session=" + app.session_interface.get_signing_serializer(app).dumps({SESSION_KEY: session_token})


def admin_cookie(port: int) -> str:
    """Log in on the admin form, as a person does; the session cookie it sets."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/admin/login")
    response = connection.getresponse()
    page = response.read().decode()
    cookie = response.getheader("Set-Cookie", "").split(";", 1)[0]
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    body = f"csrf_token={csrf}&username=admin&password={ADMIN_PASSWORD}"
    headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    connection.request("POST", "/admin/login", body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    if response.status != 303:
        raise SystemExit(f"admin log-in failed: {response.status}")
    return response.getheader("Set-Cookie", "").split(";", 1)[0]


def get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers=headers or {})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def page_bytes(port: int, path: str, cookie: str = "") -> dict[str, Any]:
    """A page's body without compression, with gzip and with brotli; its static files; a repeat view."""
    base = {"Cookie": cookie} if cookie else {}
    _, _, plain = get(port, path, {**base, "Accept-Encoding": "identity"})
    _, zipped_headers, zipped = get(port, path, {**base, "Accept-Encoding": "gzip"})
    _, headers, packed = get(port, path, {**base, "Accept-Encoding": "br"})
    assets = sorted(set(re.findall(rb'(?:href|src)="(/static/[^"]+)"', plain)))
    asset_plain = asset_packed = 0
    for asset in assets:
        asset_plain += len(get(port, asset.decode(), {"Accept-Encoding": "identity"})[2])
        asset_packed += len(get(port, asset.decode(), {"Accept-Encoding": "br"})[2])
    again = get(port, path, {**base, "Accept-Encoding": "br", "If-None-Match": headers.get("etag", "-")})
    return {
        "path": path,
        "identity": len(plain),
        "gzip": len(zipped) if zipped_headers.get("content-encoding") == "gzip" else None,
        "br": len(packed) if headers.get("content-encoding") == "br" else None,
        "static_identity": asset_plain,
        "static_br": asset_packed,
        "repeat_status": again[0],
        "repeat_body": len(again[2]),
        "etag": bool(headers.get("etag")),
    }


def install_lighthouse() -> Path:
    binary = NODE_DIR / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        NODE_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR), LIGHTHOUSE],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return binary


def lighthouse(binary: Path, url: str, preset: str, cookie: str, out: Path) -> dict[str, Any]:
    """One Lighthouse run; the category scores (0-100) and the failed audits worth reading."""
    command = [
        str(binary),
        url,
        "--quiet",
        "--output=json",
        f"--output-path={out}",
        f"--chrome-flags={CHROME_FLAGS}",
        f"--only-categories={','.join(CATEGORIES)}",
    ]
    if preset == "desktop":
        command.append("--preset=desktop")
    if cookie:
        command.append("--extra-headers=" + json.dumps({"Cookie": cookie}))
    env = dict(os.environ, CHROME_PATH=CHROME)
    for _attempt in range(3):  # a browser that fails to start on a busy machine is tried again
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode == 0:
            break
    else:
        raise SystemExit(f"Lighthouse failed on {url}: {done.stderr[-2000:]}")
    report = json.loads(out.read_text())
    scores = {name: round(100 * (report["categories"][name]["score"] or 0)) for name in CATEGORIES}
    failed = sorted(
        audit_id
        for name in CATEGORIES
        for ref in report["categories"][name]["auditRefs"]
        if ref["weight"] > 0
        and (audit_id := ref["id"])
        and report["audits"][audit_id]["score"] is not None
        and report["audits"][audit_id]["score"] < 0.9
    )
    metrics = report["audits"]
    timing = {
        key: round(metrics[key]["numericValue"]) for key in ("first-contentful-paint", "largest-contentful-paint")
    }
    return {"scores": scores, "failed": failed, "ms": timing}


def rates(port: int, data: dict[str, Any], seconds: float, clients: int) -> dict[str, Any]:
    """Requests per second: /healthz, then an unchanged game's page, JSON and a seat's JSON sent with their ETags."""
    ids = list(range(1, data["games"] + 1))
    tags = {}
    for game_id in ids:
        for path in (f"/games/{game_id}", f"/games/{game_id}.json"):
            tags[path] = get(port, path)[1]["etag"]
    for token in data["tokens"].values():
        tags[f"/play/{token}.json"] = get(port, f"/play/{token}.json")[1]["etag"]
    seats = [path for path in tags if path.startswith("/play/")]

    def conditional(paths: list[str]):
        return lambda pick: (path := pick.choice(paths), {"If-None-Match": tags[path]})

    pages = [f"/games/{i}" for i in ids]
    jsons = [f"/games/{i}.json" for i in ids]
    measure(port, lambda pick: "/healthz", 1.0, clients, 10**6)  # warm-up
    measure(port, conditional(pages), 1.0, clients, 10**6, ok=(304,))
    before = measure(port, lambda pick: "/healthz", seconds, clients, 10**6)
    out = {
        "page_304": measure(port, conditional(pages), seconds, clients, 10**6, ok=(304,)),
        "json_304": measure(port, conditional(jsons), seconds, clients, 10**6, ok=(304,)),
        "seat_json_304": measure(port, conditional(seats), seconds, clients, 10**6, ok=(304,)),
        "page_200": measure(port, lambda pick: pick.choice(pages), seconds, clients, 10**6),
    }
    after = measure(port, lambda pick: "/healthz", seconds, clients, 10**6)
    # the baseline: the bare route before and after the others (the machine's load drifts)
    out["healthz"] = {**after, "rps": round((before["rps"] + after["rps"]) / 2, 1), "before": before["rps"]}
    return out


def serve(instance: Path, url: str, port: int, workers: int, threads: int) -> subprocess.Popen:
    env = dict(
        os.environ,
        PBEM_INSTANCE=str(instance),
        PBEM_DATABASE_URL=url,
        PBEM_BROKER_URL="filesystem://",
        PBEM_SECRET_KEY=SECRET,
        PBEM_BASE_URL=f"http://127.0.0.1:{port}",
        PBEM_MAIL_DOMAIN="pbem.bench",
        PYTHONPATH=str(ROOT),
    )
    env.pop("PBEM_SMTP_URL", None)
    port_args = ["--host", "127.0.0.1", "--port", str(port), "--workers", str(workers), "--threads", str(threads)]
    command = [sys.executable, "-m", "pbem.cli", "web", *port_args]  # as a deployment runs it (access log and all)
    return subprocess.Popen(command, env=env, cwd=instance, stdout=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games besides the four played ones")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--no-lighthouse", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="Lighthouse runs per page and preset (the median is kept)")
    parser.add_argument("--only", nargs="*", help="Lighthouse on these pages only (front, status, player, /me, ...)")
    parser.add_argument("--presets", nargs="*", default=["mobile", "desktop"], choices=["mobile", "desktop"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.no_lighthouse and not (shutil.which("npm") and Path(CHROME).exists()):
        raise SystemExit(f"Lighthouse needs npm and Chromium at {CHROME} (or run with --no-lighthouse)")

    with tempfile.TemporaryDirectory(prefix="pbem-bench-") as tmp:
        instance = Path(tmp) / "instance"
        instance.mkdir()
        port = free_port()
        data = build(instance, f"http://127.0.0.1:{port}", args.games)
        server = serve(instance, data["url"], port, args.workers, args.threads)
        try:
            wait_up(port)
            sprawl = data["tables"]["sprawl"]
            player = f"/play/{data['tokens'][sprawl]}"
            you, admin = player_cookie(data["session"]), admin_cookie(port)
            pages = [
                ("front", "/", ""),
                ("status", f"/games/{sprawl}", ""),
                ("player", player, ""),
                ("/me", "/me", you),
                ("rules", "/rules/kidsprout", ""),
                ("new-game", "/games/new", you),
                ("profile", "/me/profile", you),
                ("share", f"/games/{data['made']}/invite", you),
                ("invite", f"/invite/{data['invite']}", ""),
                ("admin", "/admin/", admin),
            ]
            sizes = {name: page_bytes(port, path, cookie) for name, path, cookie in pages}
            speed = rates(port, data, args.seconds, args.clients)
            scores: dict[str, dict[str, Any]] = {}
            if not args.no_lighthouse:
                binary = install_lighthouse()
                for name, path, cookie in pages:
                    if args.only and name not in args.only:
                        continue
                    for preset in args.presets:
                        runs = [
                            lighthouse(
                                binary,
                                f"http://127.0.0.1:{port}{path}",
                                preset,
                                cookie,
                                Path(tmp) / f"{name.strip('/')}-{preset}-{n}.json",
                            )
                            for n in range(args.runs)
                        ]
                        runs.sort(key=lambda run: run["scores"]["performance"])
                        scores.setdefault(name, {})[preset] = {
                            **runs[len(runs) // 2],
                            "all": [run["scores"]["performance"] for run in runs],
                        }
        finally:
            server.terminate()
            server.wait(timeout=20)
    report(args, sizes, speed, scores)
    return 0


def report(args, sizes: dict[str, Any], speed: dict[str, Any], scores: dict[str, Any]) -> None:
    result = {"sizes": sizes, "rates": speed, "lighthouse": scores}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"pbem web: {args.workers} processes x {args.threads} threads (waitress), {args.clients} client threads")
    print("\nBytes per page (body; static files once, then cached for a year):")
    print(
        f"{'page':8} {'identity':>9} {'gzip':>7} {'br':>7} {'br/id':>6} {'static id':>10} {'static br':>10} "
        f"{'repeat view':>12}"
    )
    for name, row in sizes.items():
        ratio = row["br"] / row["identity"] if row["br"] else 1.0
        repeat = f"{row['repeat_status']}, {row['repeat_body']} B"
        print(
            f"{name:8} {row['identity']:>9} {row['gzip'] or '-':>7} {row['br'] or '-':>7} {ratio:>6.2f} "
            f"{row['static_identity']:>10} {row['static_br']:>10} {repeat:>12}"
        )
    bare = speed["healthz"]["rps"] or 1.0
    print("\nConditional GETs of unchanged data (each sent with its ETag) against the bare route")
    print(
        f"(the bare route's mean rate before and after the others: {speed['healthz']['before']} and "
        f"{speed['healthz']['rps'] * 2 - speed['healthz']['before']:.1f} req/s):"
    )
    for key, label in (
        ("healthz", "/healthz (bare)"),
        ("page_304", "/games/<id> 304"),
        ("json_304", "/games/<id>.json 304"),
        ("seat_json_304", "/play/<token>.json 304"),
        ("page_200", "/games/<id> 200 (no ETag)"),
    ):
        row = speed[key]
        print(f"{label:28} {row['rps']:>8.1f} req/s  ratio {row['rps'] / bare:5.2f}  ({row['failures']} other)")
    if scores:
        print("\nLighthouse 12 (performance / accessibility / best practices / SEO):")
        for name, presets in scores.items():
            line = "   ".join(
                f"{preset} {'/'.join(str(run['scores'][c]) for c in CATEGORIES)}" for preset, run in presets.items()
            )
            failed = sorted({a for run in presets.values() for a in run["failed"]})
            first = next(iter(presets))
            lcp = presets[first]["ms"]["largest-contentful-paint"]
            runs = ",".join(map(str, presets[first]["all"]))
            print(
                f"{name:8} {line}   {first} LCP {lcp} ms, performance of each run {runs}"
                + (f"   below 0.9: {', '.join(failed)}" if failed else "")
            )


if __name__ == "__main__":
    sys.exit(main())
