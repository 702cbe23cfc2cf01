"""What grading one React sample costs the warm Jest runner alone, without pytest or xdist:
for each of the 48 problems of ``benchmarks/react``, its reference and its wrong solution
(``fixtures/replays/react-wrong.jsonl``), graded one after another by one ``JestRunner``.

Prints per-file wall time, the runner's CPU time (its Node process, every thread: the
garbage collector's and the compiler's included) and the most memory the runner held (its
peak resident set: a heap that grows from file to file shows there). With ``--against DIR``
it alternates, run by run, between this checkout and another one (e.g. ``git worktree add
/tmp/base HEAD~3``) and prints the medians of both: an A/B of a change to
``execution/jest/node/`` on a noisy machine.

    python benchmarks/perf/jest_runner.py [--rounds 2] [--repeat 4] [--against DIR]
"""

from __future__ import annotations

import time

from grading_path import REPO, ab_main  # this script's own directory is on sys.path
from sandbox_overhead import process_cpu_s, process_peak_rss_mb


def measure(rounds: int) -> tuple[float, float, float]:
    """(wall, runner CPU) in ms per test file, after the runner's warm-up, and the runner's
    peak resident memory in MB."""
    from pytest_codegen.execution.jest.warm_runner import JestRunner
    from pytest_codegen.kinds.webapp1k import load_webapp1k, run_in
    from pytest_codegen.models.builtin import load_replay

    problems = load_webapp1k(REPO / "benchmarks" / "react", "react")
    wrong = load_replay(REPO / "fixtures" / "replays" / "react-wrong.jsonl")
    with JestRunner() as runner:
        runner.start()
        assert runner._proc is not None
        pid = runner._proc.pid
        cpu, start, n = process_cpu_s(pid), time.perf_counter(), 0
        for _ in range(rounds):
            for problem in problems:
                answers = ((problem.reference, True), (wrong[(problem.id, 0, 0)].text, False))
                for code, expected in answers:
                    verdict = run_in(runner, problem, code or "")
                    assert verdict.passed is expected, (problem.id, verdict.message)
                    n += 1
        assert runner._proc is not None and runner._proc.pid == pid, "the runner was replaced"
        return (
            (time.perf_counter() - start) / n * 1e3,
            (process_cpu_s(pid) - cpu) / n * 1e3,
            process_peak_rss_mb(pid),
        )


if __name__ == "__main__":
    ab_main(
        __doc__,
        measure,
        __file__,
        ("wall ms", "runner CPU ms", "runner peak RSS MB"),
        "test file (96 per round)",
        rounds=2,
        repeat=4,
    )
