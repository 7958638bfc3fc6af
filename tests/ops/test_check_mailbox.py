"""``pbem check``'s mailbox line against a real IMAP server: Dovecot on loopback, in a folder of
its own (its configuration, mail and log in a temporary folder; the machine's Dovecot untouched)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from tests.support.services import free_port, required

pytestmark = pytest.mark.mta

#: Dovecot will not keep mail as root; the mail of the test user belongs to ``nobody``.
MAIL_USER = "nobody"


def need_dovecot() -> None:
    if shutil.which("dovecot"):
        return
    message = "Dovecot is not installed (Debian package dovecot-imapd)"
    if required():
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def imap_port():
    """A Dovecot with two users, ``player`` / ``pa ss`` and ``slash`` / ``pa/ss#1``, whose mailboxes
    have INBOX and ``Games``."""
    need_dovecot()
    folder = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    folder.chmod(0o755)
    port = free_port()
    owner = pwd.getpwnam(MAIL_USER)
    (folder / "users").write_text("player:{PLAIN}pa ss\nslash:{PLAIN}pa/ss#1\n")
    for user in ("player", "slash"):
        mail = folder / "mail" / user
        for box in ("cur", "new", "tmp", ".Games/cur", ".Games/new", ".Games/tmp"):
            (mail / box).mkdir(parents=True)
        for path in [*mail.rglob("*"), mail]:
            os.chown(path, owner.pw_uid, owner.pw_gid)
    os.chown(folder / "mail", owner.pw_uid, owner.pw_gid)
    (folder / "dovecot.conf").write_text(f"""\
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = {owner.pw_uid}
last_valid_uid = {owner.pw_uid}
mail_location = maildir:{folder}/mail/%u
passdb {{
  driver = passwd-file
  args = {folder}/users
}}
userdb {{
  driver = static
  args = uid={owner.pw_uid} gid={owner.pw_gid} home={folder}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0
  }}
  unix_listener stats-writer {{
    mode = 0600
  }}
}}
""")
    config = str(folder / "dovecot.conf")
    # Dovecot daemonises: its output goes to a file, or the pipes would keep this call waiting.
    with open(folder / "start.log", "wb") as log:
        subprocess.run(["dovecot", "-c", config], check=True, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    logs = [(folder / name).read_text(errors="replace") for name in ("start.log", "dovecot.log")]
                    raise AssertionError("\n".join(logs)) from None
                time.sleep(0.1)
        yield port
    finally:
        subprocess.run(["doveadm", "-c", config, "stop"], stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


def mailbox_line(tmp_path, url: str) -> tuple[int, str]:
    env = {
        "PBEM_INSTANCE": str(tmp_path),
        "PBEM_SECRET_KEY": "a-real-secret-of-thirty-two-characters",
        "PBEM_IMAP_URL": url,
    }
    result = CliRunner().invoke(main, ["check"], env=env)
    [line] = [line for line in result.stdout.splitlines() if line.startswith("mailbox: ")]
    return result.exit_code, line


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("player:pa%20ss@127.0.0.1:{port}/INBOX", "ok (imap://127.0.0.1:{port}: logged in, folder 'INBOX' opened)"),
        ("player:pa%20ss@127.0.0.1:{port}/Games", "ok (imap://127.0.0.1:{port}: logged in, folder 'Games' opened)"),
        ("player:pa%20ss@127.0.0.1:{port}/Missing", "PROBLEM: imap://127.0.0.1:{port} has no folder 'Missing'"),
        ("player:wrong@127.0.0.1:{port}/INBOX", "PROBLEM: imap://127.0.0.1:{port} refused the login of 'player'"),
    ],
    ids=["inbox", "folder", "no such folder", "wrong password"],
)
def test_mailbox_login_and_folder(tmp_path, imap_port, path, words):
    code, line = mailbox_line(tmp_path, "imap://" + path.format(port=imap_port))
    assert line.startswith("mailbox: " + words.format(port=imap_port)), line
    if words.startswith("PROBLEM"):
        assert "Fix: " in line and "pa ss" not in line and "wrong" not in line
    # The database file does not exist yet (never created by a check): the exit status is 1 either way.
    assert code == 1


def test_an_unencoded_slash_in_the_password_is_named_and_the_fix_logs_in(tmp_path, imap_port):
    _code, line = mailbox_line(tmp_path, f"imap://slash:pa/ss#1@127.0.0.1:{imap_port}/INBOX")
    assert line.startswith("mailbox: PROBLEM: PBEM_IMAP_URL: the password holds characters"), line
    assert (
        f"Fix: in the password of PBEM_IMAP_URL, write / as %2F, # as %23: imap://slash:***@127.0.0.1:{imap_port}/INBOX"
        in line
    )
    assert "Port could not be cast" not in line and "pa/ss" not in line
    _, line = mailbox_line(tmp_path, f"imap://slash:pa%2Fss%231@127.0.0.1:{imap_port}/INBOX")
    assert line == f"mailbox: ok (imap://127.0.0.1:{imap_port}: logged in, folder 'INBOX' opened)"
