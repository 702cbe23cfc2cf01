"""Rate limits for model requests, shared by every process of the machine.

:class:`RateLimit` is a token bucket whose state lives in a small file under a file lock in
the cache directory (:mod:`.filestate`), so all processes on the machine share it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .filestate import SharedState


@dataclasses.dataclass(frozen=True)
class RateLimit:
    """Requests and tokens per minute allowed for one model, across all local processes."""

    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None


class TokenBucket:
    """Token buckets for requests and tokens; state in a file when a directory is given.

    Tokens are paid in advance from an estimate and settled once the real usage is known,
    so the balance may go negative and later requests wait for it to refill.
    """

    BURST_S = 1.0  # allow one second's worth at once: providers smooth their minute windows

    def __init__(self, limit: RateLimit, state_file: Path | None) -> None:
        self.state_file = state_file
        # Per-second refill rate and capacity of each bucket that is limited.
        self._rates: dict[str, float] = {}
        if limit.requests_per_minute:
            self._rates["requests"] = limit.requests_per_minute / 60
        if limit.tokens_per_minute:
            self._rates["tokens"] = limit.tokens_per_minute / 60
        self._caps = {name: max(1.0, rate * self.BURST_S) for name, rate in self._rates.items()}
        self._shared = SharedState(state_file)

    @contextlib.contextmanager
    def _state(self) -> Iterator[dict[str, float]]:
        with self._shared.edit() as state:
            if not all(isinstance(v, (int, float)) for v in state.values()):
                state.clear()  # unreadable: start with full buckets
            # The monotonic clock is one for every process of the machine, and a step of the
            # wall clock (time sync, a resumed VM) must not refill or drain the buckets.
            now = time.monotonic()
            elapsed = max(0.0, now - state.get("t", now))
            for name, rate in self._rates.items():
                cap = self._caps[name]
                state[name] = min(cap, state.get(name, cap) + elapsed * rate)
            state["t"] = now
            yield state

    def acquire(self, tokens: float, stop: threading.Event) -> float | None:
        """Take one request and ``tokens`` (estimated); returns the seconds spent waiting, or
        None when ``stop`` was set first (nothing taken: the request must not be sent)."""
        cost = {"requests": 1.0, "tokens": float(tokens)}
        waited = 0.0
        while True:
            with self._state() as state:
                # A cost above the capacity could never fit: wait for a full bucket instead.
                need = {name: min(cost[name], self._caps[name]) for name in self._rates}
                wait = max([(need[n] - state[n]) / self._rates[n] for n in self._rates] + [0.0])
                if wait <= 0:
                    for name in self._rates:
                        state[name] -= cost[name]
                    return waited
            step = min(wait, 1.0)  # re-check: other processes share the bucket
            if stop.wait(step):
                return None
            waited += step

    def settle(self, tokens: float) -> None:
        """Charge the difference between real and estimated usage (may be a refund)."""
        if "tokens" in self._rates and tokens:
            with self._state() as state:
                state["tokens"] -= tokens


def bucket_for(
    spec: str, endpoint: str | None, limit: RateLimit | None, cache_dir: Path | None
) -> TokenBucket | None:
    """The bucket of model ``spec`` at ``endpoint`` (its ``--codegen-base-url``; None: the
    provider's own), kept under ``cache_dir`` (when given) for every process that shares
    it; None when ``limit`` limits nothing. Two servers of one model are limited apart."""
    if limit is None or not (limit.requests_per_minute or limit.tokens_per_minute):
        return None
    state = None
    if cache_dir is not None:
        key = spec if endpoint is None else f"{spec}\n{endpoint}"
        name = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
        state = Path(cache_dir) / "ratelimit" / f"{name}.json"
        state.parent.mkdir(parents=True, exist_ok=True)
    return TokenBucket(limit, state)
