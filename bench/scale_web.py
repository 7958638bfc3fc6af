"""HTTP side of the scale benchmark: a gunicorn server, an admin's cookie, request rates."""

from __future__ import annotations

import http.client
import os
import random
import re
import subprocess
import sys
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from bench import web_status
from bench.common import SECRET
from bench.web_status import free_port, wait_up

ROOT = Path(__file__).resolve().parents[1]
ADMIN, PASSWORD = "bench", "bench-password-1"


def start_gunicorn(env: dict[str, str], cwd: str, workers: int = 2, threads: int = 4) -> tuple[subprocess.Popen, int]:
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--workers", str(workers), "--threads", str(threads),
               "--worker-class", "gthread", "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
               "pbem.app:create_app()"]  # fmt: skip
    server = subprocess.Popen(command, env={**env, "PYTHONPATH": str(ROOT)}, cwd=cwd)
    wait_up(port, 60)
    return server, port


def add_admin(runtime) -> None:
    from werkzeug.security import generate_password_hash

    from pbem.models import AdminUser

    with runtime.db.write() as session:
        session.add(AdminUser(username=ADMIN, password_hash=generate_password_hash(PASSWORD)))


def admin_cookie(port: int) -> str:
    """Log in through the form, as a browser would; the session cookie to send with each request."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/admin/login")
    response = connection.getresponse()
    html = response.read().decode()
    cookie = response.getheader("Set-Cookie", "").split(";")[0]
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    body = urllib.parse.urlencode({"csrf_token": token, "username": ADMIN, "password": PASSWORD})
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
    connection.request("POST", "/admin/login", body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    if response.status not in (302, 303):
        raise SystemExit(f"admin log-in failed: {response.status}")
    return response.getheader("Set-Cookie", cookie).split(";")[0]


def measure(
    port: int, path: Callable[[random.Random], str], seconds: float, clients: int, headers: dict[str, str] | None = None
) -> dict[str, float]:
    """Requests per second over ``seconds`` with ``clients`` keep-alive threads (non-200 answers are failures)."""
    return web_status.measure(port, path, seconds, clients, 10**9, headers)


def web_env(url: str, instance: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    return {**env, "PBEM_INSTANCE": str(instance), "PBEM_DATABASE_URL": url, "PBEM_BROKER_URL": "filesystem://",
            "PBEM_SECRET_KEY": SECRET, "PBEM_MAIL_DOMAIN": "pbem.bench"}  # fmt: skip
