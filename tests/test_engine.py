"""The generation engine: concurrency, batching, the disk cache, claims and rate limits.

Models talk real HTTP to the fake provider server on 127.0.0.1; a few claim tests stand in
for "another process" by taking the claim themselves.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import wait_until
from fake_providers import FakeProviders, Fault, Recorded

from pytest_codegen.generation.cache import DiskCache, cache_key
from pytest_codegen.generation.engine import GenerationEngine
from pytest_codegen.generation.jobs import Job
from pytest_codegen.generation.ratelimit import RateLimit, bucket_for
from pytest_codegen.generation.ratelimit import TokenBucket as _TokenBucket
from pytest_codegen.models.base import (
    Completion,
    GenerationRequest,
    Model,
    ModelError,
    Prompt,
    SamplingParams,
)
from pytest_codegen.models.builtin import ReferenceModel
from pytest_codegen.models.connect import make_provider_model
from pytest_codegen.models.http import HTTPModel
from pytest_codegen.problems import Problem

ENV = {"VLLM_API_KEY": "sk-test"}


def problem(i: int) -> Problem:
    return Problem(
        id=f"P/{i}",
        suite="t",
        category="c",
        language="python",
        mode="python-call",
        prompt=f"write f{i}",
        tests="",
        reference=f"def f{i}(): pass",
    )


def make_jobs(problems: int, samples: int = 1) -> list[Job]:
    return [
        Job(problem(i), Prompt(f"write f{i}", "be terse"), s, SamplingParams(temperature=0.8))
        for i in range(problems)
        for s in range(samples)
    ]


def numbered_reply() -> Any:
    """Replies that differ on every request, so a duplicate request would show."""
    counter = itertools.count()
    lock = threading.Lock()

    def reply(request: Recorded, index: int) -> str:
        with lock:
            return f"{request.user_text} -> {next(counter)}"

    return reply


@pytest.fixture
def fake() -> Iterator[FakeProviders]:
    with FakeProviders(numbered_reply()) as server:
        yield server


def vllm(fake: FakeProviders, max_n: int | None = None) -> HTTPModel:
    model = make_provider_model("vllm:m", base_url=fake.openai_url, env=ENV, backoff_s=0.01)
    if max_n is not None:
        model.max_n = max_n
    return model


def generate_all(engine: GenerationEngine, jobs: list[Job]) -> list[Completion]:
    engine.prefetch(jobs)
    return [engine.get(job) for job in jobs]


def engine_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("codegen-")]


WATCHER = "codegen-claim-watcher"  # the thread polling claims held by other processes


# --------------------------------------------------------------------------- concurrency


class _Gauge(Model):
    """A model whose first calls wait until ``target`` calls are in flight at once, however
    slowly the engine's threads get going; from then on no call waits for that, and each
    takes ``hold_s``, time for a call beyond the engine's concurrency to show. The peak it
    records is the engine's real concurrency: ``target`` reached, and never more."""

    spec = "gauge"
    cacheable = True

    def __init__(self, target: int, hold_s: float = 0.01) -> None:
        self.target, self.hold_s = target, hold_s
        self.in_flight = self.peak = self.calls = 0
        self.reached = False
        self._cond = threading.Condition()

    def generate(self, request: GenerationRequest) -> list[Completion]:
        with self._cond:
            self.in_flight += 1
            self.calls += 1
            self.peak = max(self.peak, self.in_flight)
            if self.in_flight >= self.target:
                self.reached = True
                self._cond.notify_all()
            # A hang guard, not a speed bound: an engine that never gets there fails on its peak.
            if not self._cond.wait_for(lambda: self.reached, timeout=600):
                self.reached = True
        time.sleep(self.hold_s)
        with self._cond:
            self.in_flight -= 1
        return [Completion(text=f"{request.prompt.text} #{i}") for i in request.sample_indices]


def test_many_requests_in_flight() -> None:
    gauge = _Gauge(target=12)
    jobs = make_jobs(24)
    with GenerationEngine(gauge, cache_dir=None, concurrency=12) as engine:
        out = generate_all(engine, jobs)
    assert gauge.calls == 24
    assert gauge.peak == 12  # all at once, never more
    assert [c.text for c in out] == [f"write f{i} #0" for i in range(24)]
    assert engine_threads() == []


