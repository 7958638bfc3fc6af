"""A throwaway Dovecot IMAP server on loopback, for the mailbox reader's tests
and the one-mailbox benchmark.  It never touches a system-wide Dovecot: its
own configuration, runtime folder, log and maildir live in a fresh folder.

Run as root, Dovecot refuses to serve mail as uid 0 and to run its login
process as root, so mail is kept as ``nobody`` and the login process runs as
Debian's ``dovenull``; the folder is made traversable for them.  Run as
another user, every Dovecot process simply runs as that user.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from imapclient import IMAPClient

from tests.support.services import free_port, required

USER, PASSWORD = "games", "s3cret pass"


def available() -> bool:
    return shutil.which("dovecot") is not None


def need() -> None:
    """Skip without Dovecot locally; in CI (``PBEM_REQUIRE_SERVICES=1``) fail instead."""
    if available():
        return
    if required():
        pytest.fail("dovecot is required (PBEM_REQUIRE_SERVICES=1): apt-get install dovecot-imapd (see .ci/run)")
    pytest.skip("dovecot-imapd is not installed (see .ci/run)")


def _config(root: Path, port: int, *, idle: bool) -> str:
    if os.geteuid() == 0:
        mail_user, mail_group, internal, login = "nobody", "nogroup", "dovecot", "dovenull"
    else:
        import grp
        import pwd

        mail_user = internal = login = pwd.getpwuid(os.geteuid()).pw_name
        mail_group = grp.getgrgid(os.getegid()).gr_name
    capability = "" if idle else "imap_capability = IMAP4rev1 LITERAL+ UIDPLUS\n"
    return f"""\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
instance_name = pbem-test-{port}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:{root}/mail/%u
default_internal_user = {internal}
default_internal_group = {internal if os.geteuid() == 0 else mail_group}
default_login_user = {login}
{capability}service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user} gid={mail_group} home={root}/home/%u
}}
"""


class Dovecot:
    """``with Dovecot() as server:``; ``server.url`` is a ``PBEM_IMAP_URL``; ``kill()``/``start()`` restart it."""

    def __init__(self, *, idle: bool = True) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        for name in ("run", "state", "mail"):
            (self.root / name).mkdir()
        (self.root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}::::::\n")
        self.config = self.root / "dovecot.conf"
        self.config.write_text(_config(self.root, self.port, idle=idle))
        self.root.chmod(0o755)
        (self.root / "run").chmod(0o755)
        if os.geteuid() == 0:
            shutil.chown(self.root / "mail", "nobody", "nogroup")

    @property
    def url(self) -> str:
        return f"imap://{USER}:{PASSWORD.replace(' ', '%20')}@127.0.0.1:{self.port}/INBOX"

    def start(self, timeout: float = 20.0) -> None:
        self.process = subprocess.Popen(
            ["dovecot", "-F", "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: kill() takes every child with it
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    if sock.recv(64).startswith(b"* OK"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"dovecot did not start; its log:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL the master and every child (open sessions drop at once), as a crashed server."""
        if self.process and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self._wait_port_free()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._wait_port_free()

    def _wait_port_free(self, timeout: float = 10.0) -> None:
        """Children of a killed master linger a moment; a restart must find the port free."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
            except OSError:
                return
            time.sleep(0.05)

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def client(self) -> IMAPClient:
        client = IMAPClient("127.0.0.1", port=self.port, ssl=False, timeout=30)
        client.login(USER, PASSWORD)
        client.select_folder("INBOX")
        return client

    def append(self, raw: bytes) -> None:
        """Deliver one message into the mailbox, as a provider's MTA would."""
        client = IMAPClient("127.0.0.1", port=self.port, ssl=False, timeout=30)
        try:
            client.login(USER, PASSWORD)
            client.append("INBOX", raw)
        finally:
            client.logout()

    def left(self) -> int:
        """Messages still in the mailbox and not flagged deleted."""
        client = self.client()
        try:
            return len(client.search("UNDELETED"))
        finally:
            client.logout()

    def __enter__(self) -> Dovecot:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
