"""A throwaway Postfix instance on loopback, configured from ``deploy/postfix``.

Its own configuration, queue and log live in one temporary folder, its SMTP
server listens on a free loopback port, and ``postfix -c DIR`` starts and stops
it: the machine's own Postfix (port 25, /etc/postfix/main.cf) is never touched.
The shipped snippets are used as they are, with only the domain, the map paths,
the pipe's user and the wrapper's path substituted.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import pytest

from tests.support.services import free_port, required

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "postfix"
DOMAIN = "pbem.test"
#: The shipped snippets name this domain; the test instance serves DOMAIN instead.
EXAMPLE_DOMAIN = "pbem.example.org"
#: Postfix refuses to run a pipe as root or as its own mail owner; production uses ``pbem``.
PIPE_USER = "nobody"
#: The services of Debian's master.cf a mail relay needs (the rest name optional programs).
CORE_SERVICES = {
    "pickup", "cleanup", "qmgr", "tlsmgr", "rewrite", "bounce", "defer", "trace", "verify", "flush",
    "proxymap", "proxywrite", "smtp", "relay", "showq", "error", "retry", "discard", "anvil", "scache",
    "postlog",
}  # fmt: skip


def available() -> bool:
    tools = shutil.which("postfix") and shutil.which("postqueue") and shutil.which("postmap")
    return bool(tools) and Path("/usr/lib/postfix/postfix-pcre.so").exists()


def need_postfix() -> None:
    """Skip (or, in CI, fail) without Postfix and pcre tables (Debian: postfix, postfix-pcre)."""
    if available():
        return
    message = "Postfix is not installed (Debian packages postfix and postfix-pcre)"
    if required():
        pytest.fail(message)
    pytest.skip(message)


def pipe_program(folder: Path, pbem_bin: str) -> tuple[str | None, str]:
    """A ``pbem`` that PIPE_USER can run: ``pbem_bin`` itself, or else a launcher beside it.

    The launcher is for a machine whose Python lives where only root may enter (pyenv
    under /root): it runs the same installed packages with the system's Python of the
    same version and, if the checkout itself is out of reach too, a copy of the
    project's packages.  Returns ``(program, "")`` or ``(None, why not)``.
    """
    if can_run(pbem_bin):
        return pbem_bin, ""
    system_python = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if not system_python.exists():
        return None, f"{PIPE_USER} cannot run {pbem_bin}, and there is no {system_python}"
    paths = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    launcher = folder / "pbem"
    for source in (None, copy_project(folder)):
        launcher.write_text(
            f"#!{system_python}\n"
            "import site, sys\n"
            + "".join(f"site.addsitedir({path!r})\n" for path in paths)
            + (f"sys.path.insert(0, {str(source)!r})\n" if source else "")
            + "from pbem.cli import main\nsys.exit(main())\n"
        )
        launcher.chmod(0o755)
        if can_run(str(launcher)):
            return str(launcher), ""
    return None, f"{PIPE_USER} can run neither {pbem_bin} nor {launcher} (are the virtualenv's packages readable?)"


def copy_project(folder: Path) -> Path:
    """The project's packages, copied where every user may read them."""
    root = Path(__file__).resolve().parents[2]
    target = folder / "src"
    for package in ("pbem", "engines", "worker", "mail_templates"):
        shutil.copytree(root / package, target / package, ignore=shutil.ignore_patterns("__pycache__"))
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def can_run(program: str) -> bool:
    done = subprocess.run(["runuser", "-u", PIPE_USER, "--", program, "--help"], capture_output=True, timeout=60)
    return done.returncode == 0


