"""Execution stage: grade one sample of one problem and return a :class:`Verdict`.

Python problems run in :mod:`.python.sandbox` children, graded by :mod:`.python.grader`. In
``python-call`` mode the benchmark's tests run here, in the trusted process, and every call of
the candidate crosses into the sandbox as plain data — the sample never shares a process with
its tests, so it cannot rebind ``check``, lie about equality or forge a verdict.
``python-program`` mode (formats whose tests live inside the program, like Exec-CSN) runs both
in the sandbox; results say which mode graded each sample. React problems go to the Jest
runner.
"""

from __future__ import annotations

import time
from typing import Any

from .. import outcomes, problems
from ..outcomes import Verdict
from ..problems import Problem
from .cpus import pinned_to
from .extract import EXTRACT, ExtractionError, extract_code
from .python.grader import run_python_call, run_python_program
from .python.sandbox import Limits

_PYTHON_MODES = (problems.MODE_PYTHON_CALL, problems.MODE_PYTHON_PROGRAM, problems.MODE_EVALPLUS)


def execute(
    problem: Problem,
    reply: str,
    limits: Limits,
    *,
    policy: str = EXTRACT,
    jest: Any = None,
    hide: tuple[str, ...] = (),
) -> tuple[str, Verdict]:
    """Take the code from ``reply`` as ``policy`` says (see :func:`.extract.code_policy`)
    and grade it; returns ``(code, verdict)``."""
    started = time.monotonic()
    code = reply
    if policy == EXTRACT:
        prefer = problem.extra.get("entry_point") or problem.extra.get("func_name")
        try:
            code = extract_code(reply, problem.language, prefer=prefer)
        except ExtractionError as e:
            return "", Verdict(outcomes.UNEXTRACTABLE, str(e), mode=problem.mode)
    if problem.mode in _PYTHON_MODES:
        # The grader on its samples' CPU too (see cpus.worker_cpus).
        with pinned_to(limits.cpus):
            if problem.mode == problems.MODE_PYTHON_CALL:
                verdict = run_python_call(problem, code, limits, hide, policy=policy)
            elif problem.mode == problems.MODE_EVALPLUS:
                from .python.evalplus import run_evalplus

                verdict = run_evalplus(problem, code, limits, hide, policy=policy)
            else:  # the program's own splicing decides what of the code runs
                verdict = run_python_program(problem, code, limits, hide)
    elif problem.mode == problems.MODE_JEST:
        if jest is None:
            raise RuntimeError("React problems need the Jest runner")
        verdict = jest.run(
            test_source=problem.tests,
            test_filename=problem.extra["test_filename"],
            solution_filename=problem.extra["solution_filename"],
            solution_code=code,
            timeout_s=limits.timeout_s,
        )
    else:
        raise ValueError(f"unknown grading mode {problem.mode!r} for {problem.id}")
    verdict.duration_s = time.monotonic() - started
    return code, verdict
