"""Strict reading of every URL setting, for ``pbem check`` and ``pbem serve``.

The programs that use these URLs read them leniently: ``smpt://`` passes for
SMTP, ``127.0.0.1:7125`` without a scheme quietly becomes port 25, an unknown
``?startls=1`` is ignored and a ``/`` in a password cuts the host short.  Each
such slip is named here with the corrected URL (its password shown as ``***``).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache
from urllib.parse import parse_qsl, quote, urlsplit

#: Values a yes/no option takes.
BOOLEAN = ("1", "0", "true", "false", "yes", "no")
#: A %-escape, and the characters a user name or password may hold unencoded (RFC 3986 userinfo).
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_USERINFO_OK = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:]")
_HOST_START = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]*)(:[^/?#]*)?([/?#]|$)")


@dataclass(frozen=True)
class UrlProblem:
    """What is wrong with the URL and the exact fix."""

    detail: str
    fix: str


@dataclass(frozen=True)
class UrlKind:
    """What one setting's URL may look like."""

    setting: str
    schemes: tuple[str, ...]
    #: Query options: name -> ``bool`` (a yes/no value) or ``str`` (any value).
    options: dict[str, type]
    example: str
    needs_host: bool = True


SMTP = UrlKind(
    "PBEM_SMTP_URL",
    ("smtp", "smtps"),
    {"starttls": bool, "cafile": str},
    "smtp://user:password@smtp.example.org:587?starttls=1",
)
IMAP = UrlKind("PBEM_IMAP_URL", ("imaps", "imap"), {}, "imaps://user:password@imap.example.org/INBOX")
BASE = UrlKind("PBEM_BASE_URL", ("https", "http"), {}, "https://games.example.org")


@cache
def _redis_options() -> dict[str, type]:
    """What redis-py reads from a ``redis://`` URL's query (its own list), plus its TLS files."""
    from redis.connection import URL_QUERY_ARGUMENT_PARSERS

    names = [*URL_QUERY_ARGUMENT_PARSERS, "ssl_cert_reqs", "ssl_ca_certs", "ssl_ca_path", "ssl_certfile", "ssl_keyfile"]
    return dict.fromkeys(names, str)


def broker_kind() -> UrlKind:
    return UrlKind("PBEM_BROKER_URL", ("redis", "rediss"), _redis_options(), "redis://127.0.0.1:6379/0")


@cache
def _libpq_options() -> dict[str, type]:
    """Every connection keyword libpq knows (asked of the installed libpq), as PostgreSQL URL options."""
    import psycopg

    return {item.keyword.decode(): str for item in psycopg.pq.Conninfo.get_defaults()}


#: What SQLAlchemy's SQLite driver reads from the URL's query.
SQLITE_OPTIONS = dict.fromkeys(
    ("timeout", "check_same_thread", "uri", "mode", "cache", "nolock", "immutable", "isolation_level"), str
)


def database_kind(url: str) -> UrlKind:
    """SQLite (a path, no host) or PostgreSQL, by the URL's scheme."""
    if url.lower().startswith("sqlite"):
        return UrlKind("PBEM_DATABASE_URL", ("sqlite",), SQLITE_OPTIONS, "sqlite:////var/lib/pbem/pbem.sqlite3", False)
    return UrlKind(
        "PBEM_DATABASE_URL",
        ("postgresql", "postgresql+psycopg", "postgres"),
        _libpq_options(),
        "postgresql://pbem:password@127.0.0.1:5432/pbem",
    )


