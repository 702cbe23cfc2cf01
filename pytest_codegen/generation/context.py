"""The model a process generates with, and the engine that requests its samples.

One :class:`GenerationContext` per process that generates: a sample runner (each xdist
worker, or a run without xdist), and the controller when it generates for remote hosts
(:mod:`.remote_service`). It builds the model from ``--codegen-model`` (through the
``pytest_codegen_make_model`` hook) on first use, and for the plugin's own HTTP models a
:class:`~.engine.GenerationEngine` that requests many samples at a time and caches them.
"""

from __future__ import annotations

import dataclasses
import os
import time
import traceback
from collections.abc import Iterable
from typing import Any

import pytest

from ..keys import settings_of
from ..kinds.registry import kinds_of
from ..models.base import (
    Completion,
    GenerationRequest,
    Model,
    ModelError,
    Prompt,
    SamplingDefaults,
    SamplingParams,
)
from ..problems import Problem
from ..settings import Settings
from ..user_hooks import call_hook
from .jobs import Job
from .prompts import build_prompt
from .remote import worker_engine, worker_model


def make_model(config: pytest.Config, spec: str) -> Model:
    """The model ``--codegen-model`` names, through the ``pytest_codegen_make_model`` hook;
    a spec nothing can build is one ``UsageError`` line."""
    source = settings_of(config).model_source  # the flag, or the ini key and its file
    try:
        model = call_hook("pytest_codegen_make_model", spec=spec, config=config)
    except ModelError as e:
        raise pytest.UsageError(f"{source} {spec}: {e}") from None
    if model is None:
        raise pytest.UsageError(
            f"{source}: unknown model {spec!r}; use reference, validate, empty, "
            "replay:PATH, PROVIDER:MODEL, an alias from the codegen_models ini key, a "
            "built-in model name (--codegen-list-models lists them), or override the "
            "codegen_model fixture"
        )
    return model


def conftest_overrides_model(config: pytest.Config) -> bool:
    """Whether a conftest.py or another plugin defines its own ``codegen_model`` fixture."""
    return any(
        getattr(plugin, "__name__", None) != "pytest_codegen.plugin"
        and hasattr(plugin, "codegen_model")
        for plugin in config.pluginmanager.get_plugins()
    )


def distributed(config: pytest.Config) -> bool:
    """Whether this process is one of an xdist run's (a worker, or the controller)."""
    return hasattr(config, "workerinput") or config.pluginmanager.hasplugin("dsession")


