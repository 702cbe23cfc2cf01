"""The worker side: a sample runner in every process that runs sample items.

Registered in each xdist worker, and in a run without xdist (there it runs next to the
controller's :class:`~pytest_codegen.controller.RunReporter`); never in the xdist controller,
which runs no items. For each item: generate (setup), execute, reruns and repair rounds, then
the sample's record, attached to the test report as JSON-safe data. It must not depend on the
controller: all it sends there travels on reports and in ``workeroutput``.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from . import outcomes
from .collect.samples_file import refuse_before_grading
from .collect.selection import builtin_files
from .execution.executor import Executor
from .execution.hidden import pytest_cache_dir
from .generation.context import GenerationContext
from .keys import GENERATION_STATS_KEY, STARTED_AT_KEY, TRIPWIRE_STATE_KEY
from .kinds.registry import kinds_of
from .models.builtin import ValidateModel
from .outcomes import SampleFailed, SampleNotGenerated
from .output_paths import source_of
from .problems import Problem, unsolvable_reason
from .recorder import SampleRecorder
from .sample_text import encodable_data, show_visibly, visible
from .settings import Settings

if TYPE_CHECKING:
    from .collect.items import SampleItem
    from .reporting.records import SampleRecord

RERUN_OUTCOMES = (outcomes.FAILED, outcomes.TIMEOUT, outcomes.CRASHED, outcomes.ERROR)


def runs_items(config: pytest.Config) -> bool:
    """Whether this process runs sample items: not an xdist controller (xdist's own test for
    distributing, which it makes in pytest_configure before registering its DSession)."""
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return True
    distributes = config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))
    return not distributes or bool(config.option.collectonly)


class SampleRunner:
    """Generates, executes and records the samples this process runs."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.model_spec = settings.model or ""
        self.tripwire: Any = None
        self.tripped: dict[str, str] = {}  # suite -> why its remaining samples are not graded
        self.plan_counts: tuple[int, int, bool] | None = None
        workerinput = getattr(config, "workerinput", {})
        # Workers judge "regenerate" against the controller's start, not their own.
        started_at = float(workerinput.get(STARTED_AT_KEY, time.time()))
        self.generation = GenerationContext(config, settings, started_at)
        self.executor = Executor(settings, kinds_of(config), workerinput)
        self.recorder = SampleRecorder(
            settings, self.executor, self.model_spec, lambda: self.generation.built_model
        )
        self.froze_gc = False  # set once the collected items are out of the collector's sight
        self.interrupted = False  # the run ended on Ctrl-C or SIGINT: no wait for requests

    # -- hooks
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        samples = [(i.problem, i.sample_index) for i in session.items if hasattr(i, "problem")]
        if session.config.option.collectonly:
            self.plan_counts = self.generation.plan(samples)
            return
        if not samples:  # nothing to grade here (all deselected, or a worker given none)
            return
        self.generation.prefetch(samples)
        # The items, their problems and completions live until the session ends: the garbage
        # collector need not look at them again each time the grading loop triggers it (3-9%
        # less CPU over a 1640-sample HumanEval run with -n 2, in alternating runs without).
        # Given back when the session ends, unless someone else had frozen objects before
        # (there is one permanent generation, and unfreezing would give back theirs too).
        self.froze_gc = gc.get_freeze_count() == 0
        gc.collect()
        gc.freeze()

    @pytest.hookimpl(trylast=True)  # on the samples left to grade
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[Any]) -> None:
        """A host that cannot grade the samples of the run (no usable Node or Jest toolchain
        for React's, no compiler for a language's) ends it before any is graded, with one
        line: every sample would otherwise be scored as crashed. Samples deselected (``-k``)
        need nothing."""
        if config.option.collectonly:
            return
        samples = [item for item in items if isinstance(getattr(item, "problem", None), Problem)]
        error = None
        if any(self.executor.grades_on_node(item.problem) for item in samples):
            error = self.executor.node_environment_error(source_of(config, "node"))
        error = error or self.lacking(samples)
        if error is not None:
            refuse_before_grading(config, items, error)

    def lacking(self, samples: list[SampleItem]) -> str | None:
        """The first thing this host lacks to grade ``samples``, naming their suite file."""
        asked: set[int] = set()
        for item in samples:
            if id(item.problem) in asked:
                continue
            asked.add(id(item.problem))
            lacks = self.executor.kinds.of(item.problem).host_lacks(item.problem)
            if lacks is not None:
                return f"{item.path}: {lacks}"
        return None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if not hasattr(item, "problem"):
            return report
        show_visibly(report)
        if item.record_sent:
            return report
        if (
            self.settings.gated
            and report.when == "call"
            and report.failed
            and isinstance(call.excinfo and call.excinfo.value, SampleFailed)
        ):
            # Under a score gate a failing sample is an expected part of the score, not a
            # failure of the run: shown as xfailed, with the gate deciding the exit status.
            report.outcome = "skipped"
            report.wasxfail = visible(str(call.excinfo.value))  # type: ignore[union-attr]
        record = item.record
        if record is not None:
            # What crosses to the controller and is written: encodable text only.
            record = item.record = encodable_data(record)
            self.observe_for_tripwire(record)
            # On the item: junitxml reads them from the teardown report.
            item.user_properties.extend(
                (f"codegen_{k}", record[k])  # type: ignore[literal-required]
                for k in ("task_id", "outcome", "model", "prompt_tokens", "completion_tokens")
                if record.get(k) is not None
            )
        elif report.when == "call" or report.failed:
            # A plugin bug or an interrupted item: still account for the sample.
            record = encodable_data(self.recorder.for_unexpected(item, report))
        else:
            return report
        report.codegen = record  # type: ignore[attr-defined]  # JSON-safe: survives xdist
        item.record_sent = True
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_report_to_serializable(self, report: Any) -> Generator[None, Any, Any]:
        """Whatever else a report holds (a traceback quoting a sample's text, its captured
        output) crosses xdist's wire too, which takes only UTF-8-encodable text."""
        data = yield
        return encodable_data(data) if data is not None else None

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """A worker's engine totals go to the controller (a run without xdist's are read by
        its controller from here)."""
        self.interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if hasattr(self.config, "workerinput") and self.generation.engine is not None:
            self.config.workeroutput[GENERATION_STATS_KEY] = self.generation.stats()  # type: ignore[attr-defined]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.plan_counts is None or hasattr(self.config, "workerinput"):
            return
        total, cached, generates = self.plan_counts
        todo = total - cached if generates else 0
        terminalreporter.write_sep("=", f"codegen plan for {self.model_spec}")
        terminalreporter.write_line(
            f"{total} samples: {cached} already generated (cached), "
            f"{todo} to request from the model"
        )

    # -- generation (item setup)
    def generate(self, item: SampleItem) -> None:
        model = item.funcargs["codegen_model"]
        problem: Problem = item.problem
        tripped = self.tripped_reason(problem.suite)
        if tripped:
            item.record = self.recorder.record(
                item, outcomes.MISSING, error=outcomes.NOT_GRADED_PREFIX + tripped
            )
            pytest.skip(f"suite stopped early: {tripped}")
        if self.settings.check_references:
            broken = self.executor.reference_failure(
                problem, lambda code: self.execute(item, code)[1]
            )
            if broken:
                item.record = self.recorder.record(item, outcomes.QUARANTINED, error=broken)
                pytest.skip(f"quarantined: {broken}")
        unsolvable = unsolvable_reason(problem)
        if unsolvable:  # the suite check: flagged whatever the model
            reason = f"cannot be solved as shipped: {unsolvable}"
            item.record = self.recorder.record(item, outcomes.ERROR, error=reason)
            raise SampleFailed(f"error: {reason}")
        job = self.generation.job(problem, item.sample_index)
        completion = self.generation.request(model, job)
        item.completion = completion
        if completion.missing:
            item.record = self.recorder.record(
                item, outcomes.MISSING, error=outcomes.NO_SUCH_SAMPLE
            )
            pytest.skip(
                f"missing: {getattr(model, 'spec', model)!s} has no sample "
                f"{item.sample_index} of {problem.id}"
            )
        if completion.error:
            item.record = self.recorder.record(item, outcomes.API_ERROR, error=completion.error)
            raise SampleNotGenerated(f"model API error: {completion.error}")
        # Node's toolchain (npm ci, on first use), the Jest runner's warm-up and a language's
        # libraries are made here, not in the call: pytest-timeout's guard is for the sample.
        # What cannot be made, the call (which asks again) says.
        if self.executor.grades_on_node(problem):
            with contextlib.suppress(SampleFailed):
                self.executor.jest_runner()
        with contextlib.suppress(Exception):
            self.executor.kinds.of(problem).prepare(problem)

    def execute(self, item: SampleItem, text: str, form: str | None = None) -> tuple[str, Any]:
        """Grade ``text``, an answer of ``form`` (see models.base), as an answer to the item's
        problem: ``(code run, verdict)``."""

        return self.executor.execute(
            item.problem,
            text,
            item.path,
            suites=list(builtin_files(self.config)),
            form=form,
            also_hidden=(pytest_cache_dir(self.config),),
        )

    def grade(self, item: SampleItem) -> None:
        assert item.completion is not None
        code, verdict = self.execute(item, item.completion.text, item.completion.form)
        timed_out_once = verdict.ran_out_of_time
        if timed_out_once:
            # A timeout counts only if the second run times out too: a moment of load on the
            # host must not decide a verdict (the record says so, as timeout_rerun). So does
            # a verdict a time limit decided under another name (a build stopped at its limit).
            code, verdict = self.execute(item, item.completion.text, item.completion.form)
        if isinstance(item.funcargs["codegen_model"], ValidateModel):
            verdict = self._validate(item, verdict)
        item.code, item.verdict = code, verdict
        record = item.record = self.recorder.record(
            item,
            verdict.outcome,
            error=verdict.message,
            verdict=verdict,
            duration_s=verdict.duration_s,
        )
        if timed_out_once:
            record["timeout_rerun"] = True
        if self.settings.reruns and verdict.outcome in RERUN_OUTCOMES:
            # The first verdict stands; a sample whose verdict changes is flagged unstable.
            seen = [verdict.outcome] + [
                self.execute(item, item.completion.text, item.completion.form)[1].outcome
                for _ in range(self.settings.reruns)
            ]
            record["reruns"] = seen[1:]
            record["unstable"] = len(set(seen)) > 1
        if self.settings.repair_rounds and verdict.outcome in outcomes.REPAIRABLE:
            from .generation.repair import repair

            repair(self, item, verdict)
        if code:
            item.add_report_section("call", "generated code", code)
        if verdict.stdout.strip():
            item.add_report_section("call", "sample output", verdict.stdout)
        if verdict.stderr.strip():
            item.add_report_section("call", "sample traceback", verdict.stderr)
        if not verdict.passed:
            raise SampleFailed(f"{verdict.outcome}: {verdict.message}".rstrip(": "))

    def _validate(self, item: SampleItem, verdict: Any) -> Any:
        """``--codegen-model=validate``: a problem without a reference was answered with an
        empty solution, which its tests must reject; one with a reference was answered with
        it, which must pass, and then an empty solution is graded too, which must fail."""
        kind = self.executor.kinds.of(item.problem)
        if item.problem.reference is None:
            return outcomes.judge_empty_solution(verdict, kind.errors_reject_empty)
        if not verdict.passed:
            return verdict
        assert item.completion is not None
        _, empty = self.execute(item, kind.empty_solution(item.problem), item.completion.form)
        judged = outcomes.judge_empty_solution(empty, kind.errors_reject_empty)
        return verdict if judged.passed else judged

    # -- records
    def wire(self) -> Any:
        """The tripwire (made on first use): shared with the other workers of this machine
        when the controller names a file for it."""
        if self.tripwire is None:
            from pathlib import Path

            from .gates.tripwire import Tripwire

            state = getattr(self.config, "workerinput", {}).get(TRIPWIRE_STATE_KEY)
            state_file = None
            if state:
                try:
                    Path(state).parent.mkdir(parents=True, exist_ok=True)
                    state_file = Path(state)
                except OSError:  # no shared folder: this worker counts alone
                    pass
            self.tripwire = Tripwire(self.settings.tripwire, state_file)
        return self.tripwire

    def observe_for_tripwire(self, record: SampleRecord) -> None:
        if not self.settings.tripwire:
            return
        reason = self.wire().observe(record)
        if reason:
            self.tripped[record["suite"]] = reason

    def tripped_reason(self, suite: str) -> str | None:
        """Why ``suite``'s samples are no longer graded, if the tripwire stopped it: here, or
        in another worker sharing its count. A sample another worker was already generating
        when it tripped still ends as it ends (xdist runs one item per worker at a time, and
        this is looked at before each): with -n W up to W - 1 samples more than the
        tripwire's count show the failure; the summary's line and the exit status are the
        same as without xdist."""
        if not self.settings.tripwire:
            return None
        if suite not in self.tripped:
            reason = self.wire().reason(suite)
            if reason is None:
                return None
            self.tripped[suite] = reason
        return self.tripped[suite]

    def close(self) -> None:
        self.executor.close()
        self.generation.close(wait=not self.interrupted)
        if self.froze_gc:  # an in-process pytest run (pytester) must not keep them frozen
            gc.unfreeze()
            self.froze_gc = False
