"""The controller side: a run reporter in the process that reports the run.

Registered where ``workerinput`` is absent (the xdist controller, or a run without xdist),
as junitxml registers its writer. It receives every sample's record in
``pytest_runtest_logreport``, appends it to the results file at once (so an interrupted run
keeps what it graded), and at the end scores the records, applies the gates and writes the
terminal summary and reports. Scores come from records only, never from collected items: the
numbers are the same whether one process ran every sample or xdist spread them over workers.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from . import outcomes
from .cachedir import run_scratch
from .gates.attempt_gate import check_attempts
from .gates.baseline import compare_to_baseline
from .gates.thresholds import check_thresholds
from .generation.cost import price_of
from .keys import (
    DESELECTED_KEY,
    DONE_KEY,
    GENERATION_STATS_KEY,
    RESUME_KEY,
    RUNNER_KEY,
    SAMPLES_FILE_KEY,
    SAMPLES_FILE_OUT,
    SHARD_KEY,
    STARTED_AT_KEY,
    TRIPWIRE_STATE_KEY,
)
from .kinds.registry import kinds_of
from .pytest_internals import xdist_maxfail_as_failure
from .reporting.comparable import identity, run_identity, unlike_baseline, unlike_resumed
from .reporting.outputs import tell_unwritten, write_reports
from .reporting.records import SampleRecord, missing_record
from .reporting.summary import write_summary
from .scoring.passk import summarize
from .settings import Settings
from .user_hooks import HookFailure, call_hook, tell_hook_failures


class RunReporter:
    """Records, scores, gates and writers of one run."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.model_spec = settings.model or ""
        self.model_id: str | None = None  # the built model's own spec, for its price
        self.records: dict[str, SampleRecord] = {}
        self.expected: set[str] = set()
        self.rows: list[Any] | None = None
        self.gate_results: list[Any] = []
        self.comparison: Any = None
        self.stopped: dict[str, str] = {}  # suite -> why the tripwire stopped it
        self.generation_stats: dict[str, Any] = {}
        self.started_at = time.time()
        self.results: Any = None
        self._baseline: list[dict[str, Any]] | None = None
        self.shard_deselected = 0  # samples the workers' --codegen-shard left out (xdist)
        self.hosts_gone: list[str] = []  # remote hosts that died, not replaced (xdist)
        self.empty_shard = False
        self.internal_error = False
        # Option -> (path, why) of a file the file system refused at the end (a full disk).
        self.unwritten: dict[str, tuple[Path, str]] = {}
        self.other_failures = 0  # failed tests that are not samples (the project's own)
        self.collection_errors = 0  # files that could not be collected (a suite's among them)
        self.unfinished = 0  # samples the run ended before grading
        self.samples_notes: list[str] = []  # what of the samples file is not graded
        self.hook_failures: list[str] = []  # a conftest's pytest_codegen_sample_graded raised
        self._problems: Any = None
        self._grades_samples: bool | None = None
        self.scores_passed = True  # every threshold met, no drop from the baseline

    def pytest_sessionstart(self) -> None:
        # Made once the start's checks passed, and opened by the first record or the session's
        # end: a usage error (an unknown model, a baseline not comparable, a samples file or a
        # toolchain found wanting at collection) leaves an earlier run's results file as it was.
        if self.settings.results is not None:
            from .reporting.results import ResultsWriter

            self.results = ResultsWriter(self.settings.results, append=self.settings.resume)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "codegen", None)
        if record is None:
            if (
                report.failed
                and report.nodeid not in self.records
                and "[s" in report.nodeid
                and report.nodeid in self.expected
                and self.problems().is_sample(report.nodeid)
            ):
                # The worker running it died: xdist reports the item as failed without a record.
                record = self.missing(report.nodeid, "")
                record["outcome"] = outcomes.CRASHED
                record["error"] = outcomes.PROCESS_DIED
            else:
                self.other_failures += report.failed
                return
        if record["nodeid"] in self.records:
            return
        if str(record.get("error", "")).startswith(outcomes.NOT_GRADED_PREFIX):  # a tripwire
            reason = record["error"][len(outcomes.NOT_GRADED_PREFIX) :]
            self.stopped.setdefault(record["suite"], reason)
        self.keep(record)
        try:
            call_hook("pytest_codegen_sample_graded", record=record, config=self.config)
        except HookFailure as e:  # told at the end: the run grades and keeps every sample
            self.hook_failures.append(str(e))

    def grades_samples(self) -> bool:
        """The ``pytest_codegen_grades_samples`` hook's answer, asked once."""
        if self._grades_samples is None:
            self._grades_samples = bool(
                call_hook("pytest_codegen_grades_samples", config=self.config)
            )
        return self._grades_samples

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # With --continue-on-collection-errors the run goes on without that file's samples.
        self.collection_errors += report.failed

    def missing(self, nodeid: str, reason: str) -> SampleRecord:
        """The record of a sample that never reported, under its problem's id, suite and
        category (found from its node id)."""
        problem = self.problems().of(nodeid)
        return missing_record(nodeid, self.model_spec, reason, problem)

    def problems(self) -> Any:
        """Node ids to problems (:class:`~.collect.node_problems.NodeProblems`), made once."""
        if self._problems is None:
            from .collect.node_problems import NodeProblems

            self._problems = NodeProblems(self.config)
        return self._problems

    def pytest_internalerror(self) -> None:
        """An internal error here or in a worker (whose samples then never report)."""
        self.internal_error = True

    def keep(self, record: SampleRecord) -> None:
        """Keep a sample's record and append it to the results file at once."""
        self.records[record["nodeid"]] = record
        if self.results is not None:
            self.results.write(record)

    def add_generation_stats(self, stats: dict[str, Any]) -> None:
        for key, value in stats.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                self.generation_stats[key] = self.generation_stats.get(key, 0) + value
            elif isinstance(value, list):  # notes: one line each, once however many workers
                kept = self.generation_stats.setdefault(key, [])
                kept.extend(line for line in value if line not in kept)

    @pytest.hookimpl(tryfirst=True)  # before junitxml writes its file
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.config.option.collectonly:
            return
        samples_file = self.config.stash.get(SAMPLES_FILE_KEY, {})
        if "error" in samples_file:
            # Found where collection runs (collect.samples_file), which deselected every
            # sample: told as a usage error is, as it is when the suites are known at start.
            sys.stderr.write(f"ERROR: {samples_file['error']}\n")
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        if self.results is not None:  # written afresh even if no sample was graded
            self.results.start()
        self.samples_notes = [samples_file[k] for k in ("warning", "past") if k in samples_file]
        if not self.expected:
            self.expected = {item.nodeid for item in session.items}
        self.problems().add_items(session.items)
        runner = self.config.stash.get(RUNNER_KEY, None)
        if runner is not None and runner.generation.engine is not None:  # a run without xdist
            self.add_generation_stats(runner.generation.stats())
        if not self.grades_samples():
            # Items that are not samples (a build's fragments) count only with a record.
            self.expected = {n for n in self.expected if n in self.records}
        for nodeid in sorted(self.expected - set(self.records)):
            if self.problems().is_sample(nodeid):  # not the project's own tests
                self.keep(self.missing(nodeid, "the run ended before this sample was graded"))
                self.unfinished += 1
        # A build's fragments have their own summary (builder.collector), not a pass@k row.
        graded = [r for r in self.records.values() if "build" not in r]
        self.rows = summarize(graded, self.settings.k)
        shard = self.config.stash.get(SHARD_KEY, None)
        if (
            session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
            and shard is not None
            and shard.empty(self.shard_deselected)
        ):
            # A CI matrix's merge step sees every sample; this shard's share is just empty.
            session.exitstatus = pytest.ExitCode.OK
            self.empty_shard = True
        self.apply_gates(session)
        if self.internal_error and session.exitstatus in (
            pytest.ExitCode.OK,
            pytest.ExitCode.TESTS_FAILED,
        ):
            # A worker's internal error loses the samples it held: its scores are not the run's.
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        tell_hook_failures(self.hook_failures, session)
        write_reports(self)
        tell_unwritten(self, session)

    def apply_gates(self, session: pytest.Session) -> None:
        failed = False
        if self.settings.fail_under:
            self.gate_results = check_thresholds(self.rows or [], self.settings.fail_under)
            failed = any(not g.passed for g in self.gate_results)
        if self.settings.fail_on_attempts:
            gate = check_attempts(self.records.values())
            self.gate_results.append(gate)
            if not gate.passed:
                failed = True
                # Even a run whose every sample passed: the gate is on the attempts.
                if session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
        resume = self.config.stash.get(RESUME_KEY, None)
        resumed = list(resume.done.values()) if resume is not None else []
        if resumed:
            graded_now = [r for r in self.records.values() if r["nodeid"] not in resume.done]
            unlike = unlike_resumed(self.settings.results, identity(graded_now), resumed)
            if unlike:
                # Told as a usage error is; the results file already holds every record.
                sys.stderr.write(f"ERROR: {unlike}\n")
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
                return
        if self.settings.baseline is not None:
            baseline = self.baseline()
            ours = identity(self.records.values())
            suites = {str(r["suite"]) for r in self.records.values()}
            unlike = unlike_baseline(self.settings.baseline, ours, baseline, suites)
            if unlike:
                # Told as a usage error is; the results file already holds every record.
                sys.stderr.write(f"ERROR: {unlike}\n")
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
                return
            self.comparison = compare_to_baseline(
                list(self.records.values()), baseline, k=min(self.settings.k)
            )
            # As an n/a score fails a --codegen-fail-under gate, a comparison of nothing fails.
            failed = failed or self.comparison.significant_drop or not self.comparison.paired
        self.scores_passed = not failed
        if self.settings.gated:
            # The scores decide; an interrupted or errored run keeps its own status, and a
            # passed gate passes only a run that graded what it was asked to: a sample left
            # out of the scores (missing: a short samples file, a run ended early, a tripwire;
            # an API error; a quarantined problem) fails it; a file that could not be collected
            # (--continue-on-collection-errors) and a failed test that is not a sample keep
            # their status.
            if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
                if failed or any(self.not_graded().values()):
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED
                elif not (self.collection_errors or self.other_failures):
                    session.exitstatus = pytest.ExitCode.OK

    def not_graded(self) -> dict[str, int]:
        """How many samples of each not-graded outcome (missing, api_error, quarantined) the
        run holds: left out of pass@k, so left out of what a gate judged."""
        kept = [r["outcome"] for r in self.records.values() if "build" not in r]
        return {outcome: kept.count(outcome) for outcome in outcomes.NOT_GRADED}

    def baseline(self) -> list[dict[str, Any]]:
        """The ``--codegen-baseline`` file's records (read once)."""
        if self._baseline is None:
            from .reporting.results import load_sample_records

            assert self.settings.baseline is not None
            try:
                self._baseline = load_sample_records(self.settings.baseline)
            except (OSError, ValueError) as e:
                raise pytest.UsageError(f"--codegen-baseline: {e}") from None
        return self._baseline

    def check_comparable(self, model: Any, resumed: list[dict[str, Any]]) -> None:
        """Refuse, at start, a baseline this run cannot be compared with, or resumed records
        (``--codegen-resume``) it cannot continue, as far as its settings tell (Python, Node
        and the suites' data are checked on the records, at the end); ``model``: the model
        built from ``--codegen-model``, or None."""
        settings = self.settings
        if settings.baseline is None and not resumed:
            return
        from .collect.selection import read_at_start_only

        problems = read_at_start_only(self.config)  # None: collection may find more suites
        registry = kinds_of(self.config)
        kinds = (
            list(registry)
            if problems is None
            else list({registry.of(p).name: registry.of(p) for p in problems}.values())
        )
        # One kind's sampling defaults are what its records state; several kinds' records
        # may state several parameters, compared on the records, at the end.
        planned = (
            run_identity(settings, model, kinds[0].sampling_defaults)
            if len(kinds) == 1
            else run_identity(settings, model)
        )
        del planned["python"]  # the grading hosts' own, which may not be this one's
        if len(kinds) > 1 and any(settings.defaulted(k.sampling_defaults) for k in kinds):
            del planned["params"]
        ours = identity([{"run": planned}])
        suites = None if problems is None else {p.suite for p in problems}
        unlike = unlike_resumed(settings.results, ours, resumed) or (
            unlike_baseline(settings.baseline, ours, self.baseline(), suites)
            if settings.baseline is not None
            else None
        )
        if unlike:
            raise pytest.UsageError(unlike)

    def price(self) -> tuple[float, float] | None:
        """The configured price of this run's model (USD per million tokens in, out)."""
        return price_of(self.settings.prices, self.model_spec, self.model_id)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int) -> None:
        if self.rows is None or (not self.rows and not self.grades_samples()):
            return
        write_summary(terminalreporter, self, exitstatus)

    def close(self) -> None:
        if self.results is not None:
            self.results.close()

        shutil.rmtree(run_scratch(self.started_at), ignore_errors=True)  # the workers are gone


