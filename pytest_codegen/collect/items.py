"""Collection stage: suites become pytest items, one per (problem, sample).

Node ids are ``<suite file>::<problem id>[s<i>]`` (the problem id sanitised), built-in suites
use their name as the file part (``humaneval::HumanEval_0[s3]``). Pasting a printed id reruns
exactly that sample; ``<suite file>::<problem id>`` reruns all its samples; ``-k`` matches
problem ids, categories and suite names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..outcomes import SampleFailed, SampleNotGenerated
from ..problems import MODE_JEST, Problem, SuiteError
from ..pytest_internals import ShortFailureRepr, fixture_closure, give_param_id
from ..runner import runner_of
from ..settings import settings_of
from .selection import named_suite

if TYPE_CHECKING:
    from ..models.base import Completion
    from ..outcomes import Verdict
    from ..reporting.records import SampleRecord

# Outer time allowed for one repair round's model request (with its retries).
REPAIR_REQUEST_BUDGET_S = 900


class SuiteFile(pytest.File):
    """A suite file (or a built-in suite); its children are the samples of its problems."""

    suite_name: str = ""

    def collect(self) -> Iterator[SampleItem]:
        samples = settings_of(self.config).samples
        problems = named_suite(self.config, self.path)
        try:
            if problems is None:
                problems = self.config.hook.pytest_codegen_load_suite(
                    path=self.path, config=self.config
                )
        except SuiteError as e:
            raise self.CollectError(str(e)) from None
        seen: dict[str, str] = {}
        fixtureinfo = None  # resolved for the first item, given to the rest
        for problem in problems:
            name = problem.node_name
            if name in seen:
                raise self.CollectError(
                    f"{self.path}: problems {seen[name]!r} and {problem.id!r} map to the same "
                    f"node name {name!r}"
                )
            seen[name] = problem.id
            if problem.mode == MODE_JEST:
                from .suites.webapp1k import check_problem

                issues = check_problem(problem)
                if issues:  # graded as an error, with the reason, whatever the model writes
                    problem.extra["unsolvable"] = "; ".join(issues)
            for index in range(samples):
                item = SampleItem.from_parent(
                    self, problem=problem, sample_index=index, fixtureinfo=fixtureinfo
                )
                fixtureinfo = fixture_closure(item)
                yield item

    class CollectError(Exception):
        """A suite that cannot be read; pytest shows just this message."""

    def repr_failure(self, excinfo: Any) -> str:  # type: ignore[override]
        if isinstance(excinfo.value, (self.CollectError, SuiteError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


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
        self.extra_keyword_matches.update({problem.category, problem.suite, problem.node_name})
        give_param_id(self, problem.node_name, f"s{sample_index}")
        # pytest-timeout stays the outer guard of the execution, above the sample limit (and
        # its reruns, and a second grading when the tests leave the planned calls);
        # generation, in setup, has its own retry budget, and so does each repair round's
        # request.
        opts = settings_of(self.config)
        executions = 2 * (1 + opts.reruns + opts.repair_rounds)
        self.add_marker(
            pytest.mark.timeout(
                opts.timeout * executions + 60 + REPAIR_REQUEST_BUDGET_S * opts.repair_rounds,
                func_only=True,
            )
        )
        self.completion: Completion | None = None
        self.code = ""
        self.verdict: Verdict | None = None
        self.record: SampleRecord | None = None
        self.record_sent = False  # the record went out with one of this item's reports

    def setup(self) -> None:
        super().setup()
        runner_of(self.config).generate(self)

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


def make_builtin_file(session: pytest.Session, name: str, path: Path) -> SuiteFile:
    """A collector for a built-in suite; its node id is the suite's name."""
    node = SuiteFile.from_parent(session, path=path, nodeid=name)
    node.suite_name = name
    return node
