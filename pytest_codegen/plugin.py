"""pytest-codegen: grade generated code with pytest and report pass@k.

This module wires the stages into pytest: options and state (``settings``), collection
(``collect``), generation (``generate``), execution (``execute``), scoring (``score``) and
reporting (``report``). It stays cheap to import: a project's ordinary test run only pays for
option registration, and benchmark items exist only when ``--codegen-model`` is given.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from . import outcomes, settings
from .models.base import (
    Completion,
    GenerationRequest,
    Model,
    ModelError,
    ValidateModel,
    merge_params,
)
from .problems import Problem

STATE_KEY = pytest.StashKey["CodegenState"]()
RERUN_OUTCOMES = (outcomes.FAILED, outcomes.TIMEOUT, outcomes.CRASHED, outcomes.ERROR)


class SampleFailed(Exception):
    """A graded sample did not pass; the message is the short failure headline."""


class SampleNotGenerated(Exception):
    """The model's API failed for this sample even after retries."""


# -- options and set-up ---------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    settings.add_options(parser)
    group = parser.getgroup("codegen")
    # Filled in from pasted built-in node ids (see pytest_load_initial_conftests).
    group.addoption("--codegen-select", action="append", default=[], help=argparse_hidden())
    group.addoption("--codegen-only", action="store_true", default=False, help=argparse_hidden())


def argparse_hidden() -> str:
    import argparse

    return argparse.SUPPRESS


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_load_initial_conftests(
    early_config: pytest.Config, parser: pytest.Parser, args: list[str]
) -> None:
    """Let ``humaneval::HumanEval_0[s0]`` work on the command line.

    Built-in suites have no file in the project, so pytest would reject such an argument as a
    missing path; rewrite it into options before pytest resolves its arguments.
    """
    from .collect.suites import builtin_suites

    names = None
    for position, arg in reversed(list(enumerate(args))):
        if arg.startswith("-"):
            continue
        follows_option = (
            position > 0 and args[position - 1].startswith("-") and "=" not in args[position - 1]
        )
        if "::" not in arg and follows_option:
            continue  # most likely an option's value ("--codegen-suite humaneval")
        head = arg.split("::", 1)[0]
        if "/" in head or "\\" in head or Path(head).exists():
            continue
        names = names if names is not None else builtin_suites()
        if head in names:
            del args[position]
            args.extend([f"--codegen-suite={head}", f"--codegen-select={arg}"])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "codegen: a sample of a benchmark problem graded by pytest-codegen"
    )
    resolved = settings.resolve(config)
    state = CodegenState(config, resolved)
    config.stash[STATE_KEY] = state
    if not resolved.active:
        return
    # Only named suites are graded when no path is given: don't also run the project's tests.
    # (xdist workers re-parse the original arguments, so each process decides the same.)
    if resolved.suite and config.args_source != pytest.Config.ArgsSource.ARGS:
        config.option.codegen_only = True
    if not hasattr(config, "workerinput"):
        state.check_model_spec()
        if resolved.results is not None:
            from .reporting.records import ResultsWriter

            state.results = ResultsWriter(resolved.results)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(XdistHooks(state), "codegen-xdist")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(STATE_KEY, None)
    if state is not None:
        state.close()


def state_of(config: pytest.Config) -> CodegenState:
    return config.stash[STATE_KEY]


# -- collection -----------------------------------------------------------------------------


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.getoption("codegen_only", False):
        return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    state = state_of(parent.config)
    if not state.settings.active:
        return None
    from .collect import items as collect
    from .collect.suites import is_suite_file
    from .collect.suites.humaneval import looks_like_humaneval

    explicit = parent.session.isinitpath(file_path)
    if file_path.name.endswith(".test.js"):
        return collect.SuiteFile.from_parent(parent, path=file_path)
    if is_suite_file(file_path) and (explicit or looks_like_humaneval(file_path)):
        return collect.SuiteFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(trylast=True)
