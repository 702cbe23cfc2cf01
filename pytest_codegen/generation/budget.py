"""Model requests in flight: one budget for every process of a run, adapted to 429s.

``--codegen-concurrency`` bounds the requests in flight of the whole run, whatever ``-n``
says: every process of the run on this machine takes its slots from one small state file
(:mod:`.filestate`, as the rate limit does), named after the model and the run's start. The
state counts the slots each process holds. A process shows it is alive by holding an
``flock`` on a file of its own, which the kernel drops when the process exits, so the slots
of a killed worker go back to the budget as soon as another process finds it full.

The limit adapts to the provider (:mod:`.congestion`): one cut per congestion event, not per
429, growth back while requests are answered, a cool-down that holds every request of the
run while the provider asks the key to wait, and pacing by the rate-limit headers the
provider sends. A rate-limited provider is so driven at the rate it accepts.

Waiting burns no CPU, and a freed slot goes out again at once: the threads of a process wait
in line, and only the first waits for the budget, on a condition its process notifies when it
frees a slot, looking at the shared state every ``POLL_S`` for slots other processes freed.
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

from ..models.base import Admission
from .cache import lock_fd
from .congestion import Grant, count_sent, limit_of, settle, wait_s
from .filestate import SharedState

ENGINE_CLOSED = "generation engine closed before this sample was generated"


class InFlightBudget:
    """At most ``limit`` requests in flight across the processes sharing ``state_file`` (this
    process alone when None), fewer while the provider answers 429. Setting ``stop`` makes
    waiting requests give up."""

    POLL_S = 0.05  # how soon a slot freed by another process is seen
    IDLE_S = 1.0  # how often a thread in line, or held back, looks again anyway
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
        self._line = threading.Lock()  # held by the thread of this process next to go
        self._reclaimed_at = -math.inf

    @contextlib.contextmanager
    def slot(self, tokens: float = 0.0) -> Iterator[Admission]:
        """Room for one request while the block runs (see :class:`~..models.base.Gate`)."""
        grant = self.acquire(tokens)
        admission = Admission()
        try:
            yield admission
        finally:
            self.release(grant, admission)

    def acquire(self, tokens: float = 0.0) -> Grant:
        """Wait for a slot (and for the provider's leave to send ``tokens`` tokens); what
        was granted. ``RuntimeError`` when ``stop`` is set first."""
        # The threads of this process wait in line: the first looks at the budget, the
        # others sleep until it has its slot. A hundred threads all woken by each freed
        # slot and taking turns at the state file delayed the next request by tens of ms.
        while not self._line.acquire(timeout=self.IDLE_S):
            if self._stop.is_set():
                raise RuntimeError(ENGINE_CLOSED)
        try:
            return self._acquire(tokens)
        finally:
            self._line.release()

    def _acquire(self, tokens: float) -> Grant:
        with self._cond:
            self._register()
            while True:
                if self._stop.is_set():
                    raise RuntimeError(ENGINE_CLOSED)
                grant = self._take(tokens)
                if isinstance(grant, Grant):
                    return grant
                # Held back for a while, whatever is freed meanwhile; or full: a slot freed
                # here wakes it, one freed by another process is seen within POLL_S.
                self._cond.wait(min(grant, self.IDLE_S) if grant is not None else self.POLL_S)

    def try_acquire(self, tokens: float = 0.0) -> Grant | None:
        """A slot if one is free now (as :meth:`acquire`), else None."""
        with self._cond:
            self._register()
            grant = self._take(tokens)
            return grant if isinstance(grant, Grant) else None

    def release(self, grant: Grant, outcome: str | Admission) -> None:
        """Give the slot of ``grant`` back, telling how its request ended (an outcome of
        :class:`~..models.base.Admission`, or the admission itself): the controller learns
        from it (:func:`.congestion.settle`)."""
        admission = outcome if isinstance(outcome, Admission) else Admission(outcome)
        with self._shared.edit() as state:
            held = _held(state)
            full = sum(held.values()) >= int(self._limit(state))
            left = held.pop(self._token, 0) - 1
            if left > 0:
                held[self._token] = left
            settle(state, grant, admission, full, self.cap, time.monotonic())
        with self._cond:
            self._cond.notify()  # the thread first in line looks again (a cool-down included)

    def limit(self) -> float:
        """The limit now (fractional: it grows by fractions of a request)."""
        with self._shared.edit() as state:
            return self._limit(state)

    def lowest(self) -> int | None:
        """The lowest limit 429s cut it to in this run; None if they never did."""
        with self._shared.edit() as state:
            lowest = state.get("lowest")
        return lowest if isinstance(lowest, int) else None

    def cool_downs(self) -> int:
        """How many times in this run a 429 asked every request of the key to wait."""
        with self._shared.edit() as state:
            count = state.get("cool_downs")
        return count if isinstance(count, int) else 0

    def wake(self) -> None:
        """Wake every waiting thread (to see ``stop``)."""
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        """Leave the budget: this process holds nothing from now on."""
        self.wake()
        with contextlib.suppress(OSError), self._shared.edit() as state:
            _held(state).pop(self._token, None)
        self._shared.close()
        if self._alive_fd is not None and self._alive is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._alive / self._token)
            os.close(self._alive_fd)
            self._alive_fd = None

    # -- state

    def _limit(self, state: dict[str, Any]) -> float:
        return limit_of(state, self.cap)

    def _take(self, tokens: float) -> Grant | float | None:
        """A slot, else the seconds to wait before the provider takes another request, else
        None (the budget is full)."""
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
            now = time.monotonic()
            wait = wait_s(state, now, tokens)
            if wait > 0:
                return wait
            held[self._token] = held.get(self._token, 0) + 1
            return count_sent(state, now, tokens)

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