class GenerationContext:
    """Owns this process's model and generation engine; turns problems into jobs and jobs
    into completions."""

    def __init__(self, config: pytest.Config, settings: Settings, started_at: float) -> None:
        self.config = config
        self.settings = settings
        self.model_spec = settings.model or ""
        self.started_at = started_at  # "regenerate" is judged against the run's start
        self.built_model: Model | None = None
        self.engine: Any = None  # built on first use, for a cacheable model
        self.own_model: bool | None = None  # whether --codegen-model builds it (known on use)

    @property
    def model(self) -> Model:
        if self.built_model is None:
            self.built_model = worker_model(self.config) or make_model(self.config, self.model_spec)
        return self.built_model

    def engine_for(self, model: Model) -> Any:
        """The generation engine (concurrent, cached) for our own HTTP model; None otherwise."""
        if model is not self.built_model or not model.cacheable:
            return None
        if self.engine is None:  # on a remote host, the controller generates
            self.engine = worker_engine(self.config)
        if self.engine is None:
            self.engine = self._make_engine(model)
        return self.engine

    def _make_engine(self, model: Model) -> Any:
        from .engine import GenerationEngine
        from .ratelimit import RateLimit

        cache_dir = self.settings.cache
        if cache_dir is None and getattr(self.config, "cache", None) is not None:
            cache_dir = self.config.cache.mkdir("codegen-generations")
        if cache_dir is None and distributed(self.config):
            # No cache to keep (-p no:cacheprovider): the run's processes still share
            # their claims, or every worker would request every sample it collected.
            from ..cachedir import run_scratch

            cache_dir = run_scratch(self.started_at) / "generations"
        return GenerationEngine(
            model,
            cache_dir=cache_dir,
            concurrency=self.settings.concurrency,
            regenerate=self.settings.regenerate,
            since=self.started_at,
            rate_limit=RateLimit(
                self.settings.requests_per_minute, self.settings.tokens_per_minute
            ),
        )

    def job(
        self,
        problem: Problem,
        sample_index: int,
        prompt: Prompt | None = None,
        repair_round: int = 0,
    ) -> Job:
        """The job of one sample: the problem's prompt as configured, unless ``prompt`` (that
        of its error-debugging round ``repair_round``)."""
        settings, kind = self.settings, kinds_of(self.config).of(problem)
        if prompt is None:
            prompt = build_prompt(problem, settings.system_prompt, settings.prompt_template, kind)
        params = self.params_for(kind.sampling_defaults)
        return Job(problem, prompt, sample_index, params, repair_round=repair_round)

    def params_for(self, defaults: SamplingDefaults) -> SamplingParams:
        """The sampling parameters of a kind's problems: the user's, else the model's own,
        else the kind's ``defaults`` (see ``Settings.params_for``)."""
        if self.own_model is None:
            self.own_model = not conftest_overrides_model(self.config)
        model = self.model if self.own_model else None
        return self.settings.params_for(defaults, getattr(model, "defaults", None))

    def prefetch(self, samples: Iterable[tuple[Problem, int]]) -> None:
        """Start generating every sample of ``samples``: requests go out many at a time,
        while execution proceeds item by item."""
        if conftest_overrides_model(self.config):
            return
        engine = self.engine_for(self.model)
        if engine is not None:
            engine.prefetch(self.job(problem, index) for problem, index in samples)

    def plan(self, samples: list[tuple[Problem, int]]) -> tuple[int, int, bool]:
        """For ``--collect-only``: (samples, cached, whether the rest would be requested)."""
        engine = None if conftest_overrides_model(self.config) else self.engine_for(self.model)
        cached = 0
        if engine is not None and engine.cache is not None and not self.settings.regenerate:
            cached = sum(engine.cache.exists(engine.key(self.job(p, i))) for p, i in samples)
        return len(samples), cached, engine is not None

    def request(self, model: Model, job: Job) -> Completion:
        """One completion for ``job``: through the engine for our own HTTP models (cached,
        concurrent), straight from the model otherwise."""
        started = time.monotonic()
        engine = self.engine_for(model)
        if engine is not None:
            completion = engine.get(job)
        else:
            request = GenerationRequest(
                job.problem,
                job.prompt,
                (job.sample_index,),
                job.params,
                repair_round=job.repair_round,
                stage=job.stage,
            )
            completion = first_completion(model, request)
        if completion.latency_s is None:
            completion = dataclasses.replace(
                completion, latency_s=round(time.monotonic() - started, 4)
            )
        return completion

    def stats(self) -> dict[str, Any]:
        """The engine's totals (requests, tokens, cache hits), if it was built."""
        return self.engine.stats() if self.engine is not None else {}

    def close(self, wait: bool = True) -> None:
        """Close the engine (``wait``: for the requests it is running) and the model."""
        if self.engine is not None:
            self.engine.close(wait)
        if self.built_model is not None:
            self.built_model.close()


def first_completion(model: Model, request: GenerationRequest) -> Completion:
    """The first completion a model outside the engine (a conftest.py's, another plugin's)
    gives for ``request``; what goes wrong in it is that sample's API error, as a provider's
    failure is: the sample was never written, so it is neither scored nor lost to a rerun
    with ``--codegen-resume``."""
    try:
        completions = list(model.generate(request))
    except Exception as e:  # the user's model: its failure must not count as the sample's
        where = traceback.extract_tb(e.__traceback__)[-1]
        line = next((text for text in str(e).splitlines() if text.strip()), "")[:300]
        return Completion(
            error=f"{type(model).__name__}.generate raised {type(e).__name__}"
            f"{': ' + line if line else ''} ({os.path.basename(where.filename)}:{where.lineno})"
        )
    if not completions:
        return Completion(error="the model returned no completion")
    first = completions[0]
    if not isinstance(first, Completion):
        return Completion(
            error=f"{type(model).__name__}.generate returned a "
            f"{type(first).__name__} where a Completion belongs"
        )
    if not (first.missing or first.error or isinstance(first.text, str)):
        return Completion(
            error=f"{type(model).__name__}.generate returned a Completion whose text is of type "
            f"{type(first.text).__name__}, not str"
        )
    return first
