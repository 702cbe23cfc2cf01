"""Request batching for the generation engine: samples grouped into batches, and a batch
sent to the model as one request.

Samples of the same problem, prompt and parameters go out together, up to the model's
``max_n`` per request. :class:`BatchSender` sends one batch: it waits for the rate limit,
bounds the requests in flight, stores what comes back in the disk cache and settles every
sample's future.

A model that can refuse a whole run (an HTTP model: a parameter its API rejects, a spent
quota) gets its first request alone: the others wait for its answer, so such a refusal costs
one request, not one per request in flight. Once the model says it has stopped
(``model.stopped``), its remaining samples are settled as errors without a request; every
completion received before is kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, InvalidStateError

from ..models.base import (
    ANSWERED,
    Completion,
    Gate,
    GenerationRequest,
    Model,
    ModelError,
    Prompt,
    SamplingParams,
)
from .budget import ENGINE_CLOSED
from .cache import Claim, DiskCache
from .jobs import Job
from .ratelimit import TokenBucket


class Slot:
    """One sample known to the engine: its job and the future of its completion."""

    __slots__ = ("key", "job", "future", "on_disk", "batch")

    def __init__(self, key: str, job: Job) -> None:
        self.key = key
        self.job = job
        self.future: Future[Completion] = Future()
        self.on_disk = False  # a cache entry existed at prefetch; read it on demand
        self.batch: Batch | None = None


@dataclasses.dataclass(eq=False)
class Batch:
    """Samples of one (problem, prompt, params) to request together."""

    slots: list[Slot]
    started: bool = False
    held: dict[str, Claim] = dataclasses.field(default_factory=dict)  # claims already taken
    force: bool = False  # the claim wait timed out: generate regardless


@dataclasses.dataclass(eq=False)
class Wait:
    slot: Slot
    since: float  # wall clock, compared with file mtimes
    deadline: float  # monotonic


def batches_of(slots: Iterable[Slot], max_n: int) -> list[Batch]:
    """``slots`` grouped by (problem, prompt, params), at most ``max_n`` to a batch."""
    groups: dict[tuple[str, Prompt, SamplingParams], list[Slot]] = {}
    for slot in slots:
        job = slot.job
        groups.setdefault((job.problem.id, job.prompt, job.params), []).append(slot)
    batches: list[Batch] = []
    for grouped in groups.values():
        for i in range(0, len(grouped), max_n):
            batch = Batch(grouped[i : i + max_n])
            for slot in batch.slots:
                slot.batch = batch
            batches.append(batch)
    return batches


class BatchSender:
    """Sends the samples of one batch to ``model`` as one request.

    ``count`` adds to the engine's counters (see ``GenerationEngine.stats``); setting
    ``stop`` cancels a request still waiting for the rate limit. ``gate`` bounds the calls
    to the model in flight (an HTTP model is bounded inside instead, for each exchange, so
    that a request waiting to retry holds no slot: the engine hands it ``UNBOUNDED`` here).
    """

    def __init__(
        self,
        model: Model,
        cache: DiskCache | None,
        bucket: TokenBucket | None,
        gate: Gate,
        stop: threading.Event,
        count: Callable[..., None],
    ) -> None:
        self.model = model
        self.cache = cache
        self._bucket = bucket
        self._gate = gate
        self._stop = stop
        self._count = count
        self._probe_lock = threading.Lock()
        self._probed = threading.Event()
        # Completion tokens and samples so far, for the next one's size (an estimate: threads
        # update it unlocked, and an update lost costs nothing).
        self._completed = (0, 0)
        if not hasattr(model, "stopped"):
            self._probed.set()  # nothing to learn from a first answer: no waiting for it

    def send(self, mine: list[tuple[Slot, Claim | None]]) -> None:
        if not mine:
            return
        first = mine[0][0].job
        request = GenerationRequest(
            problem=first.problem,
            prompt=first.prompt,
            sample_indices=tuple(slot.job.sample_index for slot, _ in mine),
            params=first.params,
            repair_round=first.repair_round,
            stage=first.stage,
        )
        # A token limit counts the prompt and the completion: as long as max_tokens at most,
        # as the ones so far otherwise (about 4 characters a token).
        total, samples = self._completed
        defaults = getattr(self.model, "defaults", None)
        most = first.params.max_tokens or getattr(defaults, "max_tokens", None)
        each = most or (total / samples if samples else 0)
        estimate = len(first.prompt.text + (first.prompt.system or "")) / 4 + len(mine) * each
        completions = self._not_requested(len(mine))
        if completions is None and self._bucket is not None:
            waited = self._bucket.acquire(estimate, self._stop)
            if waited is None:  # closing: a request still waiting for its turn is cancelled
                abandon(mine, RuntimeError(ENGINE_CLOSED))
                return
            self._count(rate_limit_wait_s=waited)
        elapsed: float | None = None
        try:
            if completions is None:
                completions, elapsed = self._request(request, len(mine))
            if len(completions) != len(mine):
                raise ModelError(
                    f"model {self.model.spec!r} returned {len(completions)} completions "
                    f"for {len(mine)} samples"
                )
        except BaseException as e:
            abandon(mine, e)
            if not isinstance(e, Exception):
                raise
            return
        used = 0
        for (slot, claim), completion in zip(mine, completions, strict=True):
            used += (completion.prompt_tokens or 0) + (completion.completion_tokens or 0)
            if completion.completion_tokens is not None:
                total, samples = self._completed
                self._completed = (total + completion.completion_tokens, samples + 1)
            # An error answers no sample: only completions the model gave count as generated.
            answered = elapsed is not None and not completion.error and not completion.missing
            self._count(
                samples_generated=1 if answered else 0,
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
            resolve(slot, completion)
        if elapsed is None:  # stopped: nothing was requested
            return
        self._count(requests=1, request_latency_s=elapsed)
        if self._bucket is not None and used:
            self._bucket.settle(used - estimate)

    def _not_requested(self, n: int) -> list[Completion] | None:
        """Error completions for ``n`` samples if the model has stopped taking requests."""
        stopped = getattr(self.model, "stopped", None)
        if stopped is None:
            return None
        return [Completion(error=f"not requested: {stopped}")] * n

    def _request(self, request: GenerationRequest, n: int) -> tuple[list[Completion], float | None]:
        """The model's answer and how long it took (``None``: not requested after all)."""
        if not self._probed.is_set():
            with self._probe_lock:  # the first request goes alone; the rest wait for it
                if not self._probed.is_set():
                    try:
                        return self._timed(request)
                    finally:
                        self._probed.set()
        stopped = self._not_requested(n)  # the first answer may have stopped the model
        if stopped is not None:
            return stopped, None
        return self._timed(request)

    def _timed(self, request: GenerationRequest) -> tuple[list[Completion], float]:
        with self._gate.slot() as admission:
            start = time.monotonic()
            completions = list(self.model.generate(request))
            admission.outcome = ANSWERED
            return completions, time.monotonic() - start


def resolve(slot: Slot, completion: Completion) -> None:
    with contextlib.suppress(InvalidStateError):
        slot.future.set_result(completion)


def abandon(mine: list[tuple[Slot, Claim | None]], error: BaseException) -> None:
    """Release the claims of samples this process will not generate, and fail them."""
    for _, claim in mine:
        if claim is not None:
            claim.release()
    for slot, _ in mine:
        fail(slot, error)


def fail(slot: Slot, error: BaseException) -> None:
    with contextlib.suppress(InvalidStateError):
        slot.future.set_exception(error)
