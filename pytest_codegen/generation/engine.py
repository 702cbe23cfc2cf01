"""The generation engine: many requests in flight, a persistent cache, no duplicate work.

Generation is I/O-bound, so the engine keeps up to ``concurrency`` requests in flight in its
own threads, independent of how many pytest-xdist workers grade the samples. Every worker
collects (and prefetches) all items but runs only some; the workers share the work through
the cache directory:

* **Cache.** One JSON file per sample, named by :func:`cache_key` (sha256 of the model spec,
  the effective sampling parameters, the prompt, the system message and the sample index),
  written to a temporary file and ``os.replace``-d into place, so a reader never sees a torn
  entry. Error completions are never cached: a rerun retries them.
* **Claims.** Before requesting a sample a process takes an exclusive, non-blocking
  ``flock`` on ``claims/<key>.lock`` and checks the cache again (the entry may have appeared
  meanwhile). The kernel drops the lock when its holder exits, so a killed worker leaves no
  stale claim behind. A process that finds a sample claimed waits for the entry instead;
  if the holder gives up without one (an API error) the waiter takes the holder's error note,
  and if the holder dies the waiter claims the sample itself. After ``claim_timeout_s`` a
  waiter generates regardless.
* **Rate limit.** :class:`RateLimit` is a token bucket whose state lives in a small file
  under a file lock in the cache directory, so all processes on the machine share it.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, InvalidStateError
from pathlib import Path
from typing import Any

import filelock

from ..cachedir import atomic_write
from ..models.base import (
    Completion,
    GenerationRequest,
    Model,
    ModelError,
    Prompt,
    SamplingParams,
    merge_params,
)
from ..problems import Problem

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

CACHE_FORMAT = 1


@dataclasses.dataclass(frozen=True)
class Job:
    """One sample to generate: sample ``sample_index`` of ``problem`` for ``prompt``."""

    problem: Problem
    prompt: Prompt
    sample_index: int
    params: SamplingParams = SamplingParams()


@dataclasses.dataclass(frozen=True)
class RateLimit:
    """Requests and tokens per minute allowed for one model, across all local processes."""

    requests_per_minute: float | None = None
    tokens_per_minute: float | None = None


def cache_key(spec: str, params: SamplingParams, prompt: Prompt, sample_index: int) -> str:
    """The cache key of one sample; ``params`` are the effective (merged) parameters."""
    material = {
        "format": CACHE_FORMAT,
        "model": spec,
        "params": params.as_dict(),
        "prompt": prompt.text,
        "system": prompt.system,
        "sample": sample_index,
    }
    blob = json.dumps(material, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


# --------------------------------------------------------------------------- disk cache


def _lock_fd(fd: int) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # pragma: no cover - Windows
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


class _Claim:
    """An exclusive lock on one sample, held while this process generates it."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd: int | None = fd

    def release(self, remove: bool = False) -> None:
        if self.fd is None:
            return
        if remove:
            # Safe only once the entry exists: whoever locks the old file re-reads the cache.
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.close(self.fd)  # closing drops the flock
        self.fd = None


