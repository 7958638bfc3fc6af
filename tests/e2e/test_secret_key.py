"""No server starts with a short secret key or an example's placeholder: ``pbem serve``, ``pbem web``,
the Celery worker and ``pbem smtpd`` each stop at once, naming the problem and its fix; the key
generated into the instance folder (``PBEM_SECRET_KEY`` unset) is always long enough."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pbem.config import SECRET_FILE
from pbem.migrations import upgrade
from pbem.services.ops.secrets import MIN_SECRET_LENGTH, PLACEHOLDERS, secret_key_problem
from tests.support.services import free_ports

pytestmark = [pytest.mark.timeout(300)]


def servers(port: int, smtp_port: int) -> dict[str, list[str]]:
    pbem = [sys.executable, "-m", "pbem.cli"]
    return {
        "pbem serve": [*pbem, "serve", "--port", str(port), "--smtp-port", str(smtp_port)],
        "pbem web": [*pbem, "web", "--port", str(port), "--workers", "1"],
        "pbem smtpd": [*pbem, "smtpd", "--port", str(smtp_port)],
        "the worker": [sys.executable, "-m", "celery", "-A", "worker", "worker", "--pool", "solo"],
    }


def environment(tmp_path, key: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    env.update(PBEM_INSTANCE=str(tmp_path / "instance"), PBEM_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")
    if key is not None:
        env["PBEM_SECRET_KEY"] = key
    return env


@pytest.mark.parametrize("key", [PLACEHOLDERS[0], "x" * (MIN_SECRET_LENGTH - 1)], ids=["placeholder", "short"])
def test_every_server_refuses_to_start(tmp_path, key):
    (tmp_path / "instance").mkdir()
    upgrade(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    port, smtp_port = free_ports(2)
    for name, command in servers(port, smtp_port).items():
        done = subprocess.run(
            command, env=environment(tmp_path, key), capture_output=True, text=True, timeout=120, cwd=tmp_path
        )
        said = done.stdout + done.stderr
        assert done.returncode != 0, f"{name} started with {key!r}: {said}"
        assert "PBEM_SECRET_KEY" in said and "secrets.token_hex(32)" in said, (name, said)


def test_the_generated_key_and_a_real_one_are_fine(tmp_path):
    from pbem.config import load_settings

    settings = load_settings(instance=tmp_path / "instance")
    assert (tmp_path / "instance" / SECRET_FILE).exists() and secret_key_problem(settings.secret_key) is None
    assert secret_key_problem("k" * MIN_SECRET_LENGTH) is None
    assert "placeholder" in secret_key_problem("change-me-too")
