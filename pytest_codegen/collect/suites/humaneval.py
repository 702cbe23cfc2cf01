"""HumanEval format: JSON lines with ``task_id``, ``prompt``, ``canonical_solution``, ``test``
and ``entry_point`` (optionally ``category``). The prompt is a signature and docstring the
model continues; ``test`` defines ``check(candidate)``.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...jsonl import open_text
from ...problems import MODE_PYTHON_CALL, Problem

REQUIRED = ("task_id", "prompt", "test", "entry_point")


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
    from . import read_rows

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
                extra={"entry_point": row["entry_point"]},
            )
        )
    return problems
