"""One timed run of the plugin with -n 2 on a suite file and replayed samples, for the
throughput scripts that compare it with a benchmark's own grader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

# How every measured run of pytest starts. The dev extra's hypothesis registers a pytest
# plugin that imports all of hypothesis in every pytest process (~0.4 s each: over a second of
# a -n 2 run's start); a user's install of pytest-codegen has no such plugin.
PYTEST = ("-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def run_pytest_codegen(
    data: Path, samples: Path, work: Path, n: int, python: str = sys.executable
) -> tuple[float, list[dict]]:
    """(wall time, the records of ``--codegen-results``) of grading ``samples`` (N a problem),
    with the plugin installed for ``python`` (another checkout's virtualenv: an A/B)."""
    results = work / "r.jsonl"
    results.unlink(missing_ok=True)
    started = time.perf_counter()
    subprocess.run(
        [python, *PYTEST, "-q", "-n", "2", str(data)]
        + [f"--codegen-model=replay:{samples}", f"--codegen-samples={n}"]
        + [f"--codegen-results={results}", "--codegen-k=1"],
        cwd=work,
        env={**os.environ, "PYTEST_CODEGEN_CACHE": str(work / "codegen-cache")},
        capture_output=True,
    )
    wall = time.perf_counter() - started
    return wall, [json.loads(line) for line in results.read_text().splitlines()]