def pytest_codegen_load_suite(path: Path, config: pytest.Config) -> list[Problem]:
    from .collect.suites import load_suite, suite_name_for

    state = state_of(config)
    if path.name.endswith(".test.js"):
        from .collect.suites.webapp1k import load_test_file

        return [load_test_file(path, state.suite_name_for_jest(path))]
    name = state.builtin_names.get(path) or suite_name_for(path)
    return load_suite(path, name)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    state = state_of(config)
    if not state.settings.active:
        return
    from .collect.items import make_builtin_file
    from .collect.suites import builtin_suites

    known = builtin_suites()
    for name in state.settings.suite:
        if name not in known:
            raise pytest.UsageError(
                f"--codegen-suite: unknown suite {name!r} (built-in: {', '.join(sorted(known))};"
                " give other suites as paths)"
            )
        path = known[name]
        if path.is_dir():
            raise pytest.UsageError(
                f"--codegen-suite {name}: pass its directory as a path instead: {path}"
            )
        state.builtin_names[path] = name
        items.extend(session.genitems(make_builtin_file(session, name, path)))
    selected = config.getoption("codegen_select")
    if selected:
        keep = [i for i in items if not _is_builtin(i, known) or _matches(i.nodeid, selected)]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_collection_finish(session: pytest.Session) -> None:
    state = state_of(session.config)
    if not state.settings.active:
        return
    if session.config.option.collectonly:
        state.plan(session.items)
    else:
        state.prefetch(session.items)
        # The items, their problems and completions live until the session ends: the garbage
        # collector need not look at them again each time the grading loop triggers it (3-9%
        # less CPU over a 1640-sample HumanEval run with -n 2, in alternating runs without).
        # Given back when the session ends, unless someone else had frozen objects before
        # (there is one permanent generation, and unfreezing would give back theirs too).
        state.froze_gc = gc.get_freeze_count() == 0
        gc.collect()
        gc.freeze()


def _is_builtin(item: pytest.Item, known: dict[str, Path]) -> bool:
    return item.nodeid.split("::", 1)[0] in known


def _matches(nodeid: str, selectors: list[str]) -> bool:
    return any(
        nodeid == s
        or nodeid.startswith(s + "[")
        or nodeid.startswith(s + "::")
        or nodeid.split("::", 1)[0] == s
        for s in selectors
    )


# -- the model fixture ----------------------------------------------------------------------


@pytest.fixture(scope="session")
def codegen_model(pytestconfig: pytest.Config) -> Model:
    """The model that writes the samples, built from ``--codegen-model``.

    Override it in a conftest.py to grade code from anything else, e.g. a local checkpoint::

        @pytest.fixture(scope="session")
        def codegen_model():
            return MyModel()  # a pytest_codegen.models.base.Model
    """
    return state_of(pytestconfig).model


@pytest.hookimpl(trylast=True)
def pytest_codegen_make_model(spec: str, config: pytest.Config) -> Model | None:
    from .models.base import ReferenceModel, ReplayModel

    if spec == "reference":
        return ReferenceModel()
    if spec == "validate":
        return ValidateModel()
    if spec.startswith("replay:"):
        path = Path(spec.removeprefix("replay:")).expanduser()
        if not path.is_absolute():
            path = config.invocation_params.dir / path
        return ReplayModel(path, spec=spec)
    from .models import providers

    opts = state_of(config).settings
    provider = spec.split(":", 1)[0]
    if ":" in spec and provider in providers.PROVIDERS:
        return providers.make_provider_model(spec, base_url=opts.base_url, defaults=opts.params)
    aliases = providers.parse_models_table(list(opts.models)) if opts.models else {}
    if spec in aliases:
        target, alias_params, alias_url = providers.resolve_alias(spec, aliases)
        return providers.make_provider_model(
            target,
            base_url=opts.base_url or alias_url,
            defaults=merge_params(alias_params, opts.params),
        )
    if ":" in spec:
        raise ModelError(
            f"unknown provider {provider!r} (known: {', '.join(sorted(providers.PROVIDERS))})"
        )
    return None


