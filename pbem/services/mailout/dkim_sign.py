"""DKIM signatures on outgoing mail (``PBEM_DKIM_KEY``, ``PBEM_DKIM_SELECTOR``).

Receivers such as Gmail file unsigned mail from a small server as spam; a
signature under the From: domain, with SPF and DMARC beside it, is what lets a
turn email reach the inbox.  The final bytes are signed just before each send
attempt, so what the relay gets is exactly what was signed.
"""

from __future__ import annotations

import base64
import functools
import os
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses

import dkim
from dkim.crypto import UnparsableKeyError, parse_pem_private_key

#: Headers a reader sees or threads by.  A header missing from a message is signed as
#: absent, so nobody can add it on the way (a Reply-To, say) without breaking the signature.
SIGNED_HEADERS = (
    b"from",
    b"to",
    b"cc",
    b"subject",
    b"date",
    b"message-id",
    b"reply-to",
    b"in-reply-to",
    b"references",
    b"mime-version",
    b"content-type",
    b"content-transfer-encoding",
    b"auto-submitted",
    b"list-id",
    b"list-unsubscribe",
    b"list-unsubscribe-post",
)


class DkimError(ValueError):
    """The key cannot be used, or the message has no From: domain to sign for."""


def read_key(path: str) -> bytes:
    """The private key's PEM bytes, checked to parse as an RSA key."""
    return _read_key(path, _mtime(path))


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError as error:
        raise DkimError(f"cannot read the DKIM key {path}: {error.strerror or error}") from None


@functools.lru_cache(maxsize=4)
def _read_key(path: str, mtime: float) -> bytes:
    """Cached per file version: a replaced key is read again, an unchanged one is not."""
    try:
        with open(path, "rb") as handle:
            pem = handle.read()
    except OSError as error:
        raise DkimError(f"cannot read the DKIM key {path}: {error.strerror or error}") from None
    try:
        parse_pem_private_key(pem)
    except (UnparsableKeyError, ValueError, IndexError) as error:
        raise DkimError(f"the DKIM key {path} is not a PEM RSA private key ({error})") from None
    return pem


def from_domain(message: bytes) -> str:
    """The domain of the message's From: address (the domain the signature speaks for)."""
    header = BytesHeaderParser(policy=compat32).parsebytes(message, headersonly=True).get("From", "")
    addresses = [address for _, address in getaddresses([str(header)]) if "@" in address]
    if not addresses:
        raise DkimError("the message has no From: address to sign for")
    return addresses[0].rpartition("@")[2].lower()


def sign(message: bytes, selector: str, key_path: str) -> bytes:
    """``message`` with a ``DKIM-Signature`` header in front (relaxed/relaxed, rsa-sha256)."""
    signature = dkim.sign(
        message,
        selector.encode("ascii"),
        from_domain(message).encode("ascii"),
        read_key(key_path),
        canonicalize=(b"relaxed", b"relaxed"),
        include_headers=list(SIGNED_HEADERS),
    )
    return signature + message


def _der(tag: int, body: bytes) -> bytes:
    """One DER element (definite length)."""
    size = len(body)
    if size < 0x80:
        return bytes([tag, size]) + body
    length = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + body


def _der_integer(value: int) -> bytes:
    return _der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))  # a leading zero keeps it positive


#: AlgorithmIdentifier of rsaEncryption (OID 1.2.840.113549.1.1.1, NULL parameters).
_RSA_ALGORITHM = _der(0x30, bytes.fromhex("06092a864886f70d010101") + bytes.fromhex("0500"))


def public_key_base64(key_path: str) -> str:
    """The ``p=`` value of the DNS record: the key's SubjectPublicKeyInfo, base64."""
    private = parse_pem_private_key(read_key(key_path))
    rsa_key = _der(0x30, _der_integer(private["modulus"]) + _der_integer(private["publicExponent"]))
    info = _der(0x30, _RSA_ALGORITHM + _der(0x03, b"\x00" + rsa_key))
    return base64.b64encode(info).decode("ascii")


def dns_record(key_path: str, selector: str, domain: str) -> tuple[str, str]:
    """``(name, TXT value)`` to publish so receivers can check the signatures."""
    return f"{selector}._domainkey.{domain}", f"v=DKIM1; k=rsa; p={public_key_base64(key_path)}"
