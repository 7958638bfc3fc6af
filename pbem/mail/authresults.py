"""What the receiving mail server found about a message's sender: SPF, DKIM and DMARC,
read from its ``Authentication-Results`` header (RFC 8601).

Only a header whose authserv-id is one the admin configured (``PBEM_AUTHSERV_ID``:
the receiving MTA, e.g. Postfix with OpenDKIM and OpenDMARC, or the mailbox
provider read by IMAP, e.g. ``mx.google.com``) is believed: anyone can write
such a header into a message, and a receiving server adds its own above what
came in, so for each method the topmost trusted result counts.  The server
only ever uses a result to hold a message back (a forged "pass" gains a forger
nothing the secret reply address did not already give), never to accept one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message

from pbem.mail.message import headers

METHODS = ("spf", "dkim", "dmarc")
#: ``method[/version]=result`` at the start of a result (RFC 8601 resinfo).
_RESULT = re.compile(r"^\s*([a-z0-9_-]+)(?:/\d+)?\s*=\s*([a-z]+)", re.IGNORECASE)
#: ``header.from=example.org`` among a result's properties.
_HEADER_FROM = re.compile(r"\bheader\.from\s*=\s*\"?([^\s;\"]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Verdicts:
    """The trusted results (None: no trusted result for that method), and DMARC's domain."""

    spf: str | None = None
    dkim: str | None = None
    dmarc: str | None = None
    dmarc_domain: str | None = None
    authserv_id: str | None = None

    @property
    def found(self) -> bool:
        return any((self.spf, self.dkim, self.dmarc))


def _without_comments(text: str) -> str:
    """RFC 5322 comments (nested parentheses) removed, outside quoted strings."""
    out, depth, quoted = [], 0, False
    for char in text:
        if char == '"' and depth == 0:
            quoted = not quoted
        elif not quoted and char == "(":
            depth += 1
            continue
        elif not quoted and char == ")" and depth:
            depth -= 1
            continue
        if depth == 0:
            out.append(char)
    return "".join(out)


def parse(value: str) -> tuple[str, list[tuple[str, str, str]]]:
    """``(authserv-id, [(method, result, properties), ...])`` of one header value."""
    parts = _without_comments(value).split(";")
    authserv = (parts[0].split() or [""])[0].lower()
    results = []
    for part in parts[1:]:
        match = _RESULT.match(part)
        if match:
            results.append((match.group(1).lower(), match.group(2).lower(), part[match.end() :]))
    return authserv, results


def read(message: Message, trusted: tuple[str, ...]) -> Verdicts:
    """The results of the trusted hops, topmost first; empty when nothing trusted is there."""
    if not trusted:
        return Verdicts()
    found: dict[str, str] = {}
    dmarc_domain = authserv_id = None
    for value in headers(message, "Authentication-Results"):
        authserv, results = parse(value)
        if authserv not in trusted:
            continue
        authserv_id = authserv_id or authserv
        seen_here: dict[str, list[str]] = {}
        for method, result, properties in results:
            if method not in METHODS or method in found:
                continue
            seen_here.setdefault(method, []).append(result)
            if method == "dmarc" and dmarc_domain is None:
                domain = _HEADER_FROM.search(properties)
                dmarc_domain = domain.group(1).lower() if domain else None
        for method, values in seen_here.items():  # one valid DKIM signature among several is a pass
            found[method] = "pass" if "pass" in values else values[0]
    return Verdicts(found.get("spf"), found.get("dkim"), found.get("dmarc"), dmarc_domain, authserv_id)
