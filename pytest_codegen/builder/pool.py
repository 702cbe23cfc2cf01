"""Fragments built concurrently, and shared between the processes of one run.

Each step of a fragment waits for the one before, so one fragment at a time would leave the
model idle; instead every process starts the pipelines of all the fragments it collected in
threads (``--codegen-concurrency`` of them), as the grading side prefetches samples, and an
item only waits for its fragment's result. Under xdist every worker collects every fragment:
a claim (an ``flock`` in the run's directory, as the generation cache's claims) makes each
fragment built by one process, which leaves its result there for the worker that runs the
item. A process that dies drops its claims; whoever waits then builds the fragment itself.

:class:`RuntimeServices` is what a pipeline uses: model requests through the runner (the
generation engine, its cache, retries and rate limits) and programs run in the Python sandbox
with the Exec-CSN harness's rules, hiding what graded samples cannot see either.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..cachedir import atomic_write
from ..generation.cache import DiskCache
from ..generation.jobs import Job
from ..kinds.execcsn_program import mask_indent
from ..kinds.execcsn_rows import MEMORY_LIMIT_BYTES, STDERR_FAIL_WORDS, TIMEOUT_S
from ..models.base import Completion, Model, Prompt, SamplingParams, merge_params
from ..outcomes import Verdict
from ..problems import MODE_PYTHON_PROGRAM, Problem, SuiteLimits
from . import parsing
from .inputs import Fragment

# Programs run at most this many at once per process: they are CPU-bound, requests are not.
_RUNS = threading.BoundedSemaphore(max(1, len(os.sched_getaffinity(0))))


def fragment_problem(fragment: Fragment) -> Problem:
    """The problem a build request carries: its id is the fragment's, ``extra`` holds the
    target and its context (for a conftest ``codegen_model`` that scripts a build)."""
    return Problem(
        id=fragment.id,
        suite="build",
        category="build",
        language="python",
        mode=MODE_PYTHON_PROGRAM,
        prompt=fragment.context,
        tests="",
        reference=fragment.source or None,
        extra={
            "func_name": fragment.func_name,
            "context": fragment.context,
            "path": fragment.path,
            "line": fragment.line,
        },
    )


class RuntimeServices:
    """Model requests and sandboxed runs for the pipeline of one fragment."""

    def __init__(
        self, runner: Any, model: Model, fragment: Fragment, hide: tuple[str, ...] = ()
    ) -> None:
        self.runner = runner
        self.model = model
        self.hide = hide  # paths its programs must not see, as graded samples must not
        self.problem = fragment_problem(fragment)
        self.func_name = fragment.func_name

    def _job(self, stage: str, text: str, index: int, params: SamplingParams | None) -> Job:
        settings = self.runner.settings
        prompt = Prompt(text=text, system=settings.system_prompt)
        return Job(self.problem, prompt, index, merge_params(settings.params, params), stage=stage)

    def ask(
        self, stage: str, text: str, index: int, params: SamplingParams | None = None
    ) -> Completion:
        return self.runner.generation.request(self.model, self._job(stage, text, index, params))

    def ask_many(
        self, stage: str, text: str, n: int, params: SamplingParams | None = None
    ) -> list[Completion]:
        jobs = [self._job(stage, text, i, params) for i in range(n)]
        engine = self.runner.generation.engine_for(self.model)
        if engine is not None:  # one request for the n samples, where the API allows it
            engine.prefetch(jobs)
        return [self.runner.generation.request(self.model, job) for job in jobs]

    def run(self, masked_program: str, function: str) -> Verdict:
        from ..kinds.execcsn import run_python_program

        problem = Problem(
            id=self.problem.id,
            suite="build",
            category="build",
            language="python",
            mode=MODE_PYTHON_PROGRAM,
            prompt="",
            tests=masked_program,
            extra={
                "func_name": self.func_name,
                "mask_indent": mask_indent(masked_program) or "",
                # What grading the built suite applies (kinds.execcsn_rows).
                **SuiteLimits(TIMEOUT_S, MEMORY_LIMIT_BYTES, STDERR_FAIL_WORDS).to_extra(),
            },
        )
        limits = self.runner.executor.limits(problem)
        with _RUNS:
            return run_python_program(problem, function, limits, self.hide)


class BuildPool:
    """Builds fragments in threads; ``claims`` (a directory shared by the run's processes,
    or None for a run in one process) makes each fragment built once."""

    def __init__(
        self, build_one: Callable[[Fragment], dict[str, Any]], claims: Path | None, threads: int
    ) -> None:
        self.build_one = build_one
        self.claims = DiskCache(claims) if claims is not None else None
        self.dir = claims
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="codegen-build")
        self.futures: dict[str, Future[dict[str, Any] | None]] = {}
        parsing.install()  # many threads parse at once (see .parsing)

    @staticmethod
    def key(nodeid: str) -> str:
        return hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:40]

    def start(self, work: list[tuple[str, Fragment]]) -> None:
        for nodeid, fragment in work:
            key = self.key(nodeid)
            if key not in self.futures:
                self.futures[key] = self.executor.submit(self._claim_and_build, key, fragment)

    def result(self, nodeid: str, fragment: Fragment) -> dict[str, Any]:
        """The fragment's result: built here, by another process, or now."""
        key = self.key(nodeid)
        future = self.futures.get(key)
        if future is not None:
            found = future.result()
            if found is not None:
                return found
        if self.claims is None:
            return self.build_one(fragment)
        while True:  # another process holds the claim: wait for its result, or its death
            found = self._claim_and_build(key, fragment)
            if found is not None:
                return found
            time.sleep(0.05)

    def _result_path(self, key: str) -> Path:
        assert self.dir is not None
        return self.dir / f"{key}.result.json"

    def _read(self, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self._result_path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def _claim_and_build(self, key: str, fragment: Fragment) -> dict[str, Any] | None:
        """Build the fragment unless another process has it (then None, or its result)."""
        if self.claims is None:
            return self.build_one(fragment)
        found = self._read(key)
        if found is not None:
            return found
        claim = self.claims.try_claim(key)
        if claim is None:
            return None
        try:
            found = self._read(key)  # it may have finished between our read and our claim
            if found is None:
                found = self.build_one(fragment)
                atomic_write(self._result_path(key), json.dumps(found))
            return found
        finally:
            claim.release()

    def close(self, interrupted: bool = False) -> None:
        """Stop building: fragments not started are left to whoever runs their items. Those
        being built for the run's other processes are finished first (the sandbox and the
        engine they use close after this), unless the run was interrupted."""
        shared = self.claims is not None
        self.executor.shutdown(wait=shared and not interrupted, cancel_futures=True)
        parsing.uninstall()