class XdistControllerHooks:
    """The collector's hooks that exist only with pytest-xdist."""

    def __init__(self, collector: RunReporter) -> None:
        self.collector = collector
        self.generation: Any = None  # generation.remote.GenerationService, for remote hosts

    def pytest_configure_node(self, node: Any) -> None:
        from .generation.remote_service import GenerationService, is_remote

        # Workers judge "regenerate" against the controller's start, not their own.
        node.workerinput[STARTED_AT_KEY] = self.collector.started_at
        resume = self.collector.config.stash.get(RESUME_KEY, None)
        if resume is not None:  # a remote host has no copy of the results file
            node.workerinput[DONE_KEY] = sorted(resume.done)
        if not is_remote(node):
            # The workers of this machine count the tripwire's samples together, so that
            # it stops a suite after the run's first N, as without xdist.
            scratch = run_scratch(self.collector.started_at)
            node.workerinput[TRIPWIRE_STATE_KEY] = str(scratch / "tripwire.json")
        if is_remote(node):  # it shares no cache with us: we generate for it
            if self.generation is None:
                self.generation = GenerationService(
                    self.collector.config, self.collector.settings, self.collector.started_at
                )
            if self.generation.serves():
                self.generation.open_for(node)

    @pytest.hookimpl(tryfirst=True)  # before the collector's: its stats are the run's
    def pytest_sessionfinish(self) -> None:
        if self.generation is not None:
            self.collector.add_generation_stats(self.generation.stats())
            self.generation.close()
            self.generation = None

    @pytest.hookimpl(wrapper=True)  # -x/--maxfail exits 1 with xdist too, as without it
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        return (yield from xdist_maxfail_as_failure(session))

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.collector.expected.update(ids)

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if self.generation is not None:  # a host that went away must not be kept waiting
            self.generation.close_for(node)
        from .generation.remote_service import host_gone, is_remote

        if error is not None and is_remote(node) and host_gone(node):
            from .pytest_internals import xdist_replace_no_more

            # The run ends in order; --codegen-resume grades what it did not.
            if xdist_replace_no_more(self.collector.config):
                self.collector.hosts_gone.append(str(node.gateway.id))
        samples_file = getattr(node, "workeroutput", {}).get(SAMPLES_FILE_OUT)
        if samples_file:  # every worker collects the same: the first one's says it
            self.collector.config.stash.setdefault(SAMPLES_FILE_KEY, samples_file)
        deselected = getattr(node, "workeroutput", {}).get(DESELECTED_KEY, 0)
        self.collector.shard_deselected = max(self.collector.shard_deselected, deselected)
        stats = getattr(node, "workeroutput", {}).get(GENERATION_STATS_KEY)
        if stats:
            self.collector.add_generation_stats(stats)
