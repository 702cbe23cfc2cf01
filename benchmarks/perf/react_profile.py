"""Where a React sample's time goes: the samples of react_throughput.py (reference, wrong and
empty answers, the code of each distinct) graded one after another by one warm ``JestRunner``,
without pytest or xdist, each file's time split into the phases the runner marks
(``node/runner.js``'s ``profile()``): wall and CPU per sample, mean over the samples.

    python benchmarks/perf/react_profile.py [--samples 10] [--limit 160]

react_throughput.py ``--profile`` prints the same table after its runs, next to what the whole
plugin run cost per sample, and what pytest and xdist cost per item on as many empty tests.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from sandbox_overhead import process_cpu_s  # this script's own directory is on sys.path

# runner.js's phases, in the order a file goes through them, and what each one is
PHASES = (
    ("parse", "the test's imports, parsed to know what the guard loads"),
    ("prepare", "Jest's runTest up to the environment: transformer, docblock"),
    ("environment", "a new jsdom window (the test environment's constructor)"),
    ("setup", "runtime, source maps, environment.setup(), jest-circus"),
    ("packages", "the guard loads the test's packages in the window, locks them"),
    ("load", "the test file and the sample: transform, evaluation, describe blocks"),
    ("bodies", "the test bodies (hooks not included)"),
    ("hooks", "before/after hooks, circus between tests, results"),
    ("teardown", "the window's teardown"),
    ("checks", "after the file: core modules' fingerprints, timers, the answer"),
)


def profile_runner(rows: list[dict[str, Any]], problems: dict[str, Any]) -> dict[str, Any]:
    """Grade ``rows`` with one warm runner; the mean [wall, CPU] ms per sample of each phase,
    of the runner's whole file (``runner``: wall only), of Python's side (files, the wire,
    the verdict: its wall and this process's CPU), the runner process's CPU, and the summed
    Jest test durations (the test-body floor's measure)."""
    from pytest_codegen.execution.jest.warm_runner import JestRunner
    from pytest_codegen.kinds.webapp1k import run_in

    sums: dict[str, list[float]] = {name: [0.0, 0.0] for name, _ in PHASES}
    python_wall = python_cpu = runner_wall = jest_ms = 0.0
    with JestRunner() as runner:
        runner.start()
        assert runner._proc is not None
        pid = runner._proc.pid
        node_cpu = process_cpu_s(pid)
        start = time.perf_counter()
        for row in rows:
            wall, cpu = time.perf_counter(), time.process_time()
            run_in(runner, problems[row["task_id"]], row["completion"])
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            phases = runner.last_profile
            node_ms = float(phases.get("runner") or 0.0)
            runner_wall += node_ms
            python_wall += wall * 1000 - node_ms
            python_cpu += cpu * 1000
            jest_ms += float(phases.get("jest") or 0.0)
            for name, _ in PHASES:
                pair = phases.get(name) or (0.0, 0.0)
                sums[name][0] += pair[0]
                sums[name][1] += pair[1]
        total_wall = time.perf_counter() - start
        assert runner._proc is not None and runner._proc.pid == pid, "the runner was replaced"
        node_cpu = process_cpu_s(pid) - node_cpu
    n = len(rows)
    return {
        "samples": n,
        "phases": {name: [v / n for v in pair] for name, pair in sums.items()},
        "runner_wall": runner_wall / n,
        "python": [python_wall / n, python_cpu / n],
        "node_cpu": node_cpu * 1000 / n,
        "wall": total_wall * 1000 / n,
        "jest_durations": jest_ms / n,
    }


def print_profile(result: dict[str, Any]) -> None:
    print(
        f"one warm runner, no pytest ({result['samples']} samples): "
        f"{result['wall']:.1f} ms wall/sample; runner CPU {result['node_cpu']:.1f} ms, "
        f"Python {result['python'][1]:.1f} ms"
    )
    print(f"  {'phase':12s} {'wall ms':>8s} {'CPU ms':>7s}  what")
    for name, what in PHASES:
        wall, cpu = result["phases"][name]
        print(f"  {name:12s} {wall:8.1f} {cpu:7.1f}  {what}")
    marked = sum(w for w, _ in result["phases"].values())
    print(
        f"  {'unmarked':12s} {result['runner_wall'] - marked:8.1f} {'':7s}  "
        "the runner's file time outside the phases (ms resolution of its clock)"
    )
    wall, cpu = result["python"]
    print(f"  {'python':12s} {wall:8.1f} {cpu:7.1f}  files, the wire, the verdict")
    print(
        f"  Jest's own test durations: {result['jest_durations']:.1f} ms/sample "
        "(bodies and their hooks: the floor's measure)"
    )


def main() -> None:
    from react_throughput import SUITE, build_samples

    from pytest_codegen.kinds.webapp1k import load_webapp1k

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=10, help="samples per problem")
    parser.add_argument("--limit", type=int, default=None, help="grade only the first this many")
    args = parser.parse_args()
    problems = load_webapp1k(SUITE, "react")
    rows, _ = build_samples(problems, args.samples)
    if args.limit:
        rows = rows[: args.limit]  # whole problems in turn, as xdist hands them out
    print_profile(profile_runner(rows, {p.id: p for p in problems}))


if __name__ == "__main__":
    main()