class DiskCache:
    """Entries at ``<root>/<key[:2]>/<key>.json``; claims and error notes in ``claims/``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.claims = self.root / "claims"
        self.claims.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def exists(self, key: str, fresh_after: float | None = None) -> bool:
        try:
            mtime = self.path(key).stat().st_mtime
        except OSError:
            return False
        return fresh_after is None or mtime >= fresh_after

    def read(self, key: str, fresh_after: float | None = None) -> tuple[Completion, float] | None:
        """The entry's completion and mtime, or None (absent, stale, or unreadable)."""
        path = self.path(key)
        try:
            mtime = path.stat().st_mtime
            if fresh_after is not None and mtime < fresh_after:
                return None
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("key") != key or not isinstance(data.get("completion"), dict):
                return None
            return Completion.from_json(data["completion"]), mtime
        except (OSError, ValueError, TypeError, AttributeError):
            return None

    def write(self, key: str, job: Job, spec: str, completion: Completion) -> None:
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "model": spec,
            "problem": job.problem.id,
            "sample_index": job.sample_index,
            "created": time.time(),
            "completion": dataclasses.replace(completion, cached=False).to_json(),
        }
        atomic_write(self.path(key), json.dumps(entry, ensure_ascii=False))
        with contextlib.suppress(OSError):
            os.unlink(self.claims / f"{key}.err")

    def try_claim(self, key: str) -> _Claim | None:
        path = self.claims / f"{key}.lock"
        for _ in range(5):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                # No way to coordinate (read-only or vanished directory): generate
                # uncoordinated rather than fail the sample.
                return _Claim(path, None)
            if not _lock_fd(fd):
                os.close(fd)
                return None
            # The holder may have removed the file between our open and lock: then we hold a
            # lock nobody else can see, so start over on the current file.
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except OSError:
                same = False
            if same:
                return _Claim(path, fd)
            os.close(fd)
        return None

    def write_error(self, key: str, completion: Completion) -> None:
        """Leave an API error for processes waiting on this sample (never read as a hit)."""
        with contextlib.suppress(OSError):
            atomic_write(self.claims / f"{key}.err", json.dumps(completion.to_json()))

    def read_error(self, key: str, newer_than: float) -> Completion | None:
        path = self.claims / f"{key}.err"
        try:
            if path.stat().st_mtime < newer_than:
                return None
            return Completion.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None


# --------------------------------------------------------------------------- rate limit


ENGINE_CLOSED = "generation engine closed before this sample was generated"


class _TokenBucket:
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
        self._lock = threading.Lock()  # one FileLock instance must not be shared by threads
        self._file_lock = (
            filelock.FileLock(f"{state_file}.lock", thread_local=False) if state_file else None
        )
        self._memory: dict[str, float] = {}

    @contextlib.contextmanager
    def _state(self) -> Iterator[dict[str, float]]:
        with self._lock, self._file_lock or contextlib.nullcontext():
            state = self._load()
            # The monotonic clock is one for every process of the machine, and a step of the
            # wall clock (time sync, a resumed VM) must not refill or drain the buckets.
            now = time.monotonic()
            elapsed = max(0.0, now - state.get("t", now))
            for name, rate in self._rates.items():
                cap = self._caps[name]
                state[name] = min(cap, state.get(name, cap) + elapsed * rate)
            state["t"] = now
            yield state
            self._save(state)

    def _load(self) -> dict[str, float]:
        if self.state_file is None:
            return dict(self._memory)
        try:
            data = json.loads(self.state_file.read_text(encoding="utf-8"))
            return {k: float(v) for k, v in data.items()}
        except (OSError, ValueError, TypeError, AttributeError):
            return {}  # absent or unreadable: start with full buckets

    def _save(self, state: dict[str, float]) -> None:
        if self.state_file is None:
            self._memory = dict(state)
            return
        with contextlib.suppress(OSError):
            atomic_write(self.state_file, json.dumps(state))

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


# --------------------------------------------------------------------------- engine


class _Slot:
    """One sample known to this engine: its job and the future of its completion."""

    __slots__ = ("key", "job", "future", "on_disk", "batch")

    def __init__(self, key: str, job: Job) -> None:
        self.key = key
        self.job = job
        self.future: Future[Completion] = Future()
        self.on_disk = False  # a cache entry existed at prefetch; read it on demand
        self.batch: _Batch | None = None


@dataclasses.dataclass(eq=False)
class _Batch:
    """Samples of one (problem, prompt, params) to request together."""

    slots: list[_Slot]
    started: bool = False
    held: dict[str, _Claim] = dataclasses.field(default_factory=dict)  # claims already taken
    force: bool = False  # the claim wait timed out: generate regardless


@dataclasses.dataclass(eq=False)
class _Wait:
    slot: _Slot
    since: float  # wall clock, compared with file mtimes
    deadline: float  # monotonic