def test_a_caller_running_a_queued_sample_stays_within_concurrency() -> None:
    # The pytest thread runs a sample it needs now instead of waiting behind the queue; it
    # takes one of the slots, so the model never sees more than --codegen-concurrency.
    gauge = _Gauge(target=2, hold_s=0.3)
    jobs = make_jobs(8)
    with GenerationEngine(gauge, cache_dir=None, concurrency=2) as engine:
        engine.prefetch(jobs)
        assert engine.get(jobs[-1]).text == "write f7 #0"
        assert [engine.get(j).text for j in jobs] == [f"write f{i} #0" for i in range(8)]
    assert gauge.calls == 8
    assert gauge.peak == 2


def test_samples_of_a_prompt_are_batched_with_n(fake: FakeProviders) -> None:
    with GenerationEngine(vllm(fake), cache_dir=None) as engine:
        out = generate_all(engine, make_jobs(1, samples=5))
    assert [r.n for r in fake.requests] == [5]
    assert len({c.text for c in out}) == 5
    fake.requests.clear()
    with GenerationEngine(vllm(fake, max_n=2), cache_dir=None) as engine:
        generate_all(engine, make_jobs(1, samples=5))
    assert sorted(r.n for r in fake.requests) == [1, 2, 2]
    assert all(r.body["temperature"] == 0.8 for r in fake.requests)


def test_get_without_prefetch_generates_now(fake: FakeProviders) -> None:
    with GenerationEngine(vllm(fake), cache_dir=None) as engine:
        job = make_jobs(1)[0]
        assert engine.get(job).text == "write f0 -> 0"
        assert engine.get(job).text == "write f0 -> 0"  # remembered, not requested again
        assert engine.stats()["requests"] == 1
    assert fake.count() == 1


def test_close_cancels_queued_work_and_stops_threads(fake: FakeProviders) -> None:
    # Two threads need some 5 s for the 38 samples left when close() comes: it comes well
    # before, however loaded the machine.
    fake.latency_s = 0.25
    jobs = make_jobs(40)
    engine = GenerationEngine(vllm(fake), cache_dir=None, concurrency=2)
    engine.prefetch(jobs)
    assert engine.get(jobs[0]).error is None
    engine.close()
    assert engine_threads() == []
    assert fake.count() < 40
    with pytest.raises(RuntimeError, match="closed"):
        engine.get(jobs[-1])
    with pytest.raises(RuntimeError, match="closed"):
        engine.prefetch(jobs)
    engine.close()  # idempotent


class _Broken(Model):
    spec = "broken"
    cacheable = True

    def __init__(self, result: list[Completion] | None = None) -> None:
        self.result = result

    def generate(self, request: GenerationRequest) -> list[Completion]:
        if self.result is None:
            raise ModelError("model exploded")
        return self.result


def test_model_exceptions_reach_the_caller(tmp_path: Path) -> None:
    with GenerationEngine(_Broken(), cache_dir=tmp_path) as engine:
        with pytest.raises(ModelError, match="model exploded"):
            engine.get(make_jobs(1)[0])
    with GenerationEngine(_Broken([]), cache_dir=tmp_path) as engine:
        with pytest.raises(ModelError, match="returned 0 completions for 1 samples"):
            engine.get(make_jobs(1)[0])
    assert not list(tmp_path.glob("*/*.json"))


# --------------------------------------------------------------------------- cache


def test_second_engine_makes_zero_requests(fake: FakeProviders, tmp_path: Path) -> None:
    jobs = make_jobs(5, samples=2)
    with GenerationEngine(vllm(fake), cache_dir=tmp_path) as engine:
        first = generate_all(engine, jobs)
        assert engine.stats()["requests"] == 5
    assert fake.count() == 5 and not any(c.cached for c in first)
    with GenerationEngine(vllm(fake), cache_dir=tmp_path) as engine:
        second = generate_all(engine, jobs)
        stats = engine.stats()
    assert fake.count() == 5  # nothing new
    assert [c.text for c in second] == [c.text for c in first]
    assert all(c.cached for c in second)
    assert stats["requests"] == 0 and stats["cache_hits"] == 10
    json.dumps(stats)
    assert len(list(tmp_path.glob("*/*.json"))) == 10
    assert not list(tmp_path.rglob("*.tmp"))


def test_regenerate_ignores_and_overwrites(fake: FakeProviders, tmp_path: Path) -> None:
    jobs = make_jobs(3)
    with GenerationEngine(vllm(fake), cache_dir=tmp_path) as engine:
        first = generate_all(engine, jobs)
    with GenerationEngine(vllm(fake), cache_dir=tmp_path, regenerate=True) as engine:
        fresh = generate_all(engine, jobs)
    assert fake.count() == 6
    assert {c.text for c in fresh}.isdisjoint(c.text for c in first)
    with GenerationEngine(vllm(fake), cache_dir=tmp_path) as engine:
        assert [c.text for c in generate_all(engine, jobs)] == [c.text for c in fresh]
    assert fake.count() == 6


