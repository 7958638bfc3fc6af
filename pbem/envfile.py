"""The instance's environment file: ``PBEM_*`` settings every command of the instance reads.

``pbem.env`` in the instance folder (or the file ``PBEM_ENV_FILE`` names) holds
``NAME=VALUE`` lines, the format of a systemd unit's ``EnvironmentFile=``, so one
file serves the units and the commands an admin types.  A value may be quoted;
``export NAME=VALUE`` is read too, so a file written for the shell works as well.
A variable set in the real environment wins over the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: The file's name inside the instance folder.
FILE_NAME = "pbem.env"
_LINE = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$")


class EnvFileError(ValueError):
    """A line of the file that is not ``NAME=VALUE``; the message names the file and the line."""


def env_file_path(instance: Path) -> Path | None:
    """``PBEM_ENV_FILE`` if set, else the instance's ``pbem.env`` if there is one."""
    named = os.environ.get("PBEM_ENV_FILE")
    if named:
        return Path(named).expanduser()
    path = instance / FILE_NAME
    return path if path.is_file() else None


def parse(text: str, where: str = "the environment file") -> dict[str, str]:
    """``NAME=VALUE`` lines; blank lines and ``#`` comments are skipped."""
    values: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        match = _LINE.match(line)
        if match is None:
            raise EnvFileError(f"{where}, line {number}: {line[:60]!r} is not NAME=VALUE")
        name, value = match.groups()
        values[name] = _unquote(value.strip(), where, number)
    return values


def _unquote(value: str, where: str, number: int) -> str:
    """A quoted value loses its quotes; an unquoted one loses a trailing `` # comment``."""
    if value[:1] in ("'", '"'):
        quote = value[0]
        end = value.find(quote, 1)
        if end < 0:
            raise EnvFileError(f"{where}, line {number}: the value opens a {quote} quote and never closes it")
        return value[1:end]
    return re.split(r"\s+#", value, maxsplit=1)[0].strip()


def read(instance: Path) -> tuple[Path | None, dict[str, str]]:
    """The file read for ``instance`` (or None) and its values."""
    path = env_file_path(instance)
    if path is None:
        return None, {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise EnvFileError(f"cannot read the environment file {path} ({error.strerror or error})") from None
    return path, parse(text, str(path))
