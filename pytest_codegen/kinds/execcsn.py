"""Exec-CSN / CodeBenchGen programs (``python-program``): the sample's function spliced into
the masked program, whose own tests run with it in the sandbox (as CodeBenchGen's harness
runs them, with its limits: 10 s, 4 GiB, failing words on stderr), sealed: a pass is what
only the real end of the tests can write (see ``execution/python/verdict_seal.py``)."""

from __future__ import annotations

from pathlib import Path

from .. import outcomes
from ..execution.python.grader import grade_in_sandbox
from ..execution.python.sandbox import Limits
from ..outcomes import Verdict
from ..problems import MODE_PYTHON_PROGRAM, Problem
from .execcsn_program import extract_function, splice
from .execcsn_rows import load_execcsn
from .fields import execcsn_fields
from .protocol import PYTHON, GradingRun, Kind


class ExecCSNKind(Kind):
    name = MODE_PYTHON_PROGRAM
    runtime = PYTHON
    time_floor_s = 10.0  # CodeBenchGen's harness

    def claims(self, path: Path, explicit: bool) -> bool:
        return explicit and path.name.endswith(".json")

    def load(self, path: Path, suite: str) -> list[Problem]:
        return load_execcsn(path, suite)

    def entry_name(self, problem: Problem) -> str | None:
        return execcsn_fields(problem).get("func_name")

    def empty_solution(self, problem: Problem) -> str:
        return empty_function(execcsn_fields(problem).get("func_name", "solution"))

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        return run_python_program(problem, code, run.limits, run.hide)


def empty_function(func_name: str) -> str:
    """The definition of ``func_name`` (a qualified name: its last part) with a ``pass`` body."""
    return f"def {func_name.rsplit('.', 1)[-1]}(*args, **kwargs):\n    pass\n"


def run_python_program(
    problem: Problem, code: str, limits: Limits, hide: tuple[str, ...] = ()
) -> Verdict:
    # A reply without the target leaves the mask empty, as CodeBenchGen's harness runs it.
    func = extract_function(code, execcsn_fields(problem)["func_name"]) or ""
    program = splice(problem, func)

    def classify(e: Exception) -> Verdict:
        kind = getattr(e, "candidate_type", type(e).__name__)
        outcome = outcomes.FAILED if kind == "AssertionError" else outcomes.ERROR
        verdict = Verdict(outcome, f"{kind}: {e}" if str(e) else kind)
        verdict.stderr = getattr(e, "candidate_traceback", "")
        return verdict

    return grade_in_sandbox(
        limits,
        hide,
        MODE_PYTHON_PROGRAM,
        lambda box: box.run_program(func, program),
        classify,
        stderr_apart=True,
        sealed=True,  # a fresh interpreter: the zygote's imports would not reach it
    )