def test_cache_key_depends_on_everything_that_shapes_a_sample(fake: FakeProviders) -> None:
    base = ("vllm:m", SamplingParams(temperature=0.2), Prompt("p", "s"), 0)
    key = cache_key(*base)
    assert key == cache_key(*base) and len(key) == 64
    variants = [
        ("vllm:other", *base[1:]),
        (base[0], SamplingParams(temperature=0.3), *base[2:]),
        (*base[:2], Prompt("q", "s"), 0),
        (*base[:2], Prompt("p", None), 0),
        (*base[:3], 1),
    ]
    assert len({cache_key(*v) for v in variants} | {key}) == 6
    # The model's own defaults are part of the effective parameters.
    plain = GenerationEngine(vllm(fake), cache_dir=None)
    tuned = vllm(fake)
    tuned.defaults = SamplingParams(top_k=5)
    assert plain.key(make_jobs(1)[0]) != GenerationEngine(tuned, cache_dir=None).key(
        make_jobs(1)[0]
    )


def test_errors_are_not_cached(fake: FakeProviders, tmp_path: Path) -> None:
    fake.script(Fault.http(400, message="bad prompt"))
    jobs = make_jobs(2)
    with GenerationEngine(vllm(fake), cache_dir=tmp_path) as engine:
        out = [engine.get(job) for job in jobs]  # one after the other: the first one fails
        assert engine.stats()["errors"] == 1
    assert out[0].error == "HTTP 400 from vllm: bad prompt" and out[1].error is None
    with GenerationEngine(vllm(fake), cache_dir=tmp_path) as engine:
        again = generate_all(engine, jobs)
    assert fake.count() == 3  # only the failed sample was asked for again
    assert again[0].error is None and again[1].cached


def test_models_that_are_not_cacheable_leave_no_entries(tmp_path: Path) -> None:
    with GenerationEngine(ReferenceModel(), cache_dir=tmp_path) as engine:
        out = generate_all(engine, make_jobs(3))
    assert [c.text for c in out] == [f"def f{i}(): pass" for i in range(3)]
    assert list(tmp_path.iterdir()) == []


