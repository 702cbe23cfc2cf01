"""Grading with Jest's own command line: the yardstick the warm runner is held to.

The warm runner (:mod:`.warm_runner`) keeps one Node process per worker and shares
read-only work between test files. Plain ``jest --ci --json`` over a tree of sample
directories gives every file a fresh module registry and a fresh jsdom, with the same
toolchain and the same Babel/Jest configuration (unhardened: no guard, no permission model).
Per-test results of the two must agree; the equivalence test and
``benchmarks/perf/react_throughput.py`` check that.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...kinds.fields import webapp1k_fields
from ...problems import Problem
from ..extract import extract_code
from .node_env import PACKAGE_DIR, NodeInfo

Sample = tuple[str, int]  # (task_id, sample_index)

# A jest.config.js for a tree of samples: our configuration, unhardened, rooted where it lies.
JEST_CONFIG = (
    f"module.exports = require({json.dumps(str(PACKAGE_DIR / 'jest.config.js'))})"
    ".cliConfig(__dirname);\n"
)


def lay_out(
    root: Path,
    problems: dict[str, Problem],
    rows: Iterable[dict[str, Any]],
    with_config: bool = False,
) -> dict[Sample, Path]:
    """Write each row's sample into ``root/<task_id>/s<sample_index>/`` next to a copy of its
    test (and a ``jest.config.js`` there when ``with_config``, for one jest run per sample);
    ``root`` itself gets a config for one run over the whole tree."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "jest.config.js").write_text(JEST_CONFIG)
    dirs: dict[Sample, Path] = {}
    for row in rows:
        problem = problems[row["task_id"]]
        sample_dir = root / row["task_id"] / f"s{row['sample_index']}"
        sample_dir.mkdir(parents=True)
        files = webapp1k_fields(problem)
        (sample_dir / files["test_filename"]).write_text(problem.tests)
        code = extract_code(row["completion"], problem.language, first_block=True)
        (sample_dir / files["solution_filename"]).write_text(code)
        if with_config:
            (sample_dir / "jest.config.js").write_text(JEST_CONFIG)
        dirs[(row["task_id"], row["sample_index"])] = sample_dir
    return dirs


def run_jest(
    node: NodeInfo, toolchain: Path, cwd: Path, report: Path, workers: int, timeout_s: float = 3600
) -> None:
    """``jest --ci --json`` over every test file under ``cwd`` (its ``jest.config.js``)."""
    jest = toolchain / "node_modules" / "jest" / "bin" / "jest.js"
    env = dict(os.environ, PYTEST_CODEGEN_TOOLCHAIN=str(toolchain), NODE_ENV="test")
    env["PATH"] = os.pathsep.join([str(Path(node.path).parent), env.get("PATH", "")])
    cmd = [
        node.path,
        str(jest),
        "--config",
        str(cwd / "jest.config.js"),
        "--ci",
        "--json",
        f"--outputFile={report}",
        f"--maxWorkers={workers}",
    ]
    subprocess.run(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=timeout_s,
    )


def read_report(report: Path, dirs: dict[Sample, Path]) -> dict[Sample, dict[str, Any]]:
    """Per sample, from a ``jest --json`` report: the file's ``status`` and its ``tests``
    (``name``, ``status``, ``duration_ms``) in declaration order."""
    by_dir = {str(d.resolve()): key for key, d in dirs.items()}
    results: dict[Sample, dict[str, Any]] = {}
    for result in json.loads(report.read_text())["testResults"]:
        key = by_dir.get(str(Path(result["name"]).resolve().parent))
        if key is None:
            continue
        tests = [
            {
                "name": t.get("fullName") or t.get("title", ""),
                "status": t["status"],
                "duration_ms": t.get("duration") or 0,
            }
            for t in result.get("assertionResults") or []
        ]
        results[key] = {"status": result["status"], "tests": tests}
    return results


def passed(result: dict[str, Any] | None) -> bool:
    """A sample passes when its file ran and every test in it passed."""
    return bool(
        result
        and result["status"] == "passed"
        and result["tests"]
        and all(t["status"] == "passed" for t in result["tests"])
    )