def shown(url: str) -> str:
    """``url`` fit for a report: the password as ``***`` (found leniently: the URL may be malformed)."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    userinfo, _, host = rest.rpartition("@")
    user, colon, _password = userinfo.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}@{host}"


def problem_of(kind: UrlKind, url: str | None) -> UrlProblem | None:
    """The first thing wrong with ``url`` for ``kind``, or None (an unset URL is no problem here)."""
    text = (url or "").strip()
    if not text:
        return None
    for step in (_scheme_problem, _userinfo_problem, _authority_problem, _query_problem):
        found = step(kind, text)
        if found is not None:
            return found
    return None


def _closest(word: str, choices) -> str | None:
    matches = difflib.get_close_matches(word.lower(), list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def _scheme_problem(kind: UrlKind, url: str) -> UrlProblem | None:
    scheme, sep, rest = url.partition("://")
    if not sep or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.\-]*", scheme):
        fixed = _with_scheme(kind, url)
        return UrlProblem(
            f"{kind.setting} {shown(url)!r} has no scheme (the {' or '.join(s + '://' for s in kind.schemes)} "
            "in front), so the host and port are not read as meant",
            f"set {kind.setting}={shown(fixed)}",
        )
    if scheme.lower() not in kind.schemes:
        near = _closest(scheme, kind.schemes)
        fixed = f"{near or kind.schemes[0]}://{rest}"
        return UrlProblem(
            f"{kind.setting} {shown(url)!r}: {scheme}:// is not one of {', '.join(s + '://' for s in kind.schemes)}",
            f"set {kind.setting}={shown(fixed)}",
        )
    return None


def _with_scheme(kind: UrlKind, url: str) -> str:
    """``url`` with the scheme written out: ``redis:/host`` -> ``redis://host``, ``host:25`` -> ``smtp://host:25``."""
    named = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*):/*(.*)$", url)
    if named and named.group(1).lower() in kind.schemes:
        return f"{named.group(1).lower()}://{'/' if not kind.needs_host else ''}{named.group(2)}"
    return f"{kind.schemes[0]}://{url.lstrip('/')}" if kind.needs_host else f"sqlite:///{url}"


def _bad_characters(part: str) -> list[str]:
    """Characters of a user name or password that must be %-encoded, in order, once each."""
    bad = []
    for index, char in enumerate(part):
        if char == "%" and _ESCAPE.match(part, index):
            continue
        if not _USERINFO_OK.match(char) and char not in bad:
            bad.append(char)
    return bad


def _userinfo_problem(kind: UrlKind, url: str) -> UrlProblem | None:
    """A ``/``, ``?``, ``#``, ``@``, space or lone ``%`` in the user name or password."""
    scheme, _, rest = url.partition("://")
    if "@" not in rest:
        return None
    userinfo, _, host = rest.rpartition("@")
    user, colon, password = userinfo.partition(":")
    bad_user, bad_password = _bad_characters(user), _bad_characters(password)
    if not (bad_user or bad_password):
        return None
    where = " and ".join(w for w, bad in (("user name", bad_user), ("password", bad_password)) if bad)
    codes = ", ".join(f"{c} as {quote(c, safe='')}" for c in dict.fromkeys(bad_user + bad_password))
    fixed_user = "".join(quote(c, safe="") if c in bad_user else c for c in user)
    fixed = f"{scheme}://{fixed_user}{':***' if colon else ''}@{host}"
    return UrlProblem(
        f"{kind.setting}: the {where} {'hold' if bad_user and bad_password else 'holds'} characters "
        "that end or split a URL's parts unless %-encoded",
        f"in the {where} of {kind.setting}, write {codes}: {fixed}",
    )


def _authority_problem(kind: UrlKind, url: str) -> UrlProblem | None:
    """A host where one is needed, and a port that is a number."""
    parts = urlsplit(url)
    if not kind.needs_host:
        return None
    try:
        port = parts.port
    except ValueError:
        raw = parts.netloc.rpartition("@")[2].rpartition(":")[2]
        return UrlProblem(
            f"{kind.setting} {shown(url)!r}: the port {raw!r} is not a number from 1 to 65535",
            f"give the port as digits after the host, like {kind.example}",
        )
    if not parts.hostname:
        return UrlProblem(f"{kind.setting} {shown(url)!r} names no host", f"set {kind.setting} like {kind.example}")
    if port == 0:
        return UrlProblem(
            f"{kind.setting} {shown(url)!r}: port 0 is no port", f"set {kind.setting} like {kind.example}"
        )
    if not _HOST_START.match(parts.netloc.rpartition("@")[2]):
        return UrlProblem(f"{kind.setting} {shown(url)!r}: the host is not a host name or address",
                          f"set {kind.setting} like {kind.example}")  # fmt: skip
    return None


def _query_problem(kind: UrlKind, url: str) -> UrlProblem | None:
    """Every option known, yes/no options given yes or no, and nothing after a ``#``."""
    parts = urlsplit(url)
    base = shown(url.split("?", 1)[0].split("#", 1)[0])
    if parts.fragment:
        return UrlProblem(
            f"{kind.setting} {shown(url)!r} holds a '#', which starts a part no program reads",
            f"remove '#{parts.fragment}', or write # as %23 where it is part of a value",
        )
    try:
        pairs = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError:
        return UrlProblem(f"{kind.setting}: the options after '?' are not NAME=VALUE pairs joined by '&'",
                          f"write them like {kind.example}")  # fmt: skip
    if not kind.options and pairs:
        return UrlProblem(
            f"{kind.setting} takes no options after '?', and {', '.join(repr(n) for n, _ in pairs)} would be ignored",
            f"set {kind.setting}={base}",
        )
    fixed, unknown = [], []
    for name, value in pairs:
        wanted = kind.options.get(name)
        if wanted is None:
            near = _closest(name, kind.options)
            unknown.append(f"{name!r}" + (f" (did you mean {near!r}?)" if near else ""))
            if near and near not in {n for n, _ in pairs}:
                fixed.append(f"{near}={value}")
            continue
        if wanted is bool and value.lower() not in BOOLEAN:
            return UrlProblem(
                f"{kind.setting}: the option {name}={value!r} is not 1 or 0",
                f"write {name}=1 (or leave it out for no): {base}?{name}=1",
            )
        fixed.append(f"{name}={value}")
    if unknown:
        names = list(kind.options)
        known = ", ".join(names) if len(names) <= 8 else ", ".join(names[:6]) + f" and {len(names) - 6} more"
        return UrlProblem(
            f"{kind.setting}: unknown option {', '.join(unknown)}, which would be ignored; it knows {known}",
            f"set {kind.setting}={base}" + (f"?{'&'.join(fixed)}" if fixed else ""),
        )
    if kind is SMTP and urlsplit(url).scheme.lower() == "smtps" and dict(pairs).get("starttls", "0").lower() in (
        "1", "true", "yes"
    ):  # fmt: skip
        return UrlProblem(
            "PBEM_SMTP_URL asks for smtps:// (TLS from the first byte) and STARTTLS (TLS after a plain greeting)",
            "use smtps:// on the relay's TLS port (465) without ?starttls=1, or smtp://...:587?starttls=1",
        )
    return None
