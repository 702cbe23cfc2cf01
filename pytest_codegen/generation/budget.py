"""Model requests in flight: one budget for every process of a run, adapted to 429s.

``--codegen-concurrency`` bounds the requests in flight of the whole run, whatever ``-n``
says: every process of the run on this machine takes its slots from one small state file
(:mod:`.filestate`, as the rate limit does), named after the model and the run's start. The
state counts the slots each process holds. A process shows it is alive by holding an
``flock`` on a file of its own, which the kernel drops when the process exits, so the slots
of a killed worker go back to the budget as soon as another process finds it full.

The limit adapts to the provider as TCP's window does to loss (additive increase,
multiplicative decrease): a request answered 429 halves it, once per round trip (only a
request sent after the last cut cuts again: those sent before it were sent under the higher
limit), and each request answered while the budget was full raises it by 1/limit, about one
request more per round trip, up to ``--codegen-concurrency``. A rate-limited provider is so
driven at the concurrency it accepts, probing one request above it now and then.

Waiting burns no CPU: the threads of a process wait on a condition, woken when their process
frees a slot; one of them at a time looks at the shared state every ``POLL_S`` for slots
that other processes freed.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..models.base import ANSWERED, THROTTLED, Admission
from .cache import lock_fd
from .filestate import SharedState

ENGINE_CLOSED = "generation engine closed before this sample was generated"


class InFlightBudget:
    """At most ``limit`` requests in flight across the processes sharing ``state_file`` (this
    process alone when None), fewer while the provider answers 429. Setting ``stop`` makes
    waiting requests give up."""

    POLL_S = 0.05  # how soon a slot freed by another process is seen
    IDLE_S = 1.0  # a thread woken by nothing looks again anyway
    CUT = 0.5  # the limit after a 429, as a fraction of the limit before
    RECLAIM_EVERY_S = 0.5  # how often a full budget checks for holders that died

    def __init__(self, limit: int, state_file: Path | None, stop: threading.Event) -> None:
        self.cap = max(1, limit)
        self._shared = SharedState(state_file)
        # Where each process holds the flock that shows it is alive.
        self._alive = state_file.with_suffix(".alive") if state_file is not None else None
        self._token = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._alive_fd: int | None = None
        self._stop = stop
        self._cond = threading.Condition()
        self._polling = False  # one waiting thread watches the shared state for the others
        self._reclaimed_at = -math.inf

    @contextlib.contextmanager
    def slot(self) -> Iterator[Admission]:
        """Room for one request while the block runs (see :class:`~..models.base.Gate`)."""
        sent = self.acquire()
        admission = Admission()
        try:
            yield admission
        finally:
            self.release(sent, admission.outcome)

    def acquire(self) -> float:
        """Wait for a slot; the monotonic time it was granted. ``RuntimeError`` when ``stop``
        is set first."""
        with self._cond:
            self._register()
            polling = False
            while True:
                if self._stop.is_set():
                    raise RuntimeError(ENGINE_CLOSED)
                sent = self._take()
                if sent is not None:
                    if polling:
                        self._polling = False
                        self._cond.notify()  # another waiter watches from now on
                    return sent
                if not self._polling:
                    self._polling = polling = True
                self._cond.wait(self.POLL_S if polling else self.IDLE_S)

    def try_acquire(self) -> float | None:
        """A slot if one is free now (as :meth:`acquire`), else None."""
        with self._cond:
            self._register()
            return self._take()

    def release(self, sent: float, outcome: str) -> None:
        """Give the slot granted at ``sent`` back: ``outcome`` is the request's
        (:class:`~..models.base.Admission`); a 429 cuts the limit, an answer raises it."""
        with self._shared.edit() as state:
            held = _held(state)
            full = sum(held.values()) >= int(self._limit(state))
            left = held.pop(self._token, 0) - 1
            if left > 0:
                held[self._token] = left
            limit = self._limit(state)
            if outcome == THROTTLED:
                if sent >= state.get("cut", -math.inf):
                    state["cut"] = time.monotonic()
                    limit = max(1.0, limit * self.CUT)
                    state["lowest"] = int(min(limit, state.get("lowest", limit)))
            elif outcome == ANSWERED and full:
                # Only a limit in use has shown it is not too high: grown while idle, it
                # would let the next burst far past what the provider takes.
                limit = min(float(self.cap), limit + 1 / limit)
            state["limit"] = limit
        with self._cond:
            self._cond.notify()

    def limit(self) -> float:
        """The limit now (fractional: it grows by fractions of a request)."""
        with self._shared.edit() as state:
            return self._limit(state)

    def lowest(self) -> int | None:
        """The lowest limit 429s cut it to in this run; None if they never did."""
        with self._shared.edit() as state:
            lowest = state.get("lowest")
        return lowest if isinstance(lowest, int) else None

    def wake(self) -> None:
        """Wake every waiting thread (to see ``stop``)."""
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        """Leave the budget: this process holds nothing from now on."""
        self.wake()
        with contextlib.suppress(OSError), self._shared.edit() as state:
            _held(state).pop(self._token, None)
        if self._alive_fd is not None and self._alive is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._alive / self._token)
            os.close(self._alive_fd)
            self._alive_fd = None

    # -- state

    def _limit(self, state: dict[str, Any]) -> float:
        limit = state.get("limit")
        if not isinstance(limit, (int, float)) or not limit >= 1:
            return float(self.cap)  # a new run's budget (or an unreadable one)
        return min(float(self.cap), float(limit))

    def _take(self) -> float | None:
        with self._shared.edit() as state:
            held = _held(state)
            room = int(self._limit(state))
            if sum(held.values()) >= room and self._alive is not None:
                now = time.monotonic()
                if now - self._reclaimed_at >= self.RECLAIM_EVERY_S:
                    self._reclaimed_at = now
                    for token in [t for t in held if t != self._token and not self._is_alive(t)]:
                        del held[token]  # its process died holding them
            if sum(held.values()) >= room:
                return None
            held[self._token] = held.get(self._token, 0) + 1
            return time.monotonic()

    def _register(self) -> None:
        """Hold this process's liveness lock (before any slot is counted for it)."""
        if self._alive_fd is not None or self._alive is None:
            return
        self._alive.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._alive / self._token, os.O_RDWR | os.O_CREAT, 0o644)
        lock_fd(fd)  # a fresh name: nobody else locks it but to test it
        self._alive_fd = fd

    def _is_alive(self, token: str) -> bool:
        assert self._alive is not None
        path = self._alive / token
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            return False
        except OSError:
            return True  # cannot tell: keep its slots
        try:
            if not lock_fd(fd):
                return True  # its holder still has it
            with contextlib.suppress(OSError):
                os.unlink(path)
            return False
        finally:
            os.close(fd)


