"""What grading the React suite costs pytest-codegen end to end: the 48 x 10 samples of
react_throughput.py (reference, wrong and empty answers, the code of each distinct), graded as
its run (3) grades them: ``pytest --codegen-model=replay:... benchmarks/react -n 2``.

Prints the wall time and the CPU time of every process the run started (pytest, its workers,
their Jest runners), per sample. With ``--against DIR`` it alternates, run by run, with another
checkout (e.g. ``git worktree add /tmp/base HEAD~1``) and prints the medians of both: an A/B of
a change under the load the plugin runs with, two workers and their runners sharing the cores,
which the one-runner A/B of jest_runner.py does not have.

    python benchmarks/perf/react_plugin.py [--rounds 1] [--repeat 4] [--against DIR]
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from grading_path import ab_main  # this script's own directory is on sys.path
from humaneval_throughput import byte_compile_plugin, children_cpu
from react_throughput import SUITE, build_samples, run_plugin, write_replay

SAMPLES = 10


def measure(rounds: int) -> tuple[float, float]:
    """(wall, CPU of the whole run) in ms per sample: react_throughput.py's run (3)."""
    from pytest_codegen.kinds.webapp1k import load_webapp1k

    byte_compile_plugin()
    rows, _ = build_samples(load_webapp1k(SUITE, "react"), SAMPLES)
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        samples = workdir / "samples.jsonl"
        write_replay(samples, rows)
        cpu, wall = children_cpu(), 0.0
        for _ in range(rounds):
            wall += run_plugin(samples, SAMPLES, workdir)[0]
        n = rounds * len(rows)
        return wall / n * 1e3, (children_cpu() - cpu) / n * 1e3


if __name__ == "__main__":
    ab_main(
        __doc__,
        measure,
        __file__,
        ("wall ms", "CPU ms"),
        f"sample (48 x {SAMPLES} per round)",
        rounds=1,
        repeat=4,
    )
