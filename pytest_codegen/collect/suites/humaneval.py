"""HumanEval format: JSON lines with ``task_id``, ``prompt``, ``canonical_solution``, ``test``
and ``entry_point`` (optionally ``category``). The prompt is a signature and docstring the
model continues; ``test`` defines ``check(candidate)``.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...jsonl import JSONLinesError, open_text, read_objects
from ...problems import MODE_PYTHON_CALL, Problem, SuiteError

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
    problems: list[Problem] = []
    seen: set[str] = set()
    try:
        rows = list(read_objects(path))
    except (OSError, EOFError) as e:
        raise SuiteError(f"{path}: cannot read ({e})") from None
    except JSONLinesError as e:
        raise SuiteError(str(e)) from None
    for where, row in rows:
        missing = [k for k in REQUIRED if not isinstance(row.get(k), str)]
        if missing:
            raise SuiteError(f"{where}: missing or non-string field(s) {', '.join(missing)}")
        task_id = row["task_id"]
        if task_id in seen:
            raise SuiteError(f"{where}: duplicate task_id {task_id!r}")
        seen.add(task_id)
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
    if not problems:
        raise SuiteError(f"{path}: no problems in file")
    return problems
