"""A HumanEval-format suite of as many tiny problems as wanted (``f_i(x) = x + i``), and a
model reply that solves each: for throughput and concurrency runs against a fake server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_ENTRY = re.compile(r"def f_(\d+)\(")


def write_suite(path: Path, n: int) -> Path:
    rows = [
        {
            "task_id": f"tiny/{i}",
            "prompt": f'def f_{i}(x):\n    """Return x plus {i}."""\n',
            "canonical_solution": f"    return x + {i}\n",
            "test": f"def check(candidate):\n    assert candidate(1) == 1 + {i}\n",
            "entry_point": f"f_{i}",
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def reply(request: Any, index: int) -> str:
    """The right answer to a tiny problem, fenced as chat models reply."""
    match = _ENTRY.search(request.user_text)
    i = int(match.group(1)) if match else 0
    return f"Here you go:\n\n```python\ndef f_{i}(x):\n    return x + {i}\n```\n"
