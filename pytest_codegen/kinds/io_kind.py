"""What the kinds of whole programs judged on input and expected output share (LiveCodeBench,
APPS): files recognised by their first row, every test case run in one sandbox per sample
(:mod:`..execution.python.io_grader`), the first failing case in the record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import outcomes
from ..execution.python.io_grader import Case, Rules, case_record_fields, run_io_cases
from ..jsonl import first_value
from ..outcomes import Verdict
from ..problems import Problem, SuiteError, derived
from .humaneval import JSONL
from .protocol import PYTHON, GradingRun, Kind


class IOKind(Kind):
    """A kind whose problems are programs run on test cases. Subclasses say which rows are
    theirs (:meth:`is_row`) and a problem's cases (:meth:`cases`)."""

    runtime = PYTHON

    def is_row(self, row: Any) -> bool:
        """Whether ``row`` (a file's first, parsed) is one of this kind's problems."""
        raise NotImplementedError

    def cases(self, problem: Problem) -> tuple[str | None, list[Case], Rules]:
        """(the function a call-based problem calls, or None; its cases; the rules they are
        judged by); raises ``SuiteError`` for tests that cannot be read."""
        raise NotImplementedError

    def claims(self, path: Path, explicit: bool) -> bool:
        # Only line 1 is read: a row can hold megabytes of hidden tests.
        return path.name.endswith(JSONL) and self.is_row(first_value(path))

    def empty_solution(self, problem: Problem) -> str:
        return "import sys\n"  # a program that reads nothing and prints nothing

    def record_fields(self, verdict: Verdict) -> dict[str, Any]:
        return case_record_fields(verdict.tests)

    def grading_s(self, problem: Problem, limit_s: float) -> float:
        def total_s() -> float:  # read once per problem: hidden tests can be megabytes
            try:
                _, cases, rules = self.cases(problem)
            except SuiteError:  # graded as quarantined, at once
                return 0.0
            return rules.total_s(len(cases))

        return max(limit_s, derived(problem, "io-total-s", total_s))

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        try:
            func_name, cases, rules = self.cases(problem)
        except SuiteError as e:  # its tests cannot be read: the problem grades nothing
            return Verdict(outcomes.QUARANTINED, str(e), mode=self.name)
        return run_io_cases(code, func_name, cases, rules, run.limits, run.hide, self.name)
