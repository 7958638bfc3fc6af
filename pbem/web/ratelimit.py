"""Log-in throttling with Flask-Limiter, shared by every web process.

Failed log-ins are counted in a moving window in Flask-Limiter's storage: the
broker's Redis when the broker is Redis (so every web process and every web
host counts together), process memory in the embedded mode (one web process).
Three counts, checked before the password is:

* per client and username: a client that keeps guessing one account's
  password is stopped after :attr:`LoginLimits.per_client_user` failures;
* per client: a client guessing many usernames is stopped after
  :attr:`LoginLimits.per_client`;
* per username, over every client: a guess spread over many addresses (a whole
  IPv6 network, say) is stopped after :attr:`LoginLimits.per_user`, for every
  client alike.  The real admin then signs in with a one-time link from the
  server's command line (``pbem admin link NAME``), which no count stops.

A client is its address, or its /64 network for IPv6 (:func:`client_key`): one
machine is given a whole /64.  If the shared storage cannot be reached, this
process counts alone (in memory) until it can again.

The same storage counts the web forms that make the server send an email
(following a game, asking for a sign-in link, taking a seat), per client
(:class:`MailLimiter`): a client that asks too often is answered 429, and
nobody else is.  What those requests may send is budgeted where the email is
made, per destination address and in all, counting emails actually sent
(:mod:`pbem.services.mailout.budget`), so a flood of requests that sends
nothing (unknown addresses) or that aims at one address refuses no one else.
"""

from __future__ import annotations

import ipaddress
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


def client_key(address: str | None) -> str:
    """The client a request counts for: its address, or the /64 network of an IPv6 address."""
    try:
        found = ipaddress.ip_address(address or "")
    except ValueError:
        return address or "?"
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.IPv6Network((found, 64), strict=False))
    return str(found)


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

    def _checks(self, ip: str, username: str) -> list[tuple[RateLimitItem, tuple[str, ...]]]:
        user = username.lower()
        return [(self._pair, ("pair", ip, user)), (self._client, ("client", ip)), (self._user, ("user", user))]

    def retry_after(self, ip: str, username: str) -> int:
        """Seconds until this client may try this username again (0: now)."""
        ip = client_key(ip)

        def wait(strategy: RateLimiter) -> int:
            waits = []
            for item, keys in self._checks(ip, username):
                if not strategy.test(item, *keys):
                    waits.append(int(strategy.get_window_stats(item, *keys).reset_time - time.time()) + 1)
            return max(waits, default=0)

        return self._run(wait)

    def failed(self, ip: str, username: str) -> None:
        user, ip = username.lower(), client_key(ip)

        def count(strategy: RateLimiter) -> None:
            strategy.hit(self._pair, "pair", ip, user)
            strategy.hit(self._client, "client", ip)
            strategy.hit(self._user, "user", user)

        self._run(count)

    def succeeded(self, ip: str, username: str) -> None:
        """The right password: this client's failures on this username are forgotten."""
        self._run(lambda strategy: strategy.clear(self._pair, "pair", client_key(ip), username.lower()))

    def reset(self) -> None:
        """Forget every count (tests)."""
        self.extension.reset()
        self._fallback = MovingWindowRateLimiter(MemoryStorage())


@dataclass(frozen=True)
class MailLimits:
    """Web requests that may send an email, per client within the window (what they send is
    budgeted per destination and in all where it is made: :mod:`pbem.services.mailout.budget`)."""

    per_client: int = 10
    window_seconds: int = 900


class MailLimiter:
    """Counts requests that may make the server send an email, per client, in the log-in counts' storage."""

    def __init__(self, shared: LoginLimiter, limits: MailLimits | None = None):
        self.shared = shared
        self.configure(limits or MailLimits())

    def configure(self, limits: MailLimits) -> None:
        self.limits = limits
        self._client = parse(f"{limits.per_client} per {limits.window_seconds} seconds")

    def take(self, *keys: str) -> int:
        """Count one request for each of ``keys`` (a client, an account); 0 if it may go ahead, else
        the seconds until it may."""

        def attempt(strategy: RateLimiter) -> int:
            waits = [
                int(strategy.get_window_stats(self._client, "mail-client", key).reset_time - time.time()) + 1
                for key in keys
                if not strategy.test(self._client, "mail-client", key)
            ]
            if waits:
                return max(waits)
            for key in keys:
                strategy.hit(self._client, "mail-client", key)
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


def mail_wait(account_id: int | None = None) -> int:
    """Count this request against the mail limits (its client's, and a signed-in account's); 0 if it
    may go ahead, else seconds to wait.

    The client is the TCP peer, or the address the trusted proxies give
    (``PBEM_TRUSTED_PROXIES``): a forged ``X-Forwarded-For`` changes nothing."""
    keys = [client_key(request.remote_addr)] + ([f"account:{account_id}"] if account_id is not None else [])
    return mail_limiter().take(*keys)


def minutes(seconds: int) -> str:
    count = max(1, (seconds + 59) // 60)
    return f"{count} minute{'s' if count != 1 else ''}"
