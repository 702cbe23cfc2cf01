"""Collection stage: suites become pytest items, one per (problem, sample).

Node ids are ``<suite file>::<problem id>[s<i>]`` (the problem id sanitised), built-in suites
use their name as the file part (``humaneval::HumanEval_0[s3]``). Pasting a printed id reruns
exactly that sample; ``<suite file>::<problem id>`` reruns all its samples; ``-k`` matches
problem ids, categories and suite names.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..keys import runner_of, settings_of
from ..kinds.registry import kinds_of
from ..outcomes import SampleFailed, SampleNotGenerated
from ..problems import Problem, SuiteError, distinct_node_names, mark_unsolvable, suite_limits
from ..pytest_internals import (
    CollectErrorLine,
    ShortFailureRepr,
    fixture_closure,
    give_param_id,
)
from ..user_hooks import HookFailure, call_hook
from .sample_counts import samples_of
from .samples_file import note_loaded
from .selection import BuiltinSelection, claim_problems, named_suite

if TYPE_CHECKING:
    from ..models.base import Completion
    from ..outcomes import Verdict
    from ..reporting.records import SampleRecord

# Outer time allowed for one repair round's model request (with its retries).
REPAIR_REQUEST_BUDGET_S = 900


class SuiteSamples:
    """Collector mixin: a suite's children are the samples of its problems."""

    config: pytest.Config
    path: Path

    def load_problems(self) -> list[Problem]:
        """The problems read at start (see ``selection.read_at_start``), else read now (a
        suite found in a directory, or a second collection in one process)."""
        problems = named_suite(self.config, self.path)
        if problems is None:
            problems = call_hook("pytest_codegen_load_suite", path=self.path, config=self.config)
        note_loaded(self.config, self.path, problems or [])
        return problems

    def wants(self, problem_name: str, item_name: str) -> bool:
        """Whether to collect the sample ``item_name`` (all, unless a selection says)."""
        return True

    def collect(self) -> Iterator[SampleItem]:
        kinds = kinds_of(self.config)
        try:
            problems = self.load_problems()
            distinct_node_names(str(self.path), problems)
            claim_problems(self.config, self.path, problems)
        except SuiteError as e:
            raise self.CollectError(str(e)) from None
        fixtureinfo = None  # resolved for the first item, given to the rest
        for problem in problems:
            name = problem.node_name
            try:
                kind = kinds.of(problem)
            except ValueError as e:  # a loader's problem that no kind grades
                raise self.CollectError(f"{self.path}: {e}") from None
            samples = samples_of(self.config, problem)
            wanted = [i for i in range(samples) if self.wants(name, f"{name}[s{i}]")]
            issues = kind.check(problem) if wanted else []
            if issues:  # graded as an error, with the reason, whatever the model writes
                mark_unsolvable(problem, "; ".join(issues))
            for index in wanted:
                item = SampleItem.from_parent(
                    self, problem=problem, sample_index=index, fixtureinfo=fixtureinfo
                )
                fixtureinfo = fixture_closure(item)
                yield item

    class CollectError(Exception):
        """A suite that cannot be read; pytest shows just this message."""

    def repr_failure(self, excinfo: Any) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, (self.CollectError, SuiteError, HookFailure)):
            return CollectErrorLine(str(excinfo.value))
        return super().repr_failure(excinfo)  # type: ignore[misc]


class SuiteFile(SuiteSamples, pytest.File):
    """A suite file: pytest found it as a path, and matches pasted ids against its items."""

    @classmethod
    def from_parent(cls, parent: pytest.Collector, *, path: Path) -> SuiteFile:  # type: ignore[override]
        # pytest's id of a file outside the rootdir named on the command line is empty
        # ("::HumanEval_0[s0]"): two such suites' samples would share ids, and so records.
        # Such a file's id is its path from the rootdir ("../suites/x.jsonl"), as inside.
        rootpath = parent.config.rootpath
        if path.is_relative_to(rootpath):
            return super().from_parent(parent, path=path)  # type: ignore[no-any-return]
        nodeid = Path(os.path.relpath(path, rootpath)).as_posix()
        return super().from_parent(parent, path=path, nodeid=nodeid)  # type: ignore[no-any-return]


