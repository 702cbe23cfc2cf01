"""What a benchmark is made of: problems, grouped in suites.

Every suite format (HumanEval JSONL, Exec-CSN JSON, WebApp1K test trees, ...) is read into these
plain objects by the loader of its kind (:mod:`pytest_codegen.kinds`); every later stage only
sees them.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

# How a sample of a problem is graded; the execute stage dispatches on it.
MODE_PYTHON_CALL = "python-call"  # tests in a trusted process call the candidate in a sandbox
MODE_PYTHON_PROGRAM = "python-program"  # sample and tests run together in the sandbox
MODE_JEST = "jest"  # a React component graded by its Jest test file
# HumanEval+/MBPP+: the candidate's outputs compared with the canonical solution's, in here
MODE_EVALPLUS = "evalplus"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One benchmark task.

    ``prompt`` is what the model sees; ``tests`` is what grades it (its shape depends on
    ``mode``); ``reference`` is a known-good completion in the same form a model returns.
    ``extra`` keeps format-specific fields the executor needs (entry point, masked program,
    the file name a React test imports, ...). Everything here is plain data.
    """

    id: str
    suite: str
    category: str
    language: str
    mode: str
    prompt: str
    tests: str
    reference: str | None = None
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def node_name(self) -> str:
        """The problem id as it appears in pytest node ids."""
        return sanitize_node_name(self.id)


class SuiteError(Exception):
    """A suite file that cannot be read; the message names the file and what is wrong."""


_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


def sanitize_node_name(problem_id: str) -> str:
    """Map a problem id to a node-id-safe name (``HumanEval/0`` -> ``HumanEval_0``).

    ``::``, ``[``, ``]``, ``/`` and spaces all have a meaning on pytest's command line, so a
    pasted node id only works if the name avoids them.
    """
    return _UNSAFE.sub("_", problem_id).strip("_") or "problem"