# -- reports ----------------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    state = state_of(item.config)
    gated = state.settings.fail_under or state.settings.baseline is not None
    if (
        gated
        and report.when == "call"
        and report.failed
        and isinstance(call.excinfo and call.excinfo.value, SampleFailed)
    ):
        # Under a score gate a failing sample is an expected part of the score, not a
        # failure of the run: shown as xfailed, with the gate deciding the exit status.
        report.outcome = "skipped"
        report.wasxfail = str(call.excinfo.value)  # type: ignore[union-attr]
    record = getattr(item, "record", None)
    if record is not None and not getattr(item, "record_sent", False):
        state.observe_for_tripwire(record)
        report.codegen = record  # type: ignore[attr-defined]  # JSON-safe: survives xdist
        item.record_sent = True  # type: ignore[attr-defined]
        # On the item: junitxml reads them from the teardown report.
        item.user_properties.extend(
            (f"codegen_{k}", record[k])
            for k in ("task_id", "outcome", "model", "prompt_tokens", "completion_tokens")
            if record.get(k) is not None
        )
    elif (
        (report.when == "call" or report.failed)
        and hasattr(item, "problem")
        and not getattr(item, "record_sent", False)
    ):
        # A plugin bug or an interrupted item: still account for the sample.
        state = state_of(item.config)
        report.codegen = state.record_for_unexpected(item, report)  # type: ignore[attr-defined]
        item.record_sent = True  # type: ignore[attr-defined]
    return report


@pytest.hookimpl(tryfirst=True)  # before junitxml writes its file
def pytest_sessionfinish(session: pytest.Session) -> None:
    state = state_of(session.config)
    if state.settings.active:
        state.collect_generation_stats()
    if (
        state.settings.active
        and not hasattr(session.config, "workerinput")
        and not session.config.option.collectonly
    ):
        state.finish(session)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    state = state_of(config)
    if state.plan_counts is not None and not hasattr(config, "workerinput"):
        total, cached, generates = state.plan_counts
        todo = total - cached if generates else 0
        terminalreporter.write_sep("=", f"codegen plan for {state.model_spec}")
        terminalreporter.write_line(
            f"{total} samples: {cached} already generated (cached), "
            f"{todo} to request from the model"
        )
        return
    if not state.settings.active or hasattr(config, "workerinput") or state.rows is None:
        return
    from .reporting.records import format_table

    tr = terminalreporter
    tr.write_sep("=", f"codegen: pass@k of {state.model_spec}")
    if not state.rows:
        tr.write_line("no samples were graded")
        return
    for line in format_table(state.rows, state.settings.k):
        tr.write_line(line)
    for gate in state.gate_results:
        tr.write_line(
            ("gate passed: " if gate.passed else "GATE FAILED: ") + gate.message,
            red=not gate.passed,
            green=gate.passed,
        )
    if state.comparison is not None:
        tr.write_sep("-", f"compared with baseline {state.settings.baseline}")
        for line in state.comparison.lines():
            tr.write_line(line)
    unstable = sorted(r["nodeid"] for r in state.records.values() if r.get("unstable"))
    if unstable:
        shown = ", ".join(unstable[:10]) + (
            f" and {len(unstable) - 10} more" if len(unstable) > 10 else ""
        )
        tr.write_line(
            f"unstable verdicts: {len(unstable)} samples changed outcome when rerun: {shown}",
            yellow=True,
        )
    for _suite, reason in sorted(state.tripwire_reason.items()):
        tr.write_line(f"stopped early: {reason}", yellow=True)
    if state.settings.html is not None:
        tr.write_line(f"html report: {state.settings.html}")
    if state.settings.repair_rounds:
        from .reporting.records import repair_lines
        from .scoring import repair_curve

        for line in repair_lines(
            repair_curve(state.records.values(), state.settings.repair_rounds)
        ):
            tr.write_line(line)
    if state.generation_stats:
        from .reporting.records import generation_lines

        for line in generation_lines(state.generation_stats, state.records.values(), state.price()):
            tr.write_line(line)
    if state.results is not None:
        tr.write_line(f"results: {state.results.path}")


