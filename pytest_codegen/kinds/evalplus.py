"""HumanEval+/MBPP+ (``evalplus``): the candidate's outputs on the base and plus inputs
compared with the canonical solution's, as EvalPlus compares them, under EvalPlus's own
per-input time limits."""

from __future__ import annotations

from pathlib import Path

from ..collect.suites.evalplus import load_evalplus, looks_like_evalplus
from ..execution.python.evalplus import run_evalplus
from ..outcomes import Verdict
from ..problems import MODE_EVALPLUS, Problem
from .humaneval import JSONL
from .protocol import PYTHON, GradingRun, Kind


class EvalPlusKind(Kind):
    name = MODE_EVALPLUS
    runtime = PYTHON
    own_time_limits = "EvalPlus's per-input limits"
    continues_prompt = True

    def claims(self, path: Path, explicit: bool) -> bool:
        return path.name.endswith(JSONL) and looks_like_evalplus(path)

    def load(self, path: Path, suite: str) -> list[Problem]:
        return load_evalplus(path, suite)

    def entry_name(self, problem: Problem) -> str | None:
        return problem.extra.get("entry_point")

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        return run_evalplus(problem, code, run.limits, run.hide, policy=run.policy)
