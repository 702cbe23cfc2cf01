"""Waiting for samples another process of the run is generating.

A process that finds a sample claimed by a sibling (see :mod:`pytest_codegen.generation.cache`)
does not request it too: it hands the sample to a :class:`ClaimWatcher`, whose one thread
polls the cache until the entry appears, the sibling records an error, the claim is freed
(the holder died: the sample is requeued here, under our own claim), or the wait times out
(requeued to be generated regardless).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .batching import Batch, Slot, Wait, fail, resolve
from .cache import Claim, DiskCache
from .counters import GenerationCounters


class ClaimWatcher:
    """Settles the samples this process waits for, in one thread started on first use.

    ``read_cached(slot)`` resolves a slot from the cache if its entry is there;
    ``requeue(batch)`` hands a batch back to the engine's queue, at its front.
    """

    def __init__(
        self,
        cache: DiskCache,
        counters: GenerationCounters,
        read_cached: Callable[[Slot], bool],
        requeue: Callable[[Batch], None],
        stop: threading.Event,
        *,
        poll_interval_s: float,
        claim_timeout_s: float,
    ) -> None:
        self.cache = cache
        self.counters = counters
        self.read_cached = read_cached
        self.requeue = requeue
        self.stop = stop
        self.poll_interval_s = poll_interval_s
        self.claim_timeout_s = claim_timeout_s
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._waiting: dict[str, Wait] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    def wait_for(self, slot: Slot) -> None:
        """Settle ``slot`` once its holder is done with it."""
        wait = Wait(slot, time.time(), time.monotonic() + self.claim_timeout_s)
        with self._lock:
            if self._closed:
                fail(slot, RuntimeError("generation engine closed"))
                return
            self._waiting[slot.key] = wait
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="codegen-claim-watcher", daemon=True
                )
                self._thread.start()
            self._wakeup.notify_all()

    def close(self, error: BaseException) -> None:
        """Fail every wait with ``error`` and stop the thread (``stop`` is already set)."""
        with self._lock:
            self._closed = True
            waits = list(self._waiting.values())
            self._waiting.clear()
            self._wakeup.notify_all()
            thread = self._thread
        for wait in waits:
            fail(wait.slot, error)
        if thread is not None:
            thread.join()

    def _watch(self) -> None:
        interval = self.poll_interval_s
        while True:
            with self._lock:
                while not self._waiting and not self._closed:
                    self._wakeup.wait()
                    interval = self.poll_interval_s
                if self._closed:
                    return
                waits = list(self._waiting.values())
            progressed = False
            for wait in waits:
                if self._settle(wait):
                    progressed = True
                    with self._lock:
                        self._waiting.pop(wait.slot.key, None)
            # Poll fast while entries arrive, slower while the other process is busy.
            interval = self.poll_interval_s if progressed else min(interval * 1.5, 0.5)
            if self.stop.wait(interval):
                return

    def _settle(self, wait: Wait) -> bool:
        slot = wait.slot
        if self.read_cached(slot):
            return True
        claim = self.cache.try_claim(slot.key)
        if claim is not None:  # the holder is done (or died) without an entry we saw
            if self.read_cached(slot):
                claim.release(remove=True)
                return True
            if take_recorded_error(self.cache, slot, claim, newer_than=wait.since - 1):
                return True
            self.requeue(Batch([slot], held={slot.key: claim}))
            return True
        if time.monotonic() > wait.deadline:
            self.counters.add(claim_timeouts=1)
            self.requeue(Batch([slot], force=True))
            return True
        return False


def take_recorded_error(cache: DiskCache, slot: Slot, claim: Claim, newer_than: float) -> bool:
    """Resolve ``slot`` with the API error another process of this run recorded for it (newer
    than ``newer_than``), letting go of ``claim``: that error is this run's answer, and asking
    the failing server again would send what a run without xdist does not. Not counted here:
    the process that asked counted it (a run's total is each failed sample once)."""
    error = cache.read_error(slot.key, newer_than=newer_than)
    if error is None:
        return False
    claim.release()
    resolve(slot, error)
    return True
