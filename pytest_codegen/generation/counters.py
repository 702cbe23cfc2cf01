"""What one process's generation did, counted for the summary (and for the controller, which
adds up its workers')."""

from __future__ import annotations

import threading
from typing import Any

NAMES = (
    "requests",  # calls to the model
    "samples_generated",
    "cache_hits",  # entries from earlier runs
    "shared",  # samples another process generated during this run
    "errors",
    "prompt_tokens",
    "completion_tokens",
    "request_latency_s",  # sums
    "sample_latency_s",
    "rate_limit_wait_s",
    "claim_timeouts",
)


class GenerationCounters:
    """Counters any of the engine's threads adds to."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[str, float] = dict.fromkeys(NAMES, 0)

    def add(self, **amounts: float) -> None:
        with self._lock:
            for name, amount in amounts.items():
                self._counts[name] += amount

    def snapshot(self) -> dict[str, Any]:
        """The counts, JSON-safe: sums of seconds rounded, whole counts as ints."""
        with self._lock:
            out: dict[str, Any] = dict(self._counts)
        for name, value in out.items():
            if name.endswith("_s"):
                out[name] = round(value, 6)
            elif isinstance(value, float) and value.is_integer():
                out[name] = int(value)
        return out
