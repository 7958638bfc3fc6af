"""A throwaway PostgreSQL cluster (initdb + pg_ctl on a free port in a temporary folder).

The chaos suite restarts its database; the shared server is never touched.  As
root the cluster runs as the ``postgres`` user (PostgreSQL refuses root).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
from pathlib import Path

from tests.support.services import free_port


def binary(name: str) -> str | None:
    """``initdb``/``pg_ctl`` on the PATH or in Debian's versioned folder."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)
    return candidates[0] if candidates else None


class Cluster:
    def __init__(self, folder: Path):
        self.folder = folder
        self.data = folder / "data"
        self.log = folder / "postgres.log"
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_postgres else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)
        if done.returncode:
            tail = self.log.read_text(errors="replace")[-1500:] if self.log.exists() else ""
            raise RuntimeError(f"{command[0]} {command[-1]} failed: {done.stdout} {done.stderr}\n{tail}")

    def start(self) -> Cluster:
        initdb, pg_ctl = binary("initdb"), binary("pg_ctl")
        assert initdb and pg_ctl, "initdb and pg_ctl are needed for the chaos suite (Debian: postgresql)"
        self.pg_ctl = pg_ctl
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.as_postgres:
            shutil.chown(self.folder, "postgres")
            self.folder.parent.chmod(0o755)  # a folder of its own (tempfile.mkdtemp): the postgres user reaches it
        self._run(initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
        self._ctl("start")
        return self

    def _ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} -c fsync=off -c max_connections=200"
        self._run(self.pg_ctl, "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "-o", options, action,
                  *extra)  # fmt: skip

    def restart(self) -> None:
        """A fast restart: every client connection is cut, as in a real failover or upgrade."""
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        with contextlib.suppress(RuntimeError):
            self._run(self.pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop")