def test_entries_are_never_torn(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    job = make_jobs(1)[0]
    key = "ab" * 32
    texts = ["a" * 300_000, "b" * 300_000]
    stop = threading.Event()

    def write(text: str) -> None:
        while not stop.is_set():
            cache.write(key, job, "vllm:m", Completion(text=text))

    writers = [threading.Thread(target=write, args=(t,)) for t in texts]
    for w in writers:
        w.start()
    reads = 0
    try:
        while reads < 50:  # every one while both writers keep replacing the entry
            assert all(w.is_alive() for w in writers), "a writer failed"
            if not cache.path(key).exists():
                continue  # not written yet; once there, os.replace never removes it
            found = cache.read(key)
            assert found is not None, "a present entry must always parse"
            assert found[0].text in texts
            reads += 1
    finally:
        stop.set()
        for w in writers:
            w.join()
    assert not list(tmp_path.rglob("*.tmp"))


# --------------------------------------------------------------------------- claims


def test_waits_for_a_sample_another_process_claimed(fake: FakeProviders, tmp_path: Path) -> None:
    engine = GenerationEngine(vllm(fake), cache_dir=tmp_path, poll_interval_s=0.01)
    job = make_jobs(1)[0]
    other = DiskCache(tmp_path)
    claim = other.try_claim(engine.key(job))
    assert claim is not None
    got: dict[str, Completion] = {}
    waiter = threading.Thread(target=lambda: got.update(c=engine.get(job)))
    waiter.start()
    wait_until(lambda: WATCHER in engine_threads(), "the engine waits for the claim")
    time.sleep(0.15)  # some polls of the claim: none may ask the model
    assert waiter.is_alive() and fake.count() == 0
    other.write(engine.key(job), job, "vllm:m", Completion(text="from the other process"))
    claim.release(remove=True)
    waiter.join(120)  # a hang guard, not a speed bound
    assert not waiter.is_alive()
    engine.close()
    assert got["c"].text == "from the other process" and not got["c"].cached
    assert fake.count() == 0
    assert engine.stats()["shared"] == 1


def test_takes_over_from_a_killed_process(fake: FakeProviders, tmp_path: Path) -> None:
    pytest.importorskip("fcntl")
    engine = GenerationEngine(vllm(fake), cache_dir=tmp_path, poll_interval_s=0.01)
    job = make_jobs(1)[0]
    lock = tmp_path / "claims" / f"{engine.key(job)}.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('claimed', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "claimed\n"
        got: dict[str, Completion] = {}
        waiter = threading.Thread(target=lambda: got.update(c=engine.get(job)))
        waiter.start()
        wait_until(lambda: WATCHER in engine_threads(), "the engine waits for the claim")
        time.sleep(0.1)  # some polls of the claim: none may ask the model
        assert waiter.is_alive() and fake.count() == 0
    finally:
        holder.kill()  # the kernel drops its lock: the waiter may now claim the sample
        holder.wait()
        holder.stdout.close()  # type: ignore[union-attr]
    waiter.join(120)  # a hang guard, not a speed bound
    assert not waiter.is_alive()
    engine.close()
    assert got["c"].text == "write f0 -> 0"
    assert fake.count() == 1


def test_error_of_the_claim_holder_is_shared(fake: FakeProviders, tmp_path: Path) -> None:
    engine = GenerationEngine(vllm(fake), cache_dir=tmp_path, poll_interval_s=0.01)
    job = make_jobs(1)[0]
    other = DiskCache(tmp_path)
    claim = other.try_claim(engine.key(job))
    assert claim is not None
    engine.prefetch([job])
    # Its thread found the claim taken and waits for the holder (else, the claim released,
    # it would ask the model itself).
    wait_until(lambda: WATCHER in engine_threads(), "the engine waits for the claim")
    other.write_error(engine.key(job), Completion(error="HTTP 503 from vllm: down"))
    claim.release()
    assert engine.get(job).error == "HTTP 503 from vllm: down"
    # The holder counted its error: a run's total has it once, not once per waiting process.
    assert engine.stats()["errors"] == 0
    engine.close()
    assert fake.count() == 0


def test_claim_timeout_generates_anyway(fake: FakeProviders, tmp_path: Path) -> None:
    engine = GenerationEngine(
        vllm(fake), cache_dir=tmp_path, poll_interval_s=0.01, claim_timeout_s=0.2
    )
    job = make_jobs(1)[0]
    claim = DiskCache(tmp_path).try_claim(engine.key(job))  # never released in time
    assert claim is not None
    start = time.monotonic()
    assert engine.get(job).text == "write f0 -> 0"
    assert time.monotonic() - start >= 0.2  # it waited for the claim first
    assert engine.stats()["claim_timeouts"] == 1
    claim.release()
    engine.close()


def _prefetch_in_child(cache_dir: str, base_url: str, barrier: Any, results: Any) -> None:
    model = make_provider_model("vllm:m", base_url=base_url, env=ENV)
    model.max_n = 1
    engine = GenerationEngine(model, cache_dir=Path(cache_dir), concurrency=8)
    jobs = make_jobs(25, samples=2)
    barrier.wait()  # start together, so that both really compete for every sample
    texts = [c.text for c in generate_all(engine, jobs)]
    stats = engine.stats()
    engine.close()
    model.close()
    results.put((texts, stats))


def test_two_processes_share_the_work(fake: FakeProviders, tmp_path: Path) -> None:
    fake.latency_s = 0.02
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    workers = [
        ctx.Process(
            target=_prefetch_in_child, args=(str(tmp_path), fake.openai_url, barrier, results)
        )
        for _ in range(2)
    ]
    for w in workers:
        w.start()
    # Hang guards, not speed bounds: two interpreters start and import on a busy machine.
    (texts_a, stats_a), (texts_b, stats_b) = results.get(timeout=300), results.get(timeout=300)
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    assert fake.count() == 50  # every sample requested exactly once overall
    assert stats_a["requests"] + stats_b["requests"] == 50
    assert stats_a["shared"] + stats_b["shared"] == 50
    assert texts_a == texts_b and len(set(texts_a)) == 50
    entries = list(tmp_path.glob("*/*.json"))
    assert len(entries) == 50
    assert all(json.loads(p.read_text())["completion"]["text"] in texts_a for p in entries)
    assert not list(tmp_path.rglob("*.tmp"))


# --------------------------------------------------------------------------- rate limit


def test_rate_limit_is_shared_by_engines_on_one_cache(fake: FakeProviders, tmp_path: Path) -> None:
    limit = RateLimit(requests_per_minute=600)  # 10/s, bursts of 10
    engines = [
        GenerationEngine(vllm(fake, max_n=1), cache_dir=tmp_path / "c", rate_limit=limit)
        for _ in range(2)
    ]
    # Different prompts per engine: 8 requests each, 16 together: 6 beyond one burst.
    batches = [make_jobs(8), make_jobs(16)[8:]]
    before = time.monotonic()  # no request has taken a token yet: at most a burst is there
    for engine, jobs in zip(engines, batches, strict=True):
        engine.prefetch(jobs)
    for engine, jobs in zip(engines, batches, strict=True):
        assert all(engine.get(job).error is None for job in jobs)
    for engine in engines:
        engine.close()
    arrivals = sorted(r.time for r in fake.requests)
    assert len(arrivals) == 16
    # The sixteenth token is there 0.6 s after the first at the earliest; the last request
    # leaves with it (load can only delay it). Buckets of their own would let all go at once.
    assert arrivals[-1] - before >= 0.6 - 1e-6


def test_closing_cancels_requests_still_waiting_for_the_rate_limit(
    fake: FakeProviders, tmp_path: Path
) -> None:
    limit = RateLimit(requests_per_minute=6)  # one request every ten seconds
    engine = GenerationEngine(vllm(fake, max_n=1), cache_dir=tmp_path / "c", rate_limit=limit)
    jobs = make_jobs(3)
    engine.prefetch(jobs)
    # The bucket's one request goes at once, for whichever job's thread takes it first.
    deadline = time.monotonic() + 30
    while not fake.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    engine.close()  # the other two are still waiting for their turn
    assert len(fake.requests) == 1  # and are never sent
    served = []
    for job in jobs:
        try:
            served.append(engine.get(job).error is None)
        except RuntimeError as e:
            assert "closed before this sample was generated" in str(e)
            served.append(False)
    assert sorted(served) == [False, False, True]


class _Clock:
    """The clocks of the rate limit module, still but for the waits of a bucket (it is also
    the event a bucket waits on): the buckets' arithmetic, whatever the host's speed."""

    def __init__(self) -> None:
        self.now, self.wall = 0.0, 1.7e9

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.wall

    def wait(self, seconds: float) -> bool:  # as threading.Event.wait: never stopped
        self.now += seconds
        self.wall += seconds
        return False


@pytest.fixture
def clock(monkeypatch) -> _Clock:
    from pytest_codegen.generation import ratelimit

    clock = _Clock()
    monkeypatch.setattr(ratelimit, "time", clock)
    return clock


def test_token_bucket_pays_estimates_and_settles(tmp_path: Path, clock: _Clock) -> None:
    bucket = _TokenBucket(RateLimit(tokens_per_minute=60_000), tmp_path / "bucket.json")
    assert bucket.acquire(500, clock) == 0
    assert bucket.acquire(500, clock) == 0
    bucket.settle(-400)  # the requests used less than estimated: a refund
    assert bucket.acquire(500, clock) == pytest.approx(0.1)  # 100 short at 1000 tokens/s
    left = json.loads((tmp_path / "bucket.json").read_text())["tokens"]
    assert left == pytest.approx(0, abs=1e-6)


def test_two_endpoints_of_one_model_are_limited_apart(tmp_path: Path, clock: _Clock) -> None:
    # Keyed by the model's spec alone, a run against one server of a model waited for the
    # requests a run against another server (--codegen-base-url) had sent.
    limit = RateLimit(requests_per_minute=60)
    first = bucket_for("vllm:coder", "http://127.0.0.1:8001/v1", limit, tmp_path)
    assert first is not None and first.acquire(0, clock) == 0
    other = bucket_for("vllm:coder", "http://127.0.0.1:8002/v1", limit, tmp_path)
    assert other is not None and other.acquire(0, clock) == 0
    # Another process of the first endpoint's run shares its bucket: it waits its turn.
    same = bucket_for("vllm:coder", "http://127.0.0.1:8001/v1", limit, tmp_path)
    assert same is not None and same.acquire(0, clock) == pytest.approx(1.0)


def test_token_bucket_ignores_steps_of_the_wall_clock(tmp_path: Path, clock: _Clock) -> None:
    bucket = _TokenBucket(RateLimit(requests_per_minute=600), tmp_path / "bucket.json")
    for _ in range(10):  # a second's worth: the bucket is empty now
        assert bucket.acquire(0, clock) == 0
    clock.wall += 3600  # time sync, or a resumed VM
    assert bucket.acquire(0, clock) == pytest.approx(0.1)  # the eleventh still waits its turn