def _held(state: dict[str, Any]) -> dict[str, int]:
    held = state.get("held")
    if not isinstance(held, dict) or not all(isinstance(n, int) for n in held.values()):
        held = state["held"] = {}
    return held


STALE_AFTER_S = 24 * 3600  # a run's budget untouched this long is gone


def budget_for(
    spec: str, limit: int, cache_dir: Path | None, run: float, stop: threading.Event
) -> InFlightBudget:
    """The budget of model ``spec`` in the run started at ``run`` (the same on every
    process of the run), kept under ``cache_dir`` when given."""
    if cache_dir is None:
        return InFlightBudget(limit, None, stop)
    folder = Path(cache_dir) / "in-flight"
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        _prune(folder)
    if not os.access(folder, os.W_OK | os.X_OK):  # a read-only cache: no way to share it
        return InFlightBudget(limit, None, stop)
    name = hashlib.sha256(f"{spec}\n{run:.6f}".encode()).hexdigest()[:16]
    return InFlightBudget(limit, folder / f"{name}.state", stop)


def _prune(folder: Path) -> None:
    """Remove the budgets of runs long over."""
    now = time.time()
    for state in folder.glob("*.state"):
        with contextlib.suppress(OSError):
            if now - state.stat().st_mtime > STALE_AFTER_S:
                state.unlink()
                Path(f"{state}.lock").unlink(missing_ok=True)
                shutil.rmtree(state.with_suffix(".alive"), ignore_errors=True)
