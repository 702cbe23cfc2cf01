"""Where one HumanEval+-style sample's CPU goes, for ``evalplus_throughput.py --profile``.

Every figure is CPU time per sample (user + system), which a busy machine disturbs less than
wall time: the whole run's, then its parts measured apart on the same data and samples.

- start-up: ``pytest -n 2`` of the suite with every item deselected (the controller and both
  workers starting, collecting, and ending; ``--collect-only`` would start no worker), spread
  over the samples;
- pytest and pytest-xdist alone: as many empty tests, ``-n 2``, less a run of one;
- the plugin's own bookkeeping: the run with grading stubbed out (the records, scoring and
  reporting), less the two above;
- grading, in one process as a worker grades (the expected outputs already measured), split
  by process: the grading process (and in it, the comparisons of outputs alone, and reading
  the expected outputs from disk in a fresh process), the zygote (forks, kills and reaping),
  the samples' processes (confinement, loading the code, computing and sending every output,
  exiting).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from humaneval_throughput import children_cpu, run_xdist_floor
from plugin_run import PYTEST
from sandbox_overhead import usage_by_role, zygote_pids

# A plugin module (a measuring instrument, never a grader) under which EvalPlus grading is a
# no-op that passes both sets.
GRADING_STUB = """
from pytest_codegen import outcomes
from pytest_codegen.kinds.evalplus import EvalPlusKind


def _passed(self, problem, code, run):
    tests = [{"name": p, "status": outcomes.PASSED, "message": ""} for p in ("base", "plus")]
    return outcomes.Verdict(outcomes.PASSED, mode="evalplus", tests=tests)


EvalPlusKind.grade = _passed
"""
# Grades every sample in this one process, as a worker does, and prints the CPU by role.
IN_PROCESS = """
import json, sys
sys.path.insert(0, {here!r})
from pathlib import Path
from evalplus_profile import grade_by_role
print(json.dumps(grade_by_role(Path({data!r}), Path({samples!r}))))
"""
READ_EXPECTED = """
import sys, time
from pathlib import Path
from pytest_codegen.kinds.evalplus import load_evalplus
from pytest_codegen.execution.python.evalplus_grader import expected_outputs
from pytest_codegen.execution.python.sandbox import Limits
problems = load_evalplus(Path(sys.argv[1]), "perf")
started = time.process_time()
for problem in problems:
    expected_outputs(problem, Limits(timeout_s=10, memory_mb=4096))
