"""Log-in throttling, in process memory (per web worker process).

Failed log-ins are counted per client IP and per username in a sliding
window; past the limit, further attempts are refused before the password is
even checked.  Being in memory, each gunicorn worker counts separately and a
restart forgets the counts: a bound on guessing speed, not an account lock.
"""

from __future__ import annotations

import threading
import time
from collections import deque


class LoginLimiter:
    def __init__(self, per_user: int = 5, per_ip: int = 20, window: float = 900.0):
        self.per_user = per_user
        self.per_ip = per_ip
        self.window = window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        entries = self._failures.setdefault(key, deque())
        while entries and entries[0] <= now - self.window:
            entries.popleft()
        return entries

    def retry_after(self, ip: str, username: str, now: float | None = None) -> int:
        """Seconds until another attempt is allowed (0: allowed now)."""
        now = time.monotonic() if now is None else now
        waits = []
        with self._lock:
            for key, limit in ((f"ip:{ip}", self.per_ip), (f"user:{username.lower()}", self.per_user)):
                entries = self._recent(key, now)
                if len(entries) >= limit:
                    waits.append(int(entries[0] + self.window - now) + 1)
        return max(waits, default=0)

    def failed(self, ip: str, username: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            self._recent(f"ip:{ip}", now).append(now)
            self._recent(f"user:{username.lower()}", now).append(now)

    def succeeded(self, username: str) -> None:
        with self._lock:
            self._failures.pop(f"user:{username.lower()}", None)

    def reset(self) -> None:
        with self._lock:
            self._failures.clear()


limiter = LoginLimiter()
