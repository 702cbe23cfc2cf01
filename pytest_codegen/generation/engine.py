"""The generation engine: many requests in flight, a persistent cache, no duplicate work.

Generation is I/O-bound, so the engine keeps many requests in flight in its own threads: up
to ``concurrency`` for the whole run, however many pytest-xdist workers grade the samples (the
budget of :mod:`pytest_codegen.generation.budget`, which also adapts to 429s). Every worker
collects (and prefetches) all items but runs only some; the workers share the work through
the cache directory: the disk cache and its claims (:mod:`pytest_codegen.generation.cache`)
make each sample generated once, and the rate limit (:mod:`pytest_codegen.generation.ratelimit`)
and the budget of requests in flight are shared by every local process of the run. Samples go
out to the model in batches (:mod:`pytest_codegen.generation.batching`).
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..models.base import UNBOUNDED, Completion, Model, SamplingParams, merge_params
from ..sample_text import visible
from .batching import Batch, BatchSender, Slot, batches_of, fail, resolve
from .budget import ENGINE_CLOSED, budget_for
from .cache import Claim, DiskCache, cache_key
from .claim_watch import ClaimWatcher, take_recorded_error
from .counters import GenerationCounters
from .jobs import Job
from .ratelimit import RateLimit, bucket_for


class GenerationEngine:
    """Generates samples concurrently, caches them, and shares work between processes.

    ``since`` matters with ``regenerate=True``: entries written at or after it count as
    fresh (written by a sibling worker of the same run) instead of being generated again.
    It defaults to the engine's creation; an xdist controller can hand its start time to
    the workers. It also names the run whose processes share one budget of ``concurrency``
    requests in flight (through the disk cache; without one the budget is this engine's).
    """

    def __init__(
        self,
        model: Model,
        *,
        cache_dir: Path | None,
        concurrency: int = 16,
        regenerate: bool = False,
        rate_limit: RateLimit | None = None,
        claim_timeout_s: float = 900.0,
        poll_interval_s: float = 0.05,
        since: float | None = None,
    ) -> None:
        self.model = model
        self.concurrency = max(1, concurrency)
        self.regenerate = regenerate
        self.since = time.time() if since is None else since
        self.cache = (
            DiskCache(Path(cache_dir)) if cache_dir is not None and model.cacheable else None
        )
        self._max_n = max(1, int(getattr(model, "max_n", 1) or 1))
        self._defaults = getattr(model, "defaults", None)
        if not isinstance(self._defaults, SamplingParams):
            self._defaults = None
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._slots: dict[str, Slot] = {}
        self._queue: collections.deque[Batch] = collections.deque()
        self._workers: list[threading.Thread] = []
        self._idle = 0  # worker threads not running a batch
        self._stop = threading.Event()
        self._closed = False
        self.counters = GenerationCounters()
        self._claim_watcher = (
            ClaimWatcher(
                self.cache,
                self.counters,
                self._resolve_from_cache,
                self._enqueue_front,
                self._stop,
                poll_interval_s=poll_interval_s,
                claim_timeout_s=claim_timeout_s,
            )
            if self.cache is not None
            else None
        )
        shared = self.cache.root if self.cache is not None else None
        self._budget = budget_for(model.spec, self.concurrency, shared, self.since, self._stop)
        # An HTTP model takes a slot for each exchange (none while it waits to retry, and it
        # knows a 429 when it sees one); any other model is bounded around its calls.
        limit_in_flight = getattr(model, "limit_in_flight", None)
        if limit_in_flight is not None:
            limit_in_flight(self._budget, self.concurrency)
        self._sender = BatchSender(
            model,
            self.cache,
            bucket_for(model.spec, getattr(model, "endpoint", None), rate_limit, cache_dir),
            UNBOUNDED if limit_in_flight is not None else self._budget,
            self._stop,
            self.counters.add,
        )

    # -- public API

    def key(self, job: Job) -> str:
        params = merge_params(self._defaults, job.params)
        endpoint = getattr(self.model, "endpoint", None)
        return cache_key(
            self.model.spec, params, job.prompt, job.sample_index, job.repair_round, endpoint
        )

    def prefetch(self, jobs: Iterable[Job]) -> None:
        """Start generating ``jobs`` in the background, batched by problem and prompt."""
        fresh_after = self.since if self.regenerate else None
        new: list[tuple[Slot, bool]] = []
        seen: set[str] = set()
        for job in jobs:
            key = self.key(job)
            if key in seen:
                continue
            seen.add(key)
            on_disk = self.cache is not None and self.cache.exists(key, fresh_after)
            new.append((Slot(key, job), on_disk))
        to_request: list[Slot] = []
        with self._lock:
            self._check_open()
            for slot, on_disk in new:
                if slot.key in self._slots:
                    continue
                self._slots[slot.key] = slot
                if on_disk:
                    slot.on_disk = True
                    continue
                to_request.append(slot)
            self._queue.extend(batches_of(to_request, self._max_n))
            if self._queue:
                self._start_workers()
                self._wakeup.notify_all()
        planned = getattr(self.model, "planned", None)
        if planned is not None and to_request:  # the model may say why it takes one a request
            per_prompt = collections.Counter((s.job.problem.id, s.job.prompt) for s in to_request)
            planned(max(per_prompt.values()))

    def get(self, job: Job) -> Completion:
        """The completion of ``job``: from the cache, in flight, or generated now."""
        key = self.key(job)
        run: Batch | None = None
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                self._check_open()
                slot = self._slots[key] = Slot(key, job)
                run = slot.batch = Batch([slot], started=True)
            elif slot.on_disk:
                slot.on_disk = False
                if not slot.future.done():
                    run = slot.batch = Batch([slot], started=True)  # reads the entry first
            elif slot.batch is not None and not slot.batch.started:
                if self._closed:
                    raise RuntimeError("generation engine is closed")
                # Still queued: run it in this thread rather than wait behind the queue.
                slot.batch.started = True
                run = slot.batch
        if run is not None:
            self._run_batch(run)
        return slot.future.result()

    def stats(self) -> dict[str, Any]:
        """Counters of this process, JSON-safe.

        ``requests`` (calls to the model), ``samples_generated``, ``cache_hits`` (entries
        from earlier runs), ``shared`` (samples another process generated during this run),
        ``errors``, ``prompt_tokens``, ``completion_tokens``, ``request_latency_s`` and
        ``sample_latency_s`` (sums), ``rate_limit_wait_s`` and ``claim_timeouts``; ``notes``
        (when there are any) lists what the model adapted or learned.
        """
        out = self.counters.snapshot()
        # A note may quote a provider's error answer: shown on the terminal, sent by workers.
        notes = [visible(str(line)) for line in getattr(self.model, "notes", None) or ()]
        lowest = self._budget.lowest()
        if lowest is not None:  # the same line from every process: the state is the run's
            notes.append(
                f"{self.model.spec}: 429s cut the requests in flight from {self.concurrency} "
                f"to {lowest} at the lowest"
            )
        cool_downs = self._budget.cool_downs()
        if cool_downs:  # a provider's wait held every request of the run, not one
            notes.append(
                f"{self.model.spec}: {cool_downs} 429s asked every request to wait "
                "(Retry-After, retryDelay or a rate limit's reset)"
            )
        if notes:  # what the model adapted or learned, one line each, for the summary
            out["notes"] = notes
        return out

    def close(self, wait: bool = True) -> None:
        """Cancel what has not started, stop every thread; with ``wait``, once the running
        requests are answered (their answers are cached). An interrupted run does not wait:
        a provider that holds a request would keep Ctrl-C from ending the run; the request's
        threads are left to the process's end, and a rerun asks for its samples again.

        The model stays open: whoever built it closes it.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stop.set()
            queued = [b for b in self._queue if not b.started]
            self._queue.clear()
            self._wakeup.notify_all()
            threads = list(self._workers)
        self._budget.wake()  # requests still waiting for a slot give up
        closed = RuntimeError(ENGINE_CLOSED)
        for batch in queued:
            for claim in batch.held.values():
                claim.release()
            for slot in batch.slots:
                fail(slot, closed)
        if self._claim_watcher is not None:
            self._claim_watcher.close(closed)
        for thread in threads if wait else ():
            thread.join()
        self._budget.close()
        limit_in_flight = getattr(self.model, "limit_in_flight", None)
        if limit_in_flight is not None:
            limit_in_flight(UNBOUNDED)

    def __enter__(self) -> GenerationEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- threads

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("generation engine is closed")

    def _start_workers(self) -> None:
        # Called with the lock held. As many threads as the queue needs, up to the budget of
        # the whole run (all of it may be this process's when the others are done).
        while len(self._workers) < self.concurrency and self._idle < len(self._queue):
            thread = threading.Thread(
                target=self._work, name=f"codegen-generate-{len(self._workers)}", daemon=True
            )
            self._workers.append(thread)
            self._idle += 1
            thread.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._wakeup.wait()
                if self._closed:
                    return
                batch = self._queue.popleft()
                if batch.started:
                    continue
                batch.started = True
                self._idle -= 1
            try:
                self._run_batch(batch)
            finally:
                with self._lock:
                    self._idle += 1

    def _enqueue_front(self, batch: Batch) -> None:
        with self._lock:
            if self._closed:
                for claim in batch.held.values():
                    claim.release()
                for slot in batch.slots:
                    fail(slot, RuntimeError("generation engine closed"))
                return
            for slot in batch.slots:
                slot.batch = batch
            self._queue.appendleft(batch)
            self._start_workers()
            self._wakeup.notify_all()

    # -- generation

    def _fresh_after(self) -> float | None:
        return self.since if self.regenerate else None

    def _resolve_from_cache(self, slot: Slot) -> bool:
        if self.cache is None:
            return False
        found = self.cache.read(slot.key, self._fresh_after())
        if found is None:
            return False
        completion, mtime = found
        before_run = mtime < self.since
        self.counters.add(**({"cache_hits": 1} if before_run else {"shared": 1}))
        resolve(slot, dataclasses.replace(completion, cached=before_run))
        return True

    def _run_batch(self, batch: Batch) -> None:
        try:
            self._run_batch_inner(batch)
        except BaseException as e:  # never leave a caller waiting forever
            for claim in batch.held.values():
                claim.release()
            for slot in batch.slots:
                fail(slot, e)
            if not isinstance(e, Exception):
                raise

    def _run_batch_inner(self, batch: Batch) -> None:
        todo = [s for s in batch.slots if not s.future.done()]
        if self.cache is None:
            self._sender.send([(s, None) for s in todo])
            return
        assert self._claim_watcher is not None
        mine: list[tuple[Slot, Claim | None]] = []
        for slot in todo:
            claim = batch.held.pop(slot.key, None)
            if claim is None and self._resolve_from_cache(slot):
                continue
            if claim is None and not batch.force:
                claim = self.cache.try_claim(slot.key)
                if claim is None:
                    self._claim_watcher.wait_for(slot)
                    continue
                # Re-read under the claim: the holder before us may have just written it.
                if self._resolve_from_cache(slot):
                    claim.release(remove=True)
                    continue
                # Or a sibling of this run asked for it and got an API error.
                if take_recorded_error(self.cache, slot, claim, newer_than=self.since):
                    continue
            mine.append((slot, claim))
        if mine:
            self._sender.send(mine)
