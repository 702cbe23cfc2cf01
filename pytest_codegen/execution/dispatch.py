"""Execution stage: grade one sample of one problem and return a :class:`Verdict`.

The code is taken from the answer as the policy says, then the problem's kind grades it
(see :mod:`pytest_codegen.kinds`). Python kinds run samples in :mod:`.python.sandbox`
children: HumanEval-style tests run here, in the trusted process, and every call of the
candidate crosses into the sandbox as plain data, so the sample never shares a process with
its tests; program kinds (Exec-CSN) run both in the sandbox. React problems go to the Jest
runner. Records say which kind (``mode``) graded each sample.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from .. import outcomes
from ..kinds.protocol import PYTHON, GradingRun, Kind
from ..kinds.registry import builtin_kinds
from ..outcomes import Verdict
from ..problems import Problem
from .cpus import pinned_to
from .extract import EXTRACT, ExtractionError, extract_code


def execute(
    problem: Problem,
    reply: str,
    limits: Any,
    *,
    kind: Kind | None = None,
    policy: str = EXTRACT,
    jest: Callable[[], Any] | None = None,
    hide: tuple[str, ...] = (),
) -> tuple[str, Verdict]:
    """Take the code from ``reply`` as ``policy`` says (see :func:`.extract.code_policy`) and
    grade it under ``limits`` (``python.sandbox.Limits``) as ``kind`` grades (by default the
    built-in kind of the problem); returns ``(code, verdict)``. ``jest`` makes the Jest
    runner; ``hide``: the files the sample must not see."""
    started = time.monotonic()
    if kind is None:
        kind = builtin_kinds().of(problem)
    run = GradingRun(limits, hide, policy, jest)
    code = reply
    if policy == EXTRACT:
        try:
            own = kind.extract(problem, reply)
            code = (
                own
                if own is not None
                else extract_code(
                    reply, problem.language, kind.entry_name(problem), kind.first_block
                )
            )
        except ExtractionError as e:
            return "", Verdict(outcomes.UNEXTRACTABLE, str(e), mode=problem.mode)
    # The grader on its samples' CPU too (see cpus.worker_cpus).
    pinned = pinned_to(limits.cpus) if kind.runtime == PYTHON else contextlib.nullcontext()
    with pinned:
        verdict = kind.grade(problem, code, run)
    verdict.duration_s = time.monotonic() - started
    return code, verdict