print(time.process_time() - started)
"""


def pytest_cpu(args: list[str], work: Path, env: dict[str, str] | None = None) -> float:
    """CPU seconds of one ``pytest -n 2`` run with ``args`` (its whole process tree)."""
    cpu = children_cpu()
    subprocess.run(
        [sys.executable, *PYTEST, "-q", "-n", "2", *args],
        cwd=work,
        env={**os.environ, "PYTEST_CODEGEN_CACHE": str(work / "codegen-cache"), **(env or {})},
        capture_output=True,
    )
    return children_cpu() - cpu


def grade_by_role(data: Path, samples: Path) -> dict[str, float]:
    """CPU ms per sample of grading every sample here, by process; and of its comparisons
    alone. Called in a fresh interpreter (see IN_PROCESS)."""
    from pytest_codegen.execution.python import evalplus_grader
    from pytest_codegen.execution.python.evalplus_match import matches
    from pytest_codegen.execution.python.sandbox import Limits
    from pytest_codegen.kinds.evalplus import load_evalplus

    problems = {p.id: p for p in load_evalplus(data, "perf")}
    rows = [json.loads(line) for line in samples.read_text().splitlines()]
    limits = Limits(timeout_s=10, memory_mb=4096)

    def grade_all() -> None:
        for row in rows:
            evalplus_grader.run_evalplus(problems[row["task_id"]], row["completion"], limits)

    grade_all()  # the zygote started, every problem's expected outputs in memory
    pids = zygote_pids()
    before = usage_by_role(*pids)
    grade_all()
    after = usage_by_role(*pids)
    per_sample = {role: (after[role][0] - before[role][0]) / len(rows) * 1e3 for role in before}
    # The comparisons alone: every expected output with itself, as many as the samples make.
    started = time.process_time()
    for row in rows:
        problem = problems[row["task_id"]]
        expected = evalplus_grader.expected_outputs(problem, limits)
        fields = problem.extra
        for part in evalplus_grader.PARTS:
            atol = fields["atol"]
            for args, want in zip(fields[f"{part}_input"], expected[part].outputs, strict=True):
                _, atol = matches(fields["dataset"], fields["entry_point"], args, want, want, atol)
    per_sample["comparisons"] = (time.process_time() - started) / len(rows) * 1e3
    return per_sample


def profile(
    data: Path, samples: Path, work: Path, total: int, n: int, repeat: int, whole_ms: float
) -> None:
    """Print where a sample's CPU goes (medians of ``repeat``), beside ``whole_ms``, the
    whole run's CPU per sample."""
    here = str(Path(__file__).parent)
    stub_dir = work / "stub"
    stub_dir.mkdir(exist_ok=True)
    (stub_dir / "codegen_evalplus_stub.py").write_text(GRADING_STUB)
    stub_env = {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(stub_dir), os.environ.get("PYTHONPATH")]))
    }
    plugin_args = [str(data), f"--codegen-model=replay:{samples}", f"--codegen-samples={n}"]
    rows: dict[str, list[float]] = {}

    def note(name: str, seconds: float) -> None:
        rows.setdefault(name, []).append(seconds * 1e3 / total)

    for _ in range(repeat):
        # Every item is named after its task id (HumanEval_<p>): none is left to run.
        note("start-up", pytest_cpu([*plugin_args, "-k", "not HumanEval"], work))
        # Per item: less the start-up of a run of one empty test.
        rows.setdefault("floor", []).append(
            (run_xdist_floor(total, work) - run_xdist_floor(1, work)) * 1e3 / (total - 1)
        )
        note("stubbed", pytest_cpu([*plugin_args, "-p", "codegen_evalplus_stub"], work, stub_env))
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                IN_PROCESS.format(here=here, data=str(data), samples=str(samples)),
            ],
            env={**os.environ, "PYTEST_CODEGEN_CACHE": str(work / "codegen-cache")},
            capture_output=True,
            text=True,
            check=True,
        )
        for role, ms in json.loads(done.stdout).items():
            rows.setdefault(role, []).append(ms)
        done = subprocess.run(
            [sys.executable, "-c", READ_EXPECTED, str(data)],
            env={**os.environ, "PYTEST_CODEGEN_CACHE": str(work / "codegen-cache")},
            capture_output=True,
            text=True,
            check=True,
        )
        note("expected", float(done.stdout))
    m: dict[str, Any] = {name: statistics.median(values) for name, values in rows.items()}
    bookkeeping = m["stubbed"] - m["start-up"] - m["floor"]
    grading = m["grading process"] + m["zygote"] + m["sample processes"]
    print(
        f"where a sample's CPU goes (ms per sample, medians of {repeat}; each part is a run of "
        f"its own, so on a busy machine they need not add up to the whole run's {whole_ms:.1f})"
    )
    lines = [
        ("start-up (pytest -n 2, every item deselected), spread over the samples", m["start-up"]),
        ("pytest and xdist per item (as many empty tests)", m["floor"]),
        ("the plugin's bookkeeping (grading stubbed out, less the two above)", bookkeeping),
        ("grading, in all processes", grading),
        ("  the grading process", m["grading process"]),
        ("    of which comparing outputs", m["comparisons"]),
        ("  reading the expected outputs from disk, once per worker", 2 * m["expected"]),
        ("  the zygote (forks, kills, reaping)", m["zygote"]),
        ("  the samples' processes", m["sample processes"]),
    ]
    for name, ms in lines:
        print(f"  {name:70} {ms:6.2f}")
