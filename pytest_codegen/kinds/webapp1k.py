"""WebApp1K-style React problems (``jest``): a component graded by its Jest test file in the
managed Node environment."""

from __future__ import annotations

from pathlib import Path

from ..collect.suites.webapp1k import check_problem, load_test_file, load_webapp1k
from ..outcomes import Verdict
from ..problems import MODE_JEST, Problem
from .protocol import NODE, GradingRun, Kind

EMPTY_COMPONENT = "import React from 'react';\nexport default function App() { return null; }\n"


class WebApp1KKind(Kind):
    name = MODE_JEST
    runtime = NODE
    time_floor_s = 5.0  # Jest's default per test

    def claims(self, path: Path, explicit: bool) -> bool:
        return path.name.endswith(".test.js") or (explicit and path.is_dir())

    def suite_root(self, path: Path) -> Path:
        # <suite dir>/<category>/<name>.test.js: the suite is named after its directory.
        return path.parent.parent if path.is_file() else path

    def load(self, path: Path, suite: str) -> list[Problem]:
        if path.is_dir():
            return load_webapp1k(path, suite)
        return [load_test_file(path, suite)]

    def empty_solution(self, problem: Problem) -> str:
        return EMPTY_COMPONENT

    def check(self, problem: Problem) -> list[str]:
        return check_problem(problem)

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        if run.jest is None:
            raise RuntimeError("React problems need the Jest runner")
        return run.jest().run(
            test_source=problem.tests,
            test_filename=problem.extra["test_filename"],
            solution_filename=problem.extra["solution_filename"],
            solution_code=code,
            timeout_s=run.limits.timeout_s,
        )
