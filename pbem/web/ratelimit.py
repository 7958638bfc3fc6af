"""Log-in throttling with Flask-Limiter, shared by every web process.

Failed log-ins are counted in a moving window in Flask-Limiter's storage: the
broker's Redis when the broker is Redis (so every gunicorn worker and every
web host counts together), process memory in the embedded mode (one web
process).  Three counts, checked before the password is:

* per client and username: a client that keeps guessing one account's
  password is stopped after :attr:`LoginLimits.per_client_user` failures;
* per client: a client guessing many usernames is stopped after
  :attr:`LoginLimits.per_client`;
* per username, over every client: a slow distributed guess is stopped after
  :attr:`LoginLimits.per_user` — but only for clients that have themselves
  failed on that username.

So failures from one client never refuse a correct password from another: a
client with no failure of its own is checked against its own count only.
If the shared storage cannot be reached, this process counts alone (in memory)
until it can again.

The same storage counts the web forms that make the server send an email
(following a game, asking for a sign-in link, taking a seat): per client and
over every client (:class:`MailLimiter`), so no client, and no crowd of clients,
can make the server mail any number of addresses.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from flask import Flask, current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter, RateLimiter

log = logging.getLogger(__name__)
EXTENSION = "pbem_login_limits"
MAIL_EXTENSION = "pbem_mail_limits"


@dataclass(frozen=True)
class LoginLimits:
    per_client_user: int = 5
    per_client: int = 20
    per_user: int = 50
    window_seconds: int = 900


def storage_uri(broker_url: str) -> str:
    """Where the counts live: the broker's Redis if there is one, else this process's memory."""
    return broker_url if broker_url.startswith(("redis://", "rediss://")) else "memory://"


class LoginLimiter:
    """The log-in counts of one app, kept in its Flask-Limiter's storage."""

    def __init__(self, app: Flask, uri: str, limits: LoginLimits | None = None):
        self.extension = Limiter(
            get_remote_address, app=app, storage_uri=uri, strategy="moving-window", key_prefix="pbem-login"
        )
        self._fallback = MovingWindowRateLimiter(MemoryStorage())
        self._shared_down = False
        self.configure(limits or LoginLimits())

    def configure(self, limits: LoginLimits) -> None:
        self.limits = limits
        window = limits.window_seconds
        self._pair = parse(f"{limits.per_client_user} per {window} seconds")
        self._client = parse(f"{limits.per_client} per {window} seconds")
        self._user = parse(f"{limits.per_user} per {window} seconds")

    def _run(self, action):
        """``action(strategy)`` on the shared storage, or on this process's memory while it is unreachable."""
        try:
            result = action(self.extension.limiter)
        except Exception as error:
            if not self._shared_down:
                log.warning("log-in counts: shared storage unreachable (%s); counting in memory", type(error).__name__)
                self._shared_down = True
            return action(self._fallback)
        if self._shared_down:
            log.warning("log-in counts: shared storage reachable again")
            self._shared_down = False
        return result

    def _checks(self, strategy: RateLimiter, ip: str, username: str) -> list[tuple[RateLimitItem, tuple[str, ...]]]:
        user = username.lower()
        checks = [(self._pair, ("pair", ip, user)), (self._client, ("client", ip))]
        if strategy.get_window_stats(self._pair, "pair", ip, user).remaining < self.limits.per_client_user:
            checks.append((self._user, ("user", user)))  # only a client that failed on this username
        return checks

    def retry_after(self, ip: str, username: str) -> int:
        """Seconds until this client may try this username again (0: now)."""

        def wait(strategy: RateLimiter) -> int:
            waits = []
            for item, keys in self._checks(strategy, ip, username):
                if not strategy.test(item, *keys):
                    waits.append(int(strategy.get_window_stats(item, *keys).reset_time - time.time()) + 1)
            return max(waits, default=0)

        return self._run(wait)

    def failed(self, ip: str, username: str) -> None:
        user = username.lower()

        def count(strategy: RateLimiter) -> None:
            strategy.hit(self._pair, "pair", ip, user)
            strategy.hit(self._client, "client", ip)
            strategy.hit(self._user, "user", user)

        self._run(count)

    def succeeded(self, ip: str, username: str) -> None:
        """The right password: this client's failures on this username are forgotten."""
        self._run(lambda strategy: strategy.clear(self._pair, "pair", ip, username.lower()))

    def reset(self) -> None:
        """Forget every count (tests)."""
        self.extension.reset()
        self._fallback = MovingWindowRateLimiter(MemoryStorage())


@dataclass(frozen=True)
class MailLimits:
    """Web requests that send an email: per client, and over all clients, within the window."""

    per_client: int = 10
    overall: int = 120
    window_seconds: int = 900


class MailLimiter:
    """Counts requests that make the server send an email, in the log-in counts' storage."""

    def __init__(self, shared: LoginLimiter, limits: MailLimits | None = None):
        self.shared = shared
        self.configure(limits or MailLimits())

    def configure(self, limits: MailLimits) -> None:
        self.limits = limits
        self._client = parse(f"{limits.per_client} per {limits.window_seconds} seconds")
        self._overall = parse(f"{limits.overall} per {limits.window_seconds} seconds")

    def take(self, ip: str) -> int:
        """Count one request from ``ip``; 0 if it may go ahead, else the seconds until it may."""

        def attempt(strategy: RateLimiter) -> int:
            waits = []
            for item, keys in ((self._client, ("mail-client", ip)), (self._overall, ("mail-all",))):
                if not strategy.test(item, *keys):
                    waits.append(int(strategy.get_window_stats(item, *keys).reset_time - time.time()) + 1)
            if waits:
                return max(waits)
            strategy.hit(self._client, "mail-client", ip)
            strategy.hit(self._overall, "mail-all")
            return 0

        return self.shared._run(attempt)


def init_app(app: Flask, broker_url: str) -> LoginLimiter:
    limiter = LoginLimiter(app, storage_uri(broker_url))
    app.extensions[EXTENSION] = limiter
    app.extensions[MAIL_EXTENSION] = MailLimiter(limiter)
    return limiter


def login_limiter() -> LoginLimiter:
    return current_app.extensions[EXTENSION]


def mail_limiter() -> MailLimiter:
    return current_app.extensions[MAIL_EXTENSION]


def mail_wait() -> int:
    """Count this request against the mail limits; 0 if it may send, else seconds to wait.

    The client is the TCP peer, or the address the trusted proxies give
    (``PBEM_TRUSTED_PROXIES``): a forged ``X-Forwarded-For`` changes nothing."""
    return mail_limiter().take(request.remote_addr or "?")


def minutes(seconds: int) -> str:
    count = max(1, (seconds + 59) // 60)
    return f"{count} minute{'s' if count != 1 else ''}"
