"""EvalPlus format (HumanEval+ and MBPP+ release files): JSON lines with ``task_id``,
``prompt``, ``entry_point``, ``canonical_solution``, ``base_input``, ``plus_input`` and
``atol`` (and ``contract``, ``test``, which grading does not use).

A problem is graded by comparing the candidate's outputs with the canonical solution's on
every input (see :mod:`pytest_codegen.execution.python.evalplus_grader`), not by running tests. An
MBPP+ task (``Mbpp/N``) is graded by MBPP+'s rules, a HumanEval+ one by HumanEval+'s; MBPP+
inputs are stored as JSON, and some tasks take tuples, sets or complex numbers, which EvalPlus
rebuilds by task number when it reads the file: so do we. EvalPlus's own per-input time limits
apply, not one derived per sample.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..collect.builtin_suites import read_rows
from ..execution.python.evalplus_grader import PARTS, SANDBOX_TIMEOUT_S, run_evalplus
from ..jsonl import open_text
from ..outcomes import Verdict
from ..problems import MODE_EVALPLUS, Problem, SuiteError, SuiteLimits
from .fields import evalplus_fields
from .humaneval import JSONL
from .protocol import PYTHON, GradingRun, Kind

REQUIRED = ("task_id", "prompt", "entry_point", "canonical_solution", "base_input", "plus_input")
HUMANEVAL, MBPP = "humaneval", "mbpp"
# EvalPlus's memory cap for a sample (EVALPLUS_MAX_MEMORY_BYTES' default).
MEMORY_LIMIT_BYTES = 4 * 1024**3


def is_evalplus_row(row: Any) -> bool:
    """A row in EvalPlus's format: it has base or plus inputs (the loader then says what
    else it lacks)."""
    return isinstance(row, dict) and ("base_input" in row or "plus_input" in row)


def looks_like_evalplus(path: Path) -> bool:
    """Whether line 1 of ``path`` is an EvalPlus problem."""
    try:
        with open_text(path) as fh:
            first = fh.readline()
        return is_evalplus_row(json.loads(first))
    except (OSError, ValueError, EOFError):
        return False


def dataset_of(task_id: str) -> str:
    """Which rules grade a task: MBPP+'s for ``Mbpp/N``, HumanEval+'s otherwise."""
    return MBPP if task_id.startswith("Mbpp/") else HUMANEVAL


def _lacking(row: dict[str, Any]) -> list[str]:
    return [k for k in REQUIRED[:4] if not isinstance(row.get(k), str)] + [
        k for k in REQUIRED[4:] if not isinstance(row.get(k), list)
    ]


def load_evalplus(path: Path, suite: str) -> list[Problem]:
    problems: list[Problem] = []
    for where, row in read_rows(path, _lacking, kind="malformed"):
        task_id = row["task_id"]
        atol = row.get("atol", 0)
        if isinstance(atol, bool) or not isinstance(atol, (int, float)) or atol < 0:
            raise SuiteError(f"{where}: atol must be a number >= 0, not {atol!r}")
        dataset = dataset_of(task_id)
        inputs = {}
        for part in ("base", "plus"):
            given = row[f"{part}_input"]
            bad = next((i for i, inp in enumerate(given) if not isinstance(inp, list)), None)
            if bad is not None:
                raise SuiteError(f"{where}: {part}_input[{bad}] is not a list of arguments")
            inputs[part] = mbpp_inputs(task_id, given) if dataset == MBPP else given
        problems.append(
            Problem(
                id=task_id,
                suite=suite,
                category=str(row.get("category") or suite),
                language="python",
                mode=MODE_EVALPLUS,
                prompt=row["prompt"],
                tests=str(row.get("test") or ""),
                reference=row["canonical_solution"],
                extra={
                    "entry_point": row["entry_point"],
                    "dataset": dataset,
                    "atol": atol,
                    "base_input": inputs["base"],
                    "plus_input": inputs["plus"],
                    **SuiteLimits(memory_limit_bytes=MEMORY_LIMIT_BYTES).to_extra(),
                },
            )
        )
    return problems


# -- MBPP+ inputs: JSON lists back into the types their functions take ----------------------
# The task numbers are MBPP+'s (as EvalPlus 0.3.1 reads MbppPlus.jsonl); each group names the
# shape of its inputs.


def _tuples(items: Any) -> list[Any]:
    return [tuple(x) for x in items]


def _deep_tuple(value: Any) -> Any:
    return tuple(_deep_tuple(v) for v in value) if isinstance(value, list) else value


_EACH_ARG_A_TUPLE = {2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560}
_EACH_ARG_A_TUPLE |= {579, 596, 616, 630, 726, 740, 744, 809}
_EACH_ARG_A_LIST_OF_TUPLES = {63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473}
_EACH_ARG_A_LIST_OF_TUPLES |= {614, 780}
_FIRST_A_LIST_OF_TUPLES = {75, 413, 444, 753}
_SECOND_A_TUPLE = {106, 750}
_FIRST_A_TUPLE = {250, 405, 446, 617, 720, 763, 808}
_EACH_ARG_A_TUPLE_OF_TUPLES = {259, 401, 445}
_ALL_TUPLES = {580, 615, 791}


def mbpp_inputs(task_id: str, inputs: list[Any]) -> list[Any]:
    """MBPP+ task ``task_id``'s inputs with the tuples, sets and complex numbers that JSON
    lost rebuilt."""
    try:
        number = int(task_id.rsplit("/", 1)[-1])
    except ValueError:
        return inputs
    if number in _EACH_ARG_A_TUPLE:
        return [_tuples(args) for args in inputs]
    if number in _EACH_ARG_A_LIST_OF_TUPLES:
        return [[_tuples(arg) for arg in args] for args in inputs]
    if number in _FIRST_A_LIST_OF_TUPLES:
        return [[_tuples(args[0]), args[1]] for args in inputs]
    if number in _SECOND_A_TUPLE:
        return [[args[0], tuple(args[1])] for args in inputs]
    if number in _FIRST_A_TUPLE:
        return [[tuple(args[0]), args[1]] for args in inputs]
    if number in _EACH_ARG_A_TUPLE_OF_TUPLES:
        return [[tuple(_tuples(arg)) for arg in args] for args in inputs]
    if number in _ALL_TUPLES:
        return [_deep_tuple(args) for args in inputs]
    if number == 115:  # a list of sets; an empty one becomes {} (as EvalPlus makes it)
        return [[[set(x) if isinstance(x, list) and x else {} for x in args[0]]] for args in inputs]
    if number == 124:
        return [(float(args[0]), complex(args[1])) for args in inputs]
    if number == 252:
        return [[complex(args[0])] for args in inputs]
    if number == 278:
        return [[tuple(tuple(x) if isinstance(x, list) else x for x in args[0])] for args in inputs]
    if number == 307:
        return [[tuple(args[0]), args[1], args[2]] for args in inputs]
    if number == 722:
        return [[{k: tuple(v) for k, v in args[0].items()}, *args[1:]] for args in inputs]
    return inputs


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
        return evalplus_fields(problem)["entry_point"]

    def record_fields(self, verdict: Verdict) -> dict[str, Any]:
        # EvalPlus's own columns: the base tests' verdict and the base + plus tests'.
        return {f"{test['name']}_outcome": test["status"] for test in verdict.tests}

    def grading_s(self, problem: Problem, limit_s: float) -> float:
        return max(limit_s, len(PARTS) * SANDBOX_TIMEOUT_S)  # a sandbox for each set

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        return run_evalplus(problem, code, run.limits, run.hide, policy=run.policy)