class Postfix:
    """``with Postfix(PBEM_BIN) as mta:``; ``mta.port`` takes SMTP, ``mta.write_env`` sets what the pipe loads."""

    def __init__(self, pbem_bin: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
        # The pipe runs as PIPE_USER and Postfix's daemons as ``postfix``: both must reach in here.
        self.dir.chmod(0o755)
        self.port = free_port()
        self.env_file = self.dir / "pbem.env"
        program, why_not = pipe_program(self.dir, pbem_bin)
        if program is None:
            self.close()
            if required():
                pytest.fail(why_not)
            pytest.skip(why_not)
        # The wrapper's two settings, given to the pipe through Postfix's own environment lists.
        self.wrapper_env = {"PBEM_ENV_FILE": str(self.env_file), "PBEM_BIN": program}

    def write_env(self, **values: str) -> None:
        """The environment file the wrapper loads (as /etc/pbem/pbem.env in production)."""
        self.env_file.write_text("".join(f"{name}='{value}'\n" for name, value in values.items()))
        self.env_file.chmod(0o644)

    # -- configuration ---------------------------------------------------------------
    def write_config(self) -> None:
        d = self.dir
        snippet = (DEPLOY / "main.cf.snippet").read_text()
        snippet = snippet.replace(EXAMPLE_DOMAIN, DOMAIN).replace("/etc/postfix/", f"{d}/")
        env = " ".join(f"{name}={value}" for name, value in sorted(self.wrapper_env.items()))
        main_cf = f"""\
compatibility_level = 3.6
queue_directory = {d}/queue
data_directory = {d}/data
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
shlib_directory = /usr/lib/postfix
meta_directory = /etc/postfix
mail_owner = postfix
setgid_group = postdrop
myhostname = mx.{DOMAIN}
mydomain = {DOMAIN}
myorigin = $myhostname
mydestination =
mynetworks = 192.0.2.1/32
inet_interfaces = loopback-only
inet_protocols = ipv4
maillog_file = {d}/maillog
maillog_file_prefixes = {d}
alias_maps =
alias_database =
local_recipient_maps =
smtputf8_enable = no
biff = no
smtpd_peername_lookup = no
smtp_dns_support_level = disabled
# Nothing leaves this instance: a bounce would go here, and be logged as such.
default_transport = error:outside mail is switched off in this test
import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C {env}
export_environment = TZ MAIL_CONFIG LANG {" ".join(sorted(self.wrapper_env))}

# ---- deploy/postfix/main.cf.snippet ----
{snippet}"""
        (d / "main.cf").write_text(main_cf)
        (d / "master.cf").write_text(self.master_cf())
        pcre = (DEPLOY / "pbem_recipients.pcre").read_text().replace(re.escape(EXAMPLE_DOMAIN), re.escape(DOMAIN))
        (d / "pbem_recipients.pcre").write_text(pcre)
        (d / "transport").write_text((DEPLOY / "transport").read_text().replace(EXAMPLE_DOMAIN, DOMAIN))
        self.run("postmap", "-c", str(d), f"hash:{d}/transport")

    def master_cf(self) -> str:
        base = Path("/etc/postfix/master.cf")
        if not base.exists():
            base = Path("/usr/share/postfix/master.cf.dist")
        entries, keep = [], False
        for line in base.read_text().splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line[0].isspace():  # a continuation (-o ...) of the entry above
                if keep:
                    entries.append(line)
                continue
            fields = line.split()
            keep = fields[0] in CORE_SERVICES
            if keep:
                fields[4] = "n"  # no chroot: the queue is in a temporary folder
                entries.append("  ".join(fields))
        wrapper = str(DEPLOY / "pbem-ingest.sh")
        snippet = (DEPLOY / "master.cf.snippet").read_text()
        snippet = snippet.replace("user=pbem", f"user={PIPE_USER}").replace("/usr/local/bin/pbem-ingest.sh", wrapper)
        smtpd = f"127.0.0.1:{self.port}  inet  n  -  n  -  -  smtpd"
        return "\n".join([smtpd, *entries, "# ---- deploy/postfix/master.cf.snippet ----", snippet, ""])

    # -- control ------------------------------------------------------------------------
    def run(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if check and done.returncode != 0:
            raise AssertionError(
                f"{' '.join(argv)} failed ({done.returncode}): {done.stderr}{done.stdout}\n{self.log()}"
            )
        return done

    def start(self) -> None:
        (self.dir / "queue").mkdir(mode=0o755)  # `postfix start` creates what goes inside
        self.write_config()
        self.run("postfix", "-c", str(self.dir), "start")
        deadline = time.monotonic() + 30
        while not self.listening():
            if time.monotonic() > deadline:
                raise AssertionError(f"Postfix did not listen on port {self.port}\n{self.log()}")
            time.sleep(0.2)

    def listening(self) -> bool:
        import socket

        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        self.run("postfix", "-c", str(self.dir), "stop", check=False)

    def flush(self) -> None:
        """``postqueue -f``: try every queued message now."""
        self.run("postqueue", "-c", str(self.dir), "-f")

    def queue(self) -> str:
        """``postqueue -p``: what is queued, and why."""
        return self.run("postqueue", "-c", str(self.dir), "-p").stdout

    def log(self) -> str:
        path = self.dir / "maillog"
        return path.read_text(errors="replace") if path.exists() else ""

    def wait_for_log(self, pattern: str, timeout: float = 30.0) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.log())
            if match:
                return match
            time.sleep(0.2)
        raise AssertionError(f"no {pattern!r} in the Postfix log within {timeout}s:\n{self.log()[-4000:]}")

    def __enter__(self) -> Postfix:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.stop()
        deadline = time.monotonic() + 20
        pid_file = self.dir / "queue" / "pid" / "master.pid"
        while pid_file.exists() and time.monotonic() < deadline:
            try:
                os.kill(int(pid_file.read_text().split()[0]), 0)
            except (OSError, ValueError, IndexError):
                break
            time.sleep(0.2)
        shutil.rmtree(self.dir, ignore_errors=True)
