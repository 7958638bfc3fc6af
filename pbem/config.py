"""Configuration from the environment (``PBEM_*``), with embedded-mode defaults.

Everything the design's "Configuration" section names is read here and nowhere
else, so the web app, the worker and the CLI always agree.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pbem import clock, envfile
from pbem.clock import DurationError, parse_duration
from pbem.tokens import default_template, template_problem

#: The file in the instance folder holding the generated secret key (kept by ``pbem backup``).
SECRET_FILE = "secret_key"
#: The file in the instance folder where ``pbem serve`` notes the address it serves on.
SERVED_URL_FILE = "served_url"
#: The address links point at when neither PBEM_BASE_URL nor a served address is known.
DEFAULT_BASE_URL = "http://127.0.0.1:5000"


def instance_path() -> Path:
    """The instance folder (``PBEM_INSTANCE``, else ``./instance``): database, secret, served address.

    Never created here: only ``pbem serve`` and ``pbem db upgrade`` make a new instance
    (:func:`create_instance`), so a command run in the wrong folder cannot start a second one.
    """
    return Path(os.environ.get("PBEM_INSTANCE") or _named_in_env_file() or Path.cwd() / "instance").resolve()


def instance_is_named() -> bool:
    """Whether ``PBEM_INSTANCE`` is set in the environment (messages say where the folder came from)."""
    return bool(os.environ.get("PBEM_INSTANCE"))


def any_setting_given() -> bool:
    """Whether any ``PBEM_*`` variable is set (a shell variable set without ``export`` reaches no command)."""
    return any(name.startswith("PBEM_") and value for name, value in os.environ.items())


def user_state_home() -> Path:
    """The user's state folder (``XDG_STATE_HOME``, else ``~/.local/state``)."""
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")


@dataclass(frozen=True)
class FaultSetting:
    """``PBEM_FAULT=<point>`` (crash tests): the point that stalls, the marker file it touches, how long."""

    point: str | None
    marker: str | None
    sleep: float
    raise_: bool = False  # raise at the point instead of stalling (all-or-nothing tests)


def fault_point() -> str | None:
    """The point named by ``PBEM_FAULT`` alone: the points lie on every order's path, and the rest of
    the setting matters only at the named one."""
    return os.environ.get("PBEM_FAULT") or None


def fault_setting() -> FaultSetting:
    """Read at the point :func:`fault_point` names, so a test can set it for one child process
    (see :mod:`pbem.faults`)."""
    return FaultSetting(
        fault_point(),
        os.environ.get("PBEM_FAULT_MARKER") or None,
        float(os.environ.get("PBEM_FAULT_SLEEP", "60")),
        bool(os.environ.get("PBEM_FAULT_RAISE")),
    )


def _named_in_env_file() -> str | None:
    """``PBEM_INSTANCE`` as the file ``PBEM_ENV_FILE`` sets it (an unreadable file is reported later)."""
    if not os.environ.get("PBEM_ENV_FILE"):
        return None
    try:
        return envfile.read(Path.cwd())[1].get("PBEM_INSTANCE") or None
    except envfile.EnvFileError:
        return None


def create_instance(path: Path) -> Path:
    """Make the instance folder (readable by its owner only) if it is not there yet."""
    path.mkdir(parents=True, exist_ok=True, mode=0o750)
    return path


