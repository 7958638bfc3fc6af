"""Gunicorn's access log without secrets: see :mod:`pbem.logmask` (kept importable here)."""

from __future__ import annotations

from pbem.logmask import LOGGER_CLASS, MASK, MaskingLogger, mask

__all__ = ["LOGGER_CLASS", "MASK", "MaskingLogger", "mask"]