class BuiltinSuite(SuiteSamples, pytest.Collector):
    """A built-in suite named on the command line; its node id is the suite's name.

    It yields only the samples its :class:`~.selection.BuiltinSelection` asks for, since
    pytest does not match ids against it (it found no path). It is a plain collector, not a
    ``pytest.File``: once ``--lf`` has met a failed sample in some file, it skips every file
    that is not on the path of a failed id, and ``humaneval`` is no path, so as a file it
    would be skipped whole; as it is, ``--lf`` selects its failed samples by id, as it does
    those of a suite file named on the command line.
    """

    def __init__(self, *, selection: BuiltinSelection, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.selection = selection

    @classmethod
    def from_parent(  # type: ignore[override]
        cls, parent: pytest.Session, *, selection: BuiltinSelection
    ) -> BuiltinSuite:
        return super().from_parent(
            parent,
            name=selection.name,
            path=selection.path,
            nodeid=selection.name,
            selection=selection,
        )

    def wants(self, problem_name: str, item_name: str) -> bool:
        return self.selection.rank(problem_name, item_name) is not None

    def collect(self) -> Iterator[SampleItem]:
        # In the order the ids were given, as pytest runs a file's pasted ids.
        items = list(super().collect())
        items.sort(key=lambda item: self.selection.rank(item.problem.node_name, item.name) or 0)
        return iter(items)


def _grade(request: pytest.FixtureRequest, codegen_model: Any) -> None:
    """The test function of every sample item (fixtures resolve through its signature)."""
    request.node.grade(codegen_model)


class SampleItem(ShortFailureRepr, pytest.Function):
    """One sample of one problem: generate (setup), execute and check (call).

    The work is the process's :class:`~pytest_codegen.runner.SampleRunner`'s; the item holds
    what it produced for this sample.
    """

    def __init__(self, *, problem: Problem, sample_index: int, **kwargs: Any) -> None:
        name = f"{problem.node_name}[s{sample_index}]"
        super().__init__(name=name, callobj=_grade, **kwargs)
        self.problem = problem
        self.sample_index = sample_index
        # The task id as written too (`-k HumanEval/7`), not only as its node name.
        keywords = {problem.category, problem.suite, problem.node_name, problem.id}
        self.extra_keyword_matches.update(keywords)
        give_param_id(self, problem.node_name, f"s{sample_index}")
        self.add_marker("codegen")  # `-m codegen`: the samples, not the project's tests
        # pytest-timeout stays the outer guard of the execution (see outer_guard); generation,
        # in setup, has its own retry budget.
        self.sample_limit_s = max(
            settings_of(self.config).timeout, suite_limits(problem).timeout_s or 0
        )
        self.add_marker(self.outer_guard(self.sample_limit_s))
        self.completion: Completion | None = None
        self.code = ""
        self.verdict: Verdict | None = None
        self.record: SampleRecord | None = None
        self.record_sent = False  # the record went out with one of this item's reports

    def outer_guard(self, grading_s: float) -> pytest.MarkDecorator:
        """pytest-timeout's limit of the call: above ``grading_s``, the longest one grading
        may take, times the gradings (its reruns, a second when the tests leave the planned
        calls, those of repair rounds) and each repair round's request with its retries."""
        opts = settings_of(self.config)
        executions = 2 * (1 + opts.reruns + opts.repair_rounds)
        return pytest.mark.timeout(
            grading_s * executions + 60 + REPAIR_REQUEST_BUDGET_S * opts.repair_rounds,
            # Whatever --timeout-method says: the thread method ends the whole process, every
            # later sample and the summary of a run without xdist with it.
            method="signal" if hasattr(signal, "SIGALRM") else None,
            func_only=True,
        )

    def setup(self) -> None:
        super().setup()
        runner_of(self.config).generate(self)
        # The benchmark's own limits can add up to more than the sample limit (APPS: 4 s a
        # test), known once its tests are read: this guard then comes first.
        grading_s = (
            kinds_of(self.config).of(self.problem).grading_s(self.problem, self.sample_limit_s)
        )
        if grading_s > self.sample_limit_s:
            self.add_marker(self.outer_guard(grading_s), append=False)

    def grade(self, model: Any) -> None:
        runner_of(self.config).grade(self)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        problem = self.problem
        return self.path, None, f"{problem.suite}: {problem.id} sample {self.sample_index}"

    def short_failure(self, excinfo: Any) -> str | None:
        """The short headline of a grading outcome; None for a real error (full traceback)."""
        if isinstance(excinfo.value, (SampleFailed, SampleNotGenerated)):
            return str(excinfo.value)
        return None


class BuiltinSuites:
    """Adds one collector per selected built-in suite to what the session collects, after
    the collectors pytest found for the remaining (path) arguments."""

    def __init__(self, selections: dict[str, BuiltinSelection]) -> None:
        self.selections = selections

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.extend(
                BuiltinSuite.from_parent(collector, selection=sel)
                for sel in self.selections.values()
            )
        return report