def _secret_key(instance: Path, env: Callable[[str], str | None] = os.environ.get) -> str:
    """PBEM_SECRET_KEY, or one generated once and kept in the instance folder.

    "" where the instance folder does not exist: such a process must not run
    (commands refuse first), and generating a key would create the folder.
    """
    if env("PBEM_SECRET_KEY"):
        return str(env("PBEM_SECRET_KEY"))
    path = instance / SECRET_FILE
    if not path.exists():
        if not instance.is_dir():
            return ""
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def served_url(instance: Path) -> str | None:
    """The address ``pbem serve`` last served this instance on, if it noted one."""
    try:
        text = (instance / SERVED_URL_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return text or None


def note_served_url(instance: Path, url: str) -> None:
    """Note where ``pbem serve`` answers, so every command of this instance links there."""
    (instance / SERVED_URL_FILE).write_text(url.rstrip("/") + "\n", encoding="utf-8")


@dataclass(frozen=True)
class MailLimits:
    """Inbound mail allowed per seat (at its reply address) and per sender to the server address,
    within a sliding window.

    Generous enough for a player who corrects themselves a few times a turn, tight
    enough that a mail loop or a flood is cut off after one notice.  A seat counts only
    what arrives at its own reply address: a forged ``From:`` elsewhere never uses it up.
    """

    per_seat: int = 60
    per_sender: int = 120
    window_seconds: int = 3600

    @classmethod
    def from_env(cls, env: Callable[[str], str | None]) -> MailLimits:
        """PBEM_MAIL_RATE_SEAT and _SENDER (messages) per PBEM_MAIL_RATE_WINDOW (seconds)."""
        names = {
            "per_seat": "PBEM_MAIL_RATE_SEAT",
            "per_sender": "PBEM_MAIL_RATE_SENDER",
            "window_seconds": "PBEM_MAIL_RATE_WINDOW",
        }
        return cls(**{field: _positive_int(name, env(name)) for field, name in names.items() if env(name)})


@dataclass(frozen=True)
class StrangerBudget:
    """Emails the server may send in answer to an unverified ``From:`` (mail to the server address,
    refusals), per window: strangers and players alike, since a player's address may be forged.

    Every such answer may land with a victim: a few per address, and a small number in all,
    then silence until the window moves on.
    """

    per_sender: int = 3
    overall: int = 30
    window_seconds: int = 3600

    @classmethod
    def from_env(cls, env: Callable[[str], str | None]) -> StrangerBudget:
        """PBEM_STRANGER_EMAILS_SENDER and _TOTAL (emails) per PBEM_STRANGER_WINDOW (seconds)."""
        names = {
            "per_sender": "PBEM_STRANGER_EMAILS_SENDER",
            "overall": "PBEM_STRANGER_EMAILS_TOTAL",
            "window_seconds": "PBEM_STRANGER_WINDOW",
        }
        return cls(**{field: _positive_int(name, env(name)) for field, name in names.items() if env(name)})


class ConfigError(ValueError):
    """A ``PBEM_*`` setting that cannot be used; the message names it."""


def _positive_int(name: str, raw: str | None) -> int:
    """A whole number above zero, or a start-up error that names the variable."""
    try:
        value = int(raw or "")
    except ValueError:
        value = 0
    if value <= 0:
        raise ConfigError(f"{name} must be a whole number above zero, not {raw!r}")
    return value


#: The most reverse-proxy hops ``PBEM_TRUSTED_PROXIES`` may name.
MAX_PROXY_HOPS = 5


def _proxy_hops(raw: str | None) -> int:
    """0 (the default: forwarded headers are forgeable) up to :data:`MAX_PROXY_HOPS`."""
    text = (raw or "").strip()
    if not text:
        return 0
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_PROXY_HOPS:
        raise ConfigError(
            f"PBEM_TRUSTED_PROXIES must be a number of proxy hops from 0 to {MAX_PROXY_HOPS}, not {raw!r}"
        )
    return int(text)


def _switch(name: str, raw: str | None) -> bool | None:
    """``1``/``0`` (also yes/no, on/off, true/false), or None when unset."""
    text = (raw or "").strip().lower()
    if not text:
        return None
    if text in ("1", "yes", "on", "true"):
        return True
    if text in ("0", "no", "off", "false"):
        return False
    raise ConfigError(f"{name} must be 1 or 0, not {raw!r}")


def _authserv_ids(raw: str | None) -> tuple[str, ...]:
    """``PBEM_AUTHSERV_ID``: the authserv-ids (comma-separated) whose Authentication-Results are believed."""
    ids = tuple(part.strip().lower() for part in (raw or "").split(",") if part.strip())
    for value in ids:
        if not re.fullmatch(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?", value):
            raise ConfigError(f"PBEM_AUTHSERV_ID must be host names (e.g. mx.example.org), not {value!r}")
    return ids


def _reply_template(raw: str | None) -> str | None:
    """``PBEM_REPLY_ADDRESS`` checked (``games+{key}@example.org``), or None for the default."""
    text = (raw or "").strip()
    if not text:
        return None
    problem = template_problem(text)
    if problem:
        raise ConfigError(f"PBEM_REPLY_ADDRESS {problem}, not {raw!r}")
    return text


def _server_address(reply: str | None, domain: str) -> str:
    """The From address by default: the mailbox itself in one-mailbox mode, else ``pbem@domain``.

    ``games+{key}@example.org`` gives ``games@example.org`` (a provider's SMTP
    submission usually insists that From is the mailbox that logged in).
    """
    if reply:
        address = re.sub(r"[-+._=]?\{key\}", "", reply, count=1)
        if not address.startswith("@"):
            return address
    return f"pbem@{domain}"


@dataclass(frozen=True)
class Settings:
    instance: Path
    database_url: str
    broker_url: str
    smtp_url: str | None
    mail_domain: str
    secret_key: str
    base_url: str
    imap_url: str | None = None
    #: ``PBEM_REPLY_ADDRESS``: reply-address template with ``{key}``; None is ``play-{key}@mail_domain``.
    reply_address: str | None = None
    inbound_secret: str | None = None
    server_address: str = ""
    max_message_bytes: int = 2_000_000
    #: How long a receipt that only says "accepted" may wait to ride in the seat's next email (0: never).
    receipt_wait_seconds: int = 86_400
    #: ``PBEM_KEEP_EMAILS``: how long a sent email's text is kept (then only its envelope).
    keep_email_seconds: int = 14 * 86_400
    #: ``PBEM_ABSENT_AFTER``: deadlines a seat's player missed in a row before their mail about that game is
    #: backed off (its news held for the player's one digest of all their games: daily, weekly from twice as
    #: many); 0: never.
    absent_after: int = 2
    #: ``PBEM_HARD_BOUNCES``: hard bounces in a row after which an address is no longer mailed.
    hard_bounce_limit: int = 3
    #: Reverse proxies in front of the web app whose ``X-Forwarded-*`` headers are believed.
    trusted_proxies: int = 0
    mail_limits: MailLimits = field(default_factory=MailLimits)
    #: DKIM: the private key file (PEM) and the selector its public key is published under.
    dkim_key: str | None = None
    dkim_selector: str | None = None
    #: ``PBEM_DEV_MAILBOX``: True or False forces the dev mailbox on or off; None decides by the setup.
    dev_mailbox_setting: bool | None = None
    #: ``PBEM_METRICS_TOKEN``: the bearer token ``/metrics`` asks for (None: loopback clients only).
    metrics_token: str | None = None
    #: ``PBEM_AUTHSERV_ID``: the receiving MTA's or provider's authserv-ids; their
    #: Authentication-Results (SPF, DKIM, DMARC) are read, nobody else's.
    authserv_ids: tuple[str, ...] = ()
    stranger_budget: StrangerBudget = field(default_factory=StrangerBudget)
    #: The environment file the settings were read from, besides the environment (see :mod:`pbem.envfile`).
    env_file: Path | None = None
    #: Where ``base_url`` came from: ``PBEM_BASE_URL``, ``served`` (noted by ``pbem serve``) or ``default``.
    base_url_source: str = "default"
    #: ``PBEM_ADMIN_EMAIL``: where the server tells its admin what needs them (a game's engine failed on
    #: an order, a message could not be processed); None: the log and the admin console only.
    admin_email: str | None = None

    @property
    def embedded_broker(self) -> bool:
        return self.broker_url.startswith("filesystem://")

    @property
    def embedded(self) -> bool:
        """Embedded mode: SQLite and the file-system broker (see :attr:`dev_mailbox` for the dev mailbox)."""
        return self.database_url.startswith("sqlite") and self.embedded_broker

    @property
    def mail_leaves(self) -> bool:
        """Whether mail can leave or reach this machine: a relay or a mailbox is configured."""
        return bool(self.smtp_url or self.imap_url)

    @property
    def dev_mailbox(self) -> bool:
        """The dev mailbox (``/dev/mail``) is served: forced by ``PBEM_DEV_MAILBOX``, else only
        on the embedded default while no mail can leave the machine (never in a deployment)."""
        if self.dev_mailbox_setting is not None:
            return self.dev_mailbox_setting
        return self.embedded and not self.mail_leaves

    @property
    def reply_template(self) -> str:
        """The template new reply addresses are made from."""
        return self.reply_address or default_template(self.mail_domain)

    @property
    def reply_templates(self) -> tuple[str, ...]:
        """Templates whose addresses are taken: the configured one and the default (older addresses)."""
        return tuple(dict.fromkeys((self.reply_template, default_template(self.mail_domain))))

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)


def load_settings(**overrides: Any) -> Settings:
    """Read the environment once; keyword overrides win (tests use them)."""
    given = overrides.pop("instance", None)
    instance = Path(given) if given else instance_path()
    if given:
        create_instance(instance)
    try:
        env_file, from_file = envfile.read(instance)
    except envfile.EnvFileError as error:
        raise ConfigError(str(error)) from None

    def env(name: str, default: str | None = None) -> str | None:
        """The real environment first, then the instance's environment file."""
        return os.environ.get(name) or from_file.get(name) or default

    reply = _reply_template(env("PBEM_REPLY_ADDRESS"))
    domain = env("PBEM_MAIL_DOMAIN") or (reply.rpartition("@")[2] if reply else "pbem.localhost")
    settings = Settings(
        instance=instance,
        database_url=env("PBEM_DATABASE_URL") or f"sqlite:///{instance / 'pbem.sqlite3'}",
        broker_url=env("PBEM_BROKER_URL") or "filesystem://",
        smtp_url=env("PBEM_SMTP_URL") or None,
        mail_domain=domain,
        secret_key=_secret_key(instance, env),
        base_url=(env("PBEM_BASE_URL") or served_url(instance) or DEFAULT_BASE_URL).rstrip("/"),
        imap_url=env("PBEM_IMAP_URL") or None,
        inbound_secret=env("PBEM_INBOUND_SECRET") or None,
        reply_address=reply,
        server_address=env("PBEM_SERVER_ADDRESS") or _server_address(reply, domain),
        max_message_bytes=_positive_int("PBEM_MAX_MESSAGE_BYTES", env("PBEM_MAX_MESSAGE_BYTES", "2000000")),
        hard_bounce_limit=_positive_int("PBEM_HARD_BOUNCES", env("PBEM_HARD_BOUNCES", "3")),
        absent_after=_absent_after(env("PBEM_ABSENT_AFTER")),
        mail_limits=MailLimits.from_env(env),
        trusted_proxies=_proxy_hops(env("PBEM_TRUSTED_PROXIES")),
        dkim_key=env("PBEM_DKIM_KEY") or None,
        dkim_selector=env("PBEM_DKIM_SELECTOR") or None,
        receipt_wait_seconds=_receipt_wait(env("PBEM_RECEIPT_WAIT")),
        keep_email_seconds=_keep_emails(env("PBEM_KEEP_EMAILS")),
        dev_mailbox_setting=_switch("PBEM_DEV_MAILBOX", env("PBEM_DEV_MAILBOX")),
        metrics_token=(env("PBEM_METRICS_TOKEN") or "").strip() or None,
        authserv_ids=_authserv_ids(env("PBEM_AUTHSERV_ID")),
        stranger_budget=StrangerBudget.from_env(env),
        env_file=env_file,
        base_url_source=_base_url_source(env("PBEM_BASE_URL"), served_url(instance)),
        admin_email=_admin_email(env("PBEM_ADMIN_EMAIL")),
    )
    _set_clock()
    if bool(settings.dkim_key) != bool(settings.dkim_selector):
        raise ConfigError("set both PBEM_DKIM_KEY (the private key file) and PBEM_DKIM_SELECTOR, or neither")
    return settings.with_(**overrides) if overrides else settings


def clock_setting() -> clock.ClockSetting:
    """``PBEM_CLOCK_RATE`` and ``PBEM_CLOCK_EPOCH``, from the environment only (not the environment file):
    every process reads them before anything else (see :mod:`pbem.clock`); :class:`clock.ClockError` if unusable."""
    return clock.parse_setting(os.environ.get("PBEM_CLOCK_RATE"), os.environ.get("PBEM_CLOCK_EPOCH"))


def _set_clock() -> None:
    """This process's clock from its settings, or a start-up error naming them."""
    try:
        clock.configure(clock_setting())
    except clock.ClockError as error:
        raise ConfigError(str(error)) from None


def _base_url_source(configured: str | None, served: str | None) -> str:
    return "PBEM_BASE_URL" if configured else "served" if served else "default"


def _admin_email(raw: str | None) -> str | None:
    """``PBEM_ADMIN_EMAIL``: one plain address, or None."""
    value = (raw or "").strip()
    if not value:
        return None
    if not re.fullmatch(r"[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+", value):
        raise ConfigError(f"PBEM_ADMIN_EMAIL must be one email address, like admin@example.org, not {value!r}")
    return value


def _keep_emails(value: str | None) -> int:
    """``PBEM_KEEP_EMAILS``: how long sent emails' texts are kept, a duration like ``14d`` (at least an hour)."""
    if value is None or not value.strip():
        return Settings.keep_email_seconds
    try:
        seconds = parse_duration(value)
    except DurationError as error:
        raise ConfigError(f"PBEM_KEEP_EMAILS: {error}") from None
    if seconds < 3600:
        raise ConfigError(f"PBEM_KEEP_EMAILS must be at least an hour (1h), not {value!r}: an admin's resend needs it")
    return seconds


def _absent_after(value: str | None) -> int:
    """``PBEM_ABSENT_AFTER``: a whole number of missed deadlines, ``0`` to never back a player's mail off."""
    if value is None or not value.strip():
        return Settings.absent_after
    word = value.strip()
    if not word.isdigit() or int(word) > 1000:
        raise ConfigError(f"PBEM_ABSENT_AFTER must be a whole number of missed deadlines (0: never), not {value!r}")
    return int(word)


def _receipt_wait(value: str | None) -> int:
    """``PBEM_RECEIPT_WAIT``: a duration like ``24h``, or ``0`` to answer every message at once."""
    if value is None or not value.strip():
        return 86_400
    if value.strip() == "0":
        return 0
    try:
        return parse_duration(value)
    except DurationError as error:
        raise ConfigError(f"PBEM_RECEIPT_WAIT: {error}, or 0 to answer every message at once") from None