class XdistHooks:
    """Controller-side hooks that exist only with pytest-xdist."""

    def __init__(self, state: CodegenState) -> None:
        self.state = state

    def pytest_configure_node(self, node: Any) -> None:
        # Workers judge "regenerate" against the controller's start, not their own.
        node.workerinput["codegen_started_at"] = self.state.started_at

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.state.expected.update(ids)

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        stats = getattr(node, "workeroutput", {}).get("codegen_generation")
        if stats:
            self.state.add_generation_stats(stats)


# -- per-process state --------------------------------------------------------------------


class CodegenState:
    """Everything one pytest process knows about the run (kept in ``config.stash``)."""

    def __init__(self, config: pytest.Config, resolved: settings.Settings) -> None:
        self.config = config
        self.settings = resolved
        self.problems: dict[tuple[str, str], Problem] = {}
        self.builtin_names: dict[Path, str] = {}
        self._model: Model | None = None
        self.results: Any = None
        self.records: dict[str, dict[str, Any]] = {}
        self.expected: set[str] = set()
        self.rows: list[Any] | None = None
        self._jest: Any = None
        self._engine: Any = None
        self._jest_error: str | None = None
        self.tripwire: Any = None
        self.tripwire_reason: dict[str, str] = {}
        self.gate_results: list[Any] = []
        self.comparison: Any = None
        self.plan_counts: tuple[int, int, bool] | None = None
        self._reference_checks: dict[tuple[str, str], str | None] = {}
        self.generation_stats: dict[str, float] = {}
        workerinput = getattr(config, "workerinput", {})
        self.started_at = float(workerinput.get("codegen_started_at", time.time()))
        self._hide: tuple[str, ...] | None = None
        self._cpus: tuple[int, ...] | None = None
        self.froze_gc = False  # set once the collected items are out of the collector's sight
        config.pluginmanager.register(_ReportListener(self), "codegen-reports")

    @property
    def model_spec(self) -> str:
        return self.settings.model or ""

    # model
    def check_model_spec(self) -> None:
        """Fail at start, with one line, on a model spec nothing can build."""
        if self._conftest_overrides_model():
            return
        self.model  # noqa: B018 - building it is the check

    def _conftest_overrides_model(self) -> bool:
        import sys

        me = sys.modules[__name__]
        return any(
            plugin is not me and hasattr(plugin, "codegen_model")
            for plugin in self.config.pluginmanager.get_plugins()
        )

    @property
    def model(self) -> Model:
        if self._model is None:
            spec = self.model_spec
            try:
                model = self.config.hook.pytest_codegen_make_model(spec=spec, config=self.config)
            except ModelError as e:
                raise pytest.UsageError(f"--codegen-model {spec}: {e}") from None
            if model is None:
                raise pytest.UsageError(
                    f"--codegen-model: unknown model {spec!r}; use reference, validate, "
                    "replay:PATH, PROVIDER:MODEL, an alias from the codegen_models ini key, or "
                    "override the codegen_model fixture"
                )
            self._model = model
        return self._model

    def suite_name_for_jest(self, path: Path) -> str:
        # <suite dir>/<category>/<name>.test.js: the suite is named after its directory.
        return path.parent.parent.name

    # generation (item setup)
    def engine_for(self, model: Model) -> Any:
        """The generation engine (concurrent, cached) for our own HTTP model; None otherwise."""
        if model is not self._model or not model.cacheable:
            return None
        if self._engine is None:
            from .generation.engine import GenerationEngine

            cache_dir = self.settings.cache
            if cache_dir is None and getattr(self.config, "cache", None) is not None:
                cache_dir = self.config.cache.mkdir("codegen-generations")
            from .generation.engine import RateLimit

            self._engine = GenerationEngine(
                model,
                cache_dir=cache_dir,
                concurrency=self.settings.concurrency,
                regenerate=self.settings.regenerate,
                since=self.started_at,
                rate_limit=RateLimit(
                    self.settings.requests_per_minute, self.settings.tokens_per_minute
                ),
            )
        return self._engine

    def job(self, item: Any, prompt: Any = None) -> Any:
        from .generation.engine import Job
        from .generation.prompts import build_prompt

        if prompt is None:
            prompt = build_prompt(
                item.problem, self.settings.system_prompt, self.settings.prompt_template
            )
        return Job(item.problem, prompt, item.sample_index, self.settings.params)

    def prefetch(self, items: list[Any]) -> None:
        """Start generating every sample this process collected: requests go out many at a
        time, while execution proceeds item by item."""
        samples = [i for i in items if hasattr(i, "problem")]
        if not samples or self._conftest_overrides_model():
            return
        engine = self.engine_for(self.model)
        if engine is not None:
            engine.prefetch(self.job(i) for i in samples)

    def plan(self, items: list[Any]) -> None:
        """For ``--collect-only``: how many samples are cached and how many requests remain."""
        samples = [i for i in items if hasattr(i, "problem")]
        engine = None if self._conftest_overrides_model() else self.engine_for(self.model)
        cached = 0
        if engine is not None and engine.cache is not None and not self.settings.regenerate:
            cached = sum(engine.cache.exists(engine.key(self.job(i))) for i in samples)
        self.plan_counts = (len(samples), cached, engine is not None)

    def generate(self, item: Any) -> None:
        model = item.funcargs["codegen_model"]
        problem: Problem = item.problem
        tripped = self.tripwire_reason.get(problem.suite)
        if tripped:
            item.record = self._record(item, outcomes.MISSING, error=f"not graded: {tripped}")
            pytest.skip(f"suite stopped early: {tripped}")
        if self.settings.check_references:
            broken = self.reference_failure(problem, item)
            if broken:
                item.record = self._record(item, outcomes.QUARANTINED, error=broken)
                pytest.skip(f"quarantined: {broken}")
        if problem.extra.get("unsolvable"):  # the suite check: flagged whatever the model
            reason = f"cannot be solved as shipped: {problem.extra['unsolvable']}"
            item.record = self._record(item, outcomes.ERROR, error=reason)
            raise SampleFailed(f"error: {reason}")
        completion = self.request(model, self.job(item))
        item.completion = completion
        if completion.missing:
            item.record = self._record(item, outcomes.MISSING, error="no such sample")
            pytest.skip(
                f"missing: {getattr(model, 'spec', model)!s} has no sample "
                f"{item.sample_index} of {problem.id}"
            )
        if completion.error:
            item.record = self._record(item, outcomes.API_ERROR, error=completion.error)
            raise SampleNotGenerated(f"model API error: {completion.error}")

    def request(self, model: Model, job: Any, repair_round: int = 0) -> Completion:
        """One completion for ``job``: through the engine for our own HTTP models (cached,
        concurrent), straight from the model otherwise."""
        started = time.monotonic()
        engine = self.engine_for(model)
        if engine is not None:
            completion = engine.get(job)
        else:
            request = GenerationRequest(
                job.problem, job.prompt, (job.sample_index,), job.params, repair_round=repair_round
            )
            completions = list(model.generate(request))
            completion = (
                completions[0]
                if completions
                else Completion(error="the model returned no completion")
            )
        if completion.latency_s is None:
            completion = Completion(
                **{**completion.__dict__, "latency_s": round(time.monotonic() - started, 4)}
            )
        return completion

    def repair(self, item: Any, verdict: Any) -> None:
        """Error-debugging rounds: ask again with the failed code and its test log until a
        round passes. The sample's own verdict (and pass@k) stays that of its first answer;
        the rounds are kept in its record for the per-round pass@1."""
        from .generation.prompts import repair_prompt
        from .reporting.records import generation_fields, short_error

        problem: Problem = item.problem
        model = item.funcargs["codegen_model"]
        first = self.job(item).prompt
        code, rounds = item.code or item.completion.text, []
        for repair_round in range(1, self.settings.repair_rounds + 1):
            prompt = repair_prompt(problem, first, code, _test_log(verdict))
            completion = self.request(model, self.job(item, prompt), repair_round)
            entry: dict[str, Any] = {"round": repair_round, **generation_fields(completion)}
            if completion.missing or completion.error:
                entry.update(
                    outcome=outcomes.MISSING if completion.missing else outcomes.API_ERROR,
                    error=completion.error or "no such sample",
                )
                rounds.append(entry)
                break  # nothing to grade: the sample stays as it was
            code, verdict = self.execute(item, completion.text)
            entry.update(
                outcome=verdict.outcome,
                completion=completion.text,
                code=code,
                error=short_error(verdict.message),
            )
            rounds.append(entry)
            item.add_report_section("call", f"repair round {repair_round}: {verdict.outcome}", code)
            if verdict.passed:
                break
        item.record["repairs"] = rounds
        self._price(item.record, rounds)

    def reference_failure(self, problem: Problem, item: Any) -> str | None:
        """Why the problem's own reference fails here (None when it passes); once per problem."""
        key = (problem.suite, problem.id)
        if key not in self._reference_checks:
            if problem.reference is None:
                self._reference_checks[key] = "the problem has no reference solution"
            else:
                _, verdict = self.execute(item, problem.reference)
                self._reference_checks[key] = (
                    None
                    if verdict.passed
                    else (
                        f"its reference fails on this machine ({verdict.outcome}: "
                        f"{verdict.message.splitlines()[0] if verdict.message else ''})"
                    )
                )
        return self._reference_checks[key]

    def limits(self) -> Any:
        from .execution.python.sandbox import Limits

        return Limits(
            timeout_s=self.settings.timeout, memory_mb=self.settings.memory, cpus=self.cpus
        )

    @property
    def cpus(self) -> tuple[int, ...]:
        """Where this process grades Python samples (see ``execute.worker_cpus``)."""
        if self._cpus is None:
            from .execution.dispatch import worker_cpus

            workerinput = getattr(self.config, "workerinput", {})
            self._cpus = (
                ()
                if self.settings.cpu_pinning == "off"
                else worker_cpus(workerinput.get("workerid"), workerinput.get("workercount"))
            )
        return self._cpus

    def hidden(self, item: Any) -> tuple[str, ...]:
        if self._hide is None:
            from .execution.dispatch import hidden_paths

            self._hide = hidden_paths(
                [p.parent if p.is_file() else p for p in self.builtin_names] + [Path(item.path)]
            )
        return self._hide

    # execution (item call)
    def execute(self, item: Any, text: str) -> tuple[str, Any]:
        """Grade ``text`` as an answer to the item's problem: ``(code run, verdict)``."""
        from .execution.dispatch import execute

        problem: Problem = item.problem
        return execute(
            problem,
            text,
            self.limits(),
            jest=self.jest_runner() if problem.mode == "jest" else None,
            hide=self.hidden(item),
        )

    def grade(self, item: Any) -> None:
        problem: Problem = item.problem
        code, verdict = self.execute(item, item.completion.text)
        if problem.reference is None and isinstance(item.funcargs["codegen_model"], ValidateModel):
            verdict = outcomes.judge_empty_solution(verdict, problem.mode)
        item.code, item.verdict = code, verdict
        item.record = self._record(
            item,
            verdict.outcome,
            error=verdict.message,
            verdict=verdict,
            duration_s=verdict.duration_s,
        )
        if self.settings.reruns and verdict.outcome in RERUN_OUTCOMES:
            # The first verdict stands; a sample whose verdict changes is flagged unstable.
            seen = [verdict.outcome] + [
                self.execute(item, item.completion.text)[1].outcome
                for _ in range(self.settings.reruns)
            ]
            item.record["reruns"] = seen[1:]
            item.record["unstable"] = len(set(seen)) > 1
        if self.settings.repair_rounds and verdict.outcome in outcomes.REPAIRABLE:
            self.repair(item, verdict)
        if code:
            item.add_report_section("call", "generated code", code)
        if verdict.stdout.strip():
            item.add_report_section("call", "sample output", verdict.stdout)
        if verdict.stderr.strip():
            item.add_report_section("call", "sample traceback", verdict.stderr)
        if not verdict.passed:
            raise SampleFailed(f"{verdict.outcome}: {verdict.message}".rstrip(": "))

    def jest_runner(self) -> Any:
        if self._jest is None:
            from .execution.jest.node_env import NodeNotFoundError, ToolchainError, find_node
            from .execution.jest.runner import JestRunner

            if self._jest_error is not None:
                raise SampleFailed(self._jest_error)
            try:
                self._jest = JestRunner(
                    node=find_node(self.settings.node), memory_mb=self.settings.memory
                )
            except (NodeNotFoundError, ToolchainError) as e:
                # Said once per item, computed once per process: the environment is broken.
                self._jest_error = f"crashed: the Node/Jest environment is unusable: {e}"
                raise SampleFailed(self._jest_error) from None
        return self._jest

    def _record(
        self,
        item: Any,
        outcome: str,
        *,
        error: str = "",
        verdict: Any = None,
        duration_s: float = 0.0,
    ) -> dict[str, Any]:
        from .reporting.records import make_record

        record = make_record(
            nodeid=item.nodeid,
            problem=item.problem,
            sample_index=item.sample_index,
            outcome=outcome,
            model=self.model_spec,
            duration_s=duration_s,
            completion=item.completion,
            code=item.code,
            error=error,
            verdict=verdict,
        )
        self._price(record, [record])
        return record

    def price(self) -> tuple[float, float] | None:
        """The configured price of this run's model (USD per million tokens in, out)."""
        from .generation.prompts import price_of

        return price_of(self.settings.prices, self.model_spec, getattr(self._model, "spec", None))

    def _price(self, record: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        """Add the cost of ``parts`` (the sample, or its repair rounds) to ``record``."""
        from .generation.prompts import cost_usd

        price = self.price()
        if price is None:
            return
        cost = sum(
            cost_usd(price, p.get("prompt_tokens"), p.get("completion_tokens")) for p in parts
        )
        record["cost_usd"] = round(record.get("cost_usd", 0.0) + cost, 8)

    def record_for_unexpected(self, item: Any, report: pytest.TestReport) -> dict[str, Any]:
        message = str(report.longrepr).strip().splitlines()[-1:] if report.longrepr else []
        return self._record(
            item, outcomes.CRASHED, error="grading did not complete: " + " ".join(message)
        )

    # controller side
    def on_report(self, report: pytest.TestReport) -> None:
        if not self.settings.active or hasattr(self.config, "workerinput"):
            return
        record = getattr(report, "codegen", None)
        if record is None:
            if (
                report.failed
                and report.nodeid not in self.records
                and "[s" in report.nodeid
                and report.nodeid in self.expected
            ):
                # The worker running it died: xdist reports the item as failed without a record.
                from .reporting.records import missing_record

                record = missing_record(report.nodeid, self.model_spec, "")
                record["outcome"] = outcomes.CRASHED
                record["error"] = "the process grading it died"
            else:
                return
        if record["nodeid"] in self.records:
            return
        if str(record.get("error", "")).startswith("not graded: "):  # a worker's tripwire
            self.tripwire_reason.setdefault(record["suite"], record["error"][len("not graded: ") :])
        self.on_report_record(record)
        self.config.hook.pytest_codegen_sample_graded(record=record, config=self.config)

    def finish(self, session: pytest.Session) -> None:
        from .reporting.records import missing_record
        from .scoring import summarize

        if not hasattr(self.config, "workerinput") and not self.expected:
            self.expected = {item.nodeid for item in session.items}
        # Samples that never reported take suite, task and category from a sibling sample.
        known = {
            r["nodeid"].rsplit("[", 1)[0]: r for r in self.records.values() if r.get("category")
        }
        for nodeid in sorted(self.expected - set(self.records)):
            record = missing_record(
                nodeid, self.model_spec, "the run ended before this sample was graded"
            )
            sibling = known.get(nodeid.rsplit("[", 1)[0])
            if sibling is not None:
                record.update({k: sibling[k] for k in ("suite", "task_id", "category")})
            self.on_report_record(record)
        self.rows = summarize(self.records.values(), self.settings.k)
        self.apply_gates(session)
        self.write_reports()

    def apply_gates(self, session: pytest.Session) -> None:
        from .gates.gate import check_thresholds, compare_to_baseline

        failed = False
        if self.settings.fail_under:
            self.gate_results = check_thresholds(self.rows or [], self.settings.fail_under)
            failed = any(not g.passed for g in self.gate_results)
        if self.settings.baseline is not None:
            from .reporting.html import load_results

            try:
                baseline = load_results(self.settings.baseline)
            except (OSError, ValueError) as e:
                raise pytest.UsageError(f"--codegen-baseline: {e}") from None
            self.comparison = compare_to_baseline(
                list(self.records.values()), baseline, k=min(self.settings.k)
            )
            failed = failed or self.comparison.significant_drop
        if self.settings.fail_under or self.settings.baseline is not None:
            # The scores decide; an interrupted or errored run keeps its own status.
            if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
                session.exitstatus = pytest.ExitCode.TESTS_FAILED if failed else pytest.ExitCode.OK

    def write_reports(self) -> None:
        rows = [r.to_json() for r in self.rows or []]
        try:
            from _pytest.junitxml import xml_key

            xml = self.config.stash.get(xml_key, None)
        except ImportError:  # pragma: no cover
            xml = None
        if xml is not None:
            for row in rows:
                if row["category"] is None:
                    for k, value in row["pass_at_k"].items():
                        xml.add_global_property(
                            f"codegen:{row['suite']}:pass@{k}",
                            "n/a" if value is None else f"{value:.4f}",
                        )
        if self.settings.html is not None:
            from . import __version__
            from .reporting.html import write_html

            write_html(
                self.settings.html,
                list(self.records.values()),
                rows,
                {
                    "model": self.model_spec,
                    "k": list(self.settings.k),
                    "duration_s": round(time.time() - self.started_at, 2),
                    "pytest_version": pytest.__version__,
                    "plugin_version": __version__,
                },
            )

    def on_report_record(self, record: dict[str, Any]) -> None:
        """Keep a sample's record and append it to the results file at once."""
        self.records[record["nodeid"]] = record
        if self.results is not None:
            self.results.write(record)

    def observe_for_tripwire(self, record: dict[str, Any]) -> None:
        if not self.settings.tripwire:
            return
        if self.tripwire is None:
            from .gates.gate import Tripwire

            self.tripwire = Tripwire(self.settings.tripwire)
        reason = self.tripwire.observe(record)
        if reason:
            self.tripwire_reason[record["suite"]] = reason

    def add_generation_stats(self, stats: dict[str, Any]) -> None:
        for key, value in stats.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.generation_stats[key] = self.generation_stats.get(key, 0) + value

    def collect_generation_stats(self) -> None:
        """Engine totals of this process: kept here, or sent to the controller by a worker."""
        if self._engine is None:
            return
        stats = self._engine.stats()
        if hasattr(self.config, "workerinput"):
            self.config.workeroutput["codegen_generation"] = stats  # type: ignore[attr-defined]
        else:
            self.add_generation_stats(stats)

    def close(self) -> None:
        import sys

        if (
            "pytest_codegen.execution.python.sandbox" in sys.modules
        ):  # stop the sample launcher, if started
            sys.modules["pytest_codegen.execution.python.sandbox"].Zygote.shutdown()
        if self._engine is not None:
            self._engine.close()
        if self.results is not None:
            self.results.close()
        if self._jest is not None:
            self._jest.close()
        if self._model is not None:
            self._model.close()
        if self.froze_gc:  # an in-process pytest run (pytester) must not keep them frozen
            gc.unfreeze()
            self.froze_gc = False


def _test_log(verdict: Any) -> str:
    """What a repair prompt shows of a failed verdict: its headline and the sample's stderr."""
    return "\n".join(part for part in (verdict.message, verdict.stderr) if part)


class _ReportListener:
    def __init__(self, state: CodegenState) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.state.on_report(report)
