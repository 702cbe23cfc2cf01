"""What comparing runs costs: 10 results files of 164 problems x 10 samples (synthetic records
shaped as a run writes them), compared as ``--codegen-compare`` compares them, next to just
reading the files, in the same run.

Prints the median of ``--repeat`` timings of: reading the 10 files (the baseline); reading and
comparing them in one process (the runs' identities checked, every pass@k with its interval,
45 pairs with their tests, one shared bootstrap of 10,000 resamples, the flips); and the whole
command, ``pytest --codegen-compare ... --codegen-compare-out ... --codegen-html ...`` in a
fresh process, next to pytest starting up and collecting nothing (the command's fixed cost),
each as wall and CPU time with the CPU's ratio to the read. The target is the command in
under 2 s; on a shared machine read the CPU column.

    python benchmarks/perf/compare_runs.py [--repeat 5] [--runs 10] [--samples 10]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plugin_run import PYTEST

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from pytest_codegen.reporting.comparable import differences, identity  # noqa: E402
from pytest_codegen.reporting.comparison import compare_runs  # noqa: E402
from pytest_codegen.reporting.results import load_results  # noqa: E402

PROBLEMS = 164
RUN = {
    "harness": "0",
    "python": "3.11.7",
    "params": {"temperature": 0.8, "samples": 10, "extract": "auto"},
    "timeout": {"rule": "reference", "factor": 10.0, "cap_s": "suite default"},
    "limits": {"memory_mb": "suite default", "stderr_rule": "harness"},
}


def write_runs(where: Path, runs: int, samples: int) -> list[Path]:
    """``runs`` results files; each model solves a problem with its own skill and the
    problem's difficulty."""
    rng = random.Random(1)
    difficulty = [rng.random() for _ in range(PROBLEMS)]
    paths = []
    for r in range(runs):
        skill = 0.3 + 0.5 * r / max(1, runs - 1)
        path = where / f"model{r}.jsonl"
        with path.open("w") as out:
            for i, hard in enumerate(difficulty):
                rate = min(1.0, max(0.0, skill + 0.6 * (0.5 - hard)))
                for s in range(samples):
                    ok = rng.random() < rate
                    record = {
                        "nodeid": f"humaneval::HumanEval_{i}[s{s}]",
                        "suite": "humaneval",
                        "task_id": f"HumanEval/{i}",
                        "category": "humaneval",
                        "sample_index": s,
                        "outcome": "passed" if ok else "failed",
                        "passed": ok,
                        "duration_s": 0.05,
                        "model": f"model{r}",
                        "mode": "python",
                        "completion": "    return x\n" * 12,
                        "code": "def f(x):\n" + "    return x\n" * 12,
                        "error": "" if ok else "AssertionError",
                        "run": RUN,
                        "data": {"name": "humaneval", "sha256": "0" * 64},
                    }
                    out.write(json.dumps(record) + "\n")
        paths.append(path)
    return paths


def read_all(paths: list[Path]) -> list[tuple[str, list[dict]]]:
    return [(str(p), load_results(p)) for p in paths]


def compare_in_process(paths: list[Path]) -> None:
    runs = read_all(paths)
    first = identity(runs[0][1])
    for _, records in runs[1:]:
        assert not differences(first, identity(records), ignore=("model",))
    compare_runs(runs, [1, 10])


def command(paths: list[Path], where: Path) -> None:
    args = [sys.executable, *PYTEST, "-q", "-p", "no:randomly"]
    args += ["--codegen-compare", *map(str, paths), "--codegen-k=1,10"]
    args += [f"--codegen-compare-out={where / 'c.json'}", f"--codegen-html={where / 'c.html'}"]
    proc = subprocess.run(args, cwd=where, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"the comparison failed ({proc.returncode}):\n{proc.stdout[-2000:]}")


def cpu_now() -> float:
    """CPU seconds of this process and its finished children (the command's)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def startup(where: Path) -> None:
    """pytest with the plugin, collecting nothing: the command's fixed cost."""
    empty = where / "empty"
    empty.mkdir(exist_ok=True)
    args = [sys.executable, *PYTEST, "-q", "--co"]
    subprocess.run(args, cwd=empty, capture_output=True, text=True)


def timed(action, repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``action`` (CPU: on a shared machine, the wall time
    also counts the waits for a core)."""
    walls, cpus = [], []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), cpu_now()
        action()
        walls.append(time.perf_counter() - started)
        cpus.append(cpu_now() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--samples", type=int, default=10)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        paths = write_runs(where, options.runs, options.samples)
        size = sum(p.stat().st_size for p in paths) / 1e6
        print(
            f"{options.runs} runs x {PROBLEMS} problems x {options.samples} samples "
            f"({size:.1f} MB of results), median of {options.repeat}:"
        )
        read = timed(lambda: read_all(paths), options.repeat)
        inside = timed(lambda: compare_in_process(paths), options.repeat)
        whole = timed(lambda: command(paths, where), options.repeat)
        started = timed(lambda: startup(where), options.repeat)
        rows = (
            ("read the files (baseline)", read),
            ("read + compare, in process", inside),
            ("pytest start-up, nothing run", started),
            ("pytest --codegen-compare", whole),
        )
        print(f"  {'':32} {'wall':>8} {'cpu':>8}  cpu vs the read")
        for label, (wall, cpu) in rows:
            print(f"  {label:32} {wall:7.3f}s {cpu:7.3f}s  {cpu / read[1]:.1f}x")
        verdict = "met" if whole[0] < 2 else "NOT met (on this machine, now)"
        print(f"target: the command in under 2 s wall: {verdict}")


if __name__ == "__main__":
    main()