class GenerationEngine:
    """Generates samples concurrently, caches them, and shares work between processes.

    ``since`` matters with ``regenerate=True``: entries written at or after it count as
    fresh (written by a sibling worker of the same run) instead of being generated again.
    It defaults to the engine's creation; an xdist controller can hand its start time to
    the workers.
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
        self.claim_timeout_s = claim_timeout_s
        self.poll_interval_s = poll_interval_s
        self.since = time.time() if since is None else since
        self.cache = (
            DiskCache(Path(cache_dir)) if cache_dir is not None and model.cacheable else None
        )
        self._max_n = max(1, int(getattr(model, "max_n", 1) or 1))
        self._defaults = getattr(model, "defaults", None)
        if not isinstance(self._defaults, SamplingParams):
            self._defaults = None
        self._bucket: _TokenBucket | None = None
        if rate_limit is not None and (
            rate_limit.requests_per_minute or rate_limit.tokens_per_minute
        ):
            state = None
            if cache_dir is not None:
                name = hashlib.sha256(model.spec.encode("utf-8")).hexdigest()[:16]
                state = Path(cache_dir) / "ratelimit" / f"{name}.json"
                state.parent.mkdir(parents=True, exist_ok=True)
            self._bucket = _TokenBucket(rate_limit, state)
        # Bounds requests in flight: the worker threads, plus a caller that runs a queued
        # sample itself rather than wait behind the queue, share these slots.
        self._in_flight = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)
        self._slots: dict[str, _Slot] = {}
        self._queue: collections.deque[_Batch] = collections.deque()
        self._waiting: dict[str, _Wait] = {}
        self._workers: list[threading.Thread] = []
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()
        self._closed = False
        self._stats_lock = threading.Lock()
        self._stats: dict[str, float] = {
            "requests": 0,
            "samples_generated": 0,
            "cache_hits": 0,
            "shared": 0,
            "errors": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "request_latency_s": 0.0,
            "sample_latency_s": 0.0,
            "rate_limit_wait_s": 0.0,
            "claim_timeouts": 0,
        }

    # -- public API

    def key(self, job: Job) -> str:
        params = merge_params(self._defaults, job.params)
        return cache_key(self.model.spec, params, job.prompt, job.sample_index)

    def prefetch(self, jobs: Iterable[Job]) -> None:
        """Start generating ``jobs`` in the background, batched by problem and prompt."""
        fresh_after = self.since if self.regenerate else None
        new: list[tuple[_Slot, bool]] = []
        seen: set[str] = set()
        for job in jobs:
            key = self.key(job)
            if key in seen:
                continue
            seen.add(key)
            on_disk = self.cache is not None and self.cache.exists(key, fresh_after)
            new.append((_Slot(key, job), on_disk))
        groups: dict[tuple[str, Prompt, SamplingParams], list[_Slot]] = {}
        with self._lock:
            self._check_open()
            for slot, on_disk in new:
                if slot.key in self._slots:
                    continue
                self._slots[slot.key] = slot
                if on_disk:
                    slot.on_disk = True
                    continue
                job = slot.job
                groups.setdefault((job.problem.id, job.prompt, job.params), []).append(slot)
            for slots in groups.values():
                for i in range(0, len(slots), self._max_n):
                    batch = _Batch(slots[i : i + self._max_n])
                    for slot in batch.slots:
                        slot.batch = batch
                    self._queue.append(batch)
            if self._queue:
                self._start_workers()
                self._wakeup.notify_all()

    def get(self, job: Job) -> Completion:
        """The completion of ``job``: from the cache, in flight, or generated now."""
        key = self.key(job)
        run: _Batch | None = None
        with self._lock:
            slot = self._slots.get(key)
            if slot is None:
                self._check_open()
                slot = self._slots[key] = _Slot(key, job)
                run = slot.batch = _Batch([slot], started=True)
            elif slot.on_disk:
                slot.on_disk = False
                if not slot.future.done():
                    run = slot.batch = _Batch([slot], started=True)  # reads the entry first
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
        ``sample_latency_s`` (sums), ``rate_limit_wait_s`` and ``claim_timeouts``.
        """
        with self._stats_lock:
            out: dict[str, Any] = dict(self._stats)
        for name in ("request_latency_s", "sample_latency_s", "rate_limit_wait_s"):
            out[name] = round(out[name], 6)
        for name, value in out.items():
            if isinstance(value, float) and value.is_integer() and not name.endswith("_s"):
                out[name] = int(value)
        return out

    def close(self) -> None:
        """Cancel what has not started, wait for running requests, stop every thread.

        The model stays open: whoever built it closes it.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stop.set()
            queued = [b for b in self._queue if not b.started]
            self._queue.clear()
            waits = list(self._waiting.values())
            self._waiting.clear()
            self._wakeup.notify_all()
            threads = [*self._workers, *([self._watcher] if self._watcher else [])]
        closed = RuntimeError(ENGINE_CLOSED)
        for batch in queued:
            for claim in batch.held.values():
                claim.release()
            for slot in batch.slots:
                _fail(slot, closed)
        for wait in waits:
            _fail(wait.slot, closed)
        for thread in threads:
            thread.join()

    def __enter__(self) -> GenerationEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- threads

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("generation engine is closed")

    def _start_workers(self) -> None:
        # Called with the lock held.
        while len(self._workers) < self.concurrency:
            thread = threading.Thread(
                target=self._work, name=f"codegen-generate-{len(self._workers)}", daemon=True
            )
            self._workers.append(thread)
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
            self._run_batch(batch)

    def _enqueue_front(self, batch: _Batch) -> None:
        with self._lock:
            if self._closed:
                for claim in batch.held.values():
                    claim.release()
                for slot in batch.slots:
                    _fail(slot, RuntimeError("generation engine closed"))
                return
            for slot in batch.slots:
                slot.batch = batch
            self._queue.appendleft(batch)
            self._start_workers()
            self._wakeup.notify_all()

    def _watch(self) -> None:
        """Poll samples other processes are generating until each one is settled."""
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
                if self._settle_wait(wait):
                    progressed = True
                    with self._lock:
                        self._waiting.pop(wait.slot.key, None)
            # Poll fast while entries arrive, slower while the other process is busy.
            interval = self.poll_interval_s if progressed else min(interval * 1.5, 0.5)
            if self._stop.wait(interval):
                return

    def _settle_wait(self, wait: _Wait) -> bool:
        assert self.cache is not None
        slot = wait.slot
        if self._resolve_from_cache(slot):
            return True
        claim = self.cache.try_claim(slot.key)
        if claim is not None:  # the holder is done (or died) without an entry we saw
            if self._resolve_from_cache(slot):
                claim.release(remove=True)
                return True
            error = self.cache.read_error(slot.key, newer_than=wait.since - 1)
            if error is not None:
                claim.release()
                self._count(errors=1)
                _resolve(slot, error)
                return True
            self._enqueue_front(_Batch([slot], held={slot.key: claim}))
            return True
        if time.monotonic() > wait.deadline:
            self._count(claim_timeouts=1)
            self._enqueue_front(_Batch([slot], force=True))
            return True
        return False

    # -- generation

    def _fresh_after(self) -> float | None:
        return self.since if self.regenerate else None

    def _resolve_from_cache(self, slot: _Slot) -> bool:
        if self.cache is None:
            return False
        found = self.cache.read(slot.key, self._fresh_after())
        if found is None:
            return False
        completion, mtime = found
        before_run = mtime < self.since
        self._count(**({"cache_hits": 1} if before_run else {"shared": 1}))
        _resolve(slot, dataclasses.replace(completion, cached=before_run))
        return True

    def _run_batch(self, batch: _Batch) -> None:
        try:
            self._run_batch_inner(batch)
        except BaseException as e:  # never leave a caller waiting forever
            for claim in batch.held.values():
                claim.release()
            for slot in batch.slots:
                _fail(slot, e)
            if not isinstance(e, Exception):
                raise

    def _run_batch_inner(self, batch: _Batch) -> None:
        todo = [s for s in batch.slots if not s.future.done()]
        if self.cache is None:
            self._generate([(s, None) for s in todo])
            return
        mine: list[tuple[_Slot, _Claim | None]] = []
        for slot in todo:
            claim = batch.held.pop(slot.key, None)
            if claim is None and self._resolve_from_cache(slot):
                continue
            if claim is None and not batch.force:
                claim = self.cache.try_claim(slot.key)
                if claim is None:
                    self._wait_for_other(slot)
                    continue
                # Re-read under the claim: the holder before us may have just written it.
                if self._resolve_from_cache(slot):
                    claim.release(remove=True)
                    continue
            mine.append((slot, claim))
        if mine:
            self._generate(mine)

    def _wait_for_other(self, slot: _Slot) -> None:
        wait = _Wait(slot, time.time(), time.monotonic() + self.claim_timeout_s)
        with self._lock:
            if self._closed:
                _fail(slot, RuntimeError("generation engine closed"))
                return
            self._waiting[slot.key] = wait
            if self._watcher is None:
                self._watcher = threading.Thread(
                    target=self._watch, name="codegen-claim-watcher", daemon=True
                )
                self._watcher.start()
            self._wakeup.notify_all()

    def _generate(self, mine: list[tuple[_Slot, _Claim | None]]) -> None:
        if not mine:
            return
        first = mine[0][0].job
        request = GenerationRequest(
            problem=first.problem,
            prompt=first.prompt,
            sample_indices=tuple(slot.job.sample_index for slot, _ in mine),
            params=first.params,
        )
        estimate = len(first.prompt.text + (first.prompt.system or "")) // 4
        if self._bucket is not None:
            waited = self._bucket.acquire(estimate, self._stop)
            if waited is None:  # closing: a request still waiting for its turn is cancelled
                _abandon(mine, RuntimeError(ENGINE_CLOSED))
                return
            self._count(rate_limit_wait_s=waited)
        try:
            with self._in_flight:
                start = time.monotonic()
                completions = list(self.model.generate(request))
                elapsed = time.monotonic() - start
            if len(completions) != len(mine):
                raise ModelError(
                    f"model {self.model.spec!r} returned {len(completions)} completions "
                    f"for {len(mine)} samples"
                )
        except BaseException as e:
            _abandon(mine, e)
            if not isinstance(e, Exception):
                raise
            return
        used = 0
        for (slot, claim), completion in zip(mine, completions, strict=True):
            used += (completion.prompt_tokens or 0) + (completion.completion_tokens or 0)
            self._count(
                samples_generated=1,
                errors=1 if completion.error else 0,
                prompt_tokens=completion.prompt_tokens or 0,
                completion_tokens=completion.completion_tokens or 0,
                sample_latency_s=completion.latency_s or 0.0,
            )
            stored = False
            if self.cache is not None:
                try:
                    if completion.error:
                        self.cache.write_error(slot.key, completion)
                    elif not completion.missing:
                        self.cache.write(slot.key, slot.job, self.model.spec, completion)
                        stored = True
                except OSError:
                    pass  # a full disk costs a cache entry, not the sample
            if claim is not None:
                claim.release(remove=stored)
            _resolve(slot, completion)
        self._count(requests=1, request_latency_s=elapsed)
        if self._bucket is not None and used:
            self._bucket.settle(used - estimate)

    def _count(self, **amounts: float) -> None:
        with self._stats_lock:
            for name, amount in amounts.items():
                self._stats[name] += amount


def _resolve(slot: _Slot, completion: Completion) -> None:
    with contextlib.suppress(InvalidStateError):
        slot.future.set_result(completion)


def _abandon(mine: list[tuple[_Slot, _Claim | None]], error: BaseException) -> None:
    """Release the claims of samples this process will not generate, and fail them."""
    for _, claim in mine:
        if claim is not None:
            claim.release()
    for slot, _ in mine:
        _fail(slot, error)


def _fail(slot: _Slot, error: BaseException) -> None:
    with contextlib.suppress(InvalidStateError):
        slot.future.set_exception(error)
