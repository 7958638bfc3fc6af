"""The server's secret key: long enough, and never an example's placeholder.

``PBEM_SECRET_KEY`` signs every reply address, link, session and admin cookie:
whoever knows it can forge any of them (an admin's cookie opens the console).
So the servers (``pbem serve``, ``pbem web``, the worker, ``pbem smtpd``) refuse
to start with a key shorter than :data:`MIN_SECRET_LENGTH` characters or one of
:data:`PLACEHOLDERS`, the values the shipped examples hold; ``pbem check`` says
the same.  Left unset, a key of 64 random hex characters is generated once into
the instance folder, which is always fine.
"""

from __future__ import annotations

from pbem.config import ConfigError

#: Values of the example environment file (deploy/pbem.env.example) that must be replaced before going live.
PLACEHOLDERS = ("change-me", "change-me-too")
MIN_SECRET_LENGTH = 32
FIX = "set it to the output of: python3 -c 'import secrets; print(secrets.token_hex(32))'"


def secret_key_problem(key: str | None) -> str | None:
    """Why ``key`` must not sign anything (with the fix), or None."""
    if not key:
        return f"PBEM_SECRET_KEY is empty. Fix: {FIX}, or unset it to have one generated in the instance folder"
    if key.strip() in PLACEHOLDERS:
        return f"PBEM_SECRET_KEY still holds the example's placeholder. Fix: {FIX}"
    if len(key) < MIN_SECRET_LENGTH:
        return (
            f"PBEM_SECRET_KEY has {len(key)} characters; at least {MIN_SECRET_LENGTH} are needed, since it signs "
            f"every link, reply address and session. Fix: {FIX}"
        )
    return None


def check_secret_key(key: str | None) -> None:
    """Stop a server before it starts: a :class:`~pbem.config.ConfigError` naming the problem and its fix."""
    problem = secret_key_problem(key)
    if problem:
        raise ConfigError(problem)
