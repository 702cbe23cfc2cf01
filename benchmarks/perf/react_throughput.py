"""Throughput of grading the React suite: pytest-codegen (-n 2) vs the Jest CLI.

Compares, on the same 48 x N samples of ``benchmarks/react`` (by default N = 10 per problem,
WebApp1K's own n: reference, wrong, empty, then reference and wrong in turn; the wrong and
empty ones from ``fixtures/replays/react-wrong.jsonl`` and ``react-empty.jsonl``), in one run:

1. one ``jest`` process per sample, each in its own directory next to a copy of its test file,
   two processes at a time, over every sample (~7 minutes: Jest's start-up). ``--single N``
   times N of them only: quicker, but a subset does not have the whole's mix (e.g. of wrong
   samples whose failing test waits out Testing Library's 1 s ``waitFor``), which can move
   the ratio by several percent;
2. one ``jest --maxWorkers=2`` run over all samples laid out in one directory tree (how
   WebApp1K grades);
3. ``python -m pytest --codegen-model=replay:... benchmarks/react -n 2``.

All three use the toolchain the plugin builds (``node_env.ensure_toolchain``) and its Jest and
Babel configuration (``execution/jest/node/jest.config.js``, unhardened for the CLI runs).
Prints per-sample wall times, the CPU time per sample of every process each run started
(steadier than wall time on a busy machine), the ratios (1)/(3) and (2)/(3), whether the
pass/fail verdict of every sample agrees between (2) and (3) (and (1) on its subset), and the
test-body floor: the sum of Jest's own per-test durations from run (2). The ratio (1)/(3)
moves by ~10% from run to run on a busy machine ((1)'s minutes meet more of its drift than
(3)'s half minute): ``--repeat N`` prints the median and the per-run range.

    python benchmarks/perf/react_throughput.py [--samples 10] [--repeat 1] [--single N]
                                               [--same-code] [--profile]

``--profile`` then prints where a sample's time goes: the runner's phases (react_profile.py,
one warm runner over the first 60 samples), and what pytest and xdist cost per item on as
many empty tests.

Every sample's code differs (a trailing comment naming the sample), so the runner's memo of
Babel's output (``transformer.js``) never serves a sample from an earlier one: the cautious
case, as if a model never wrote the same answer twice. With ``--same-code`` the samples of a
kind share their code, and a problem's repeated samples reuse Babel's output.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from humaneval_throughput import (  # this script's directory is on sys.path
    byte_compile_plugin,
    children_cpu,
    per_run_ratios,
    run_xdist_floor,
)
from plugin_run import PYTEST
from react_profile import print_profile, profile_runner

from pytest_codegen.execution.jest.node_env import NodeInfo, ensure_toolchain, find_node
from pytest_codegen.execution.jest.plain_jest import Sample, lay_out, passed, read_report, run_jest
from pytest_codegen.kinds.webapp1k import load_webapp1k
from pytest_codegen.models.builtin import load_replay
from pytest_codegen.problems import Problem

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "benchmarks" / "react"
REPLAYS = REPO / "fixtures" / "replays"
KINDS = ("reference", "wrong", "empty")


def build_samples(
    problems: list[Problem], n: int, distinct: bool = True
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """``n`` samples per problem cycling reference, wrong, empty; returns rows and kind counts.
    With ``distinct``, each sample's code ends with a comment of its own."""
    wrong = load_replay(REPLAYS / "react-wrong.jsonl")
    empty = load_replay(REPLAYS / "react-empty.jsonl")
    rows: list[dict[str, Any]] = []
    counts = dict.fromkeys(KINDS, 0)
    for problem in problems:
        first = (problem.id, 0, 0)  # the replay's sample 0, no repair round
        by_kind = {
            "reference": problem.reference,
            "wrong": wrong[first].text,
            "empty": empty[first].text,
        }
        for i in range(n):
            kind = KINDS[i % len(KINDS)] if i < 3 else KINDS[(i - 3) % 2]
            counts[kind] += 1
            code = by_kind[kind] + (f"\n// sample {i}\n" if distinct else "")
            rows.append(
                {"task_id": problem.id, "sample_index": i, "kind": kind, "completion": code}
            )
    return rows, counts


def write_replay(path: Path, rows: list[dict[str, Any]]) -> None:
    """The samples as a replay file (``--codegen-model=replay:PATH``)."""
    path.write_text(
        "".join(
            json.dumps({k: r[k] for k in ("task_id", "sample_index", "completion")}) + "\n"
            for r in rows
        )
    )


def verdicts_of(report: Path, dirs: dict[Sample, Path]) -> tuple[dict[Sample, bool], float]:
    """Pass/fail per sample from a ``jest --json`` report, and the summed test durations (s)."""
    results = read_report(report, dirs)
    body_ms = sum(t["duration_ms"] for r in results.values() for t in r["tests"])
    return {key: passed(r) for key, r in results.items()}, body_ms / 1000


def run_single(
    node: NodeInfo, toolchain: Path, dirs: dict[Sample, Path], subset: list[Sample]
) -> tuple[float, dict[Sample, bool]]:
    """One jest process per sample, two at a time."""

    def one(key: Sample) -> tuple[Sample, bool]:
        cwd = dirs[key]
        out = cwd.parent / f"{cwd.name}.json"
        run_jest(node, toolchain, cwd, out, workers=1, timeout_s=300)
        verdicts, _ = verdicts_of(out, {key: cwd})
        return key, verdicts.get(key, False)

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = dict(pool.map(one, subset))
    return time.perf_counter() - start, verdicts


def run_batched(
    node: NodeInfo, toolchain: Path, root: Path, dirs: dict[Sample, Path]
) -> tuple[float, dict[Sample, bool], float]:
    """One jest run over the whole tree with two workers."""
    out = root.parent / "batched.json"
    start = time.perf_counter()
    run_jest(node, toolchain, root, out, workers=2)
    elapsed = time.perf_counter() - start
    verdicts, body_s = verdicts_of(out, dirs)
    return elapsed, verdicts, body_s


def run_plugin(
    samples: Path, n: int, workdir: Path
) -> tuple[float, dict[Sample, bool], int, float]:
    """Wall time, verdicts, tests passed and the summed per-sample grading time (s)."""
    out = workdir / "plugin-results.jsonl"
    out.unlink(missing_ok=True)
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            *PYTEST,
            f"--codegen-model=replay:{samples}",
            str(SUITE),
            f"--codegen-samples={n}",
            "-n",
            "2",
            "-q",
            f"--codegen-results={out}",
        ],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        check=False,
    )
    elapsed = time.perf_counter() - start
    verdicts: dict[Sample, bool] = {}
    tests_passed = 0
    graded_s = 0.0
    for line in out.read_text().splitlines():
        r = json.loads(line)
        verdicts[(r["task_id"], r["sample_index"])] = bool(r["passed"])
        tests_passed += sum(1 for t in r.get("tests") or [] if t.get("status") == "passed")
        graded_s += r.get("duration_s") or 0.0
    return elapsed, verdicts, tests_passed, graded_s


def spread(times: list[float]) -> str:
    """``min-max ms/sample`` of the repeats (empty for one run)."""
    return f", {min(times) * 1000:.0f}-{max(times) * 1000:.0f} ms" if len(times) > 1 else ""


def disagreements(a: dict[Sample, bool], b: dict[Sample, bool]) -> list[Sample]:
    return sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--samples", type=int, default=10, help="samples per problem (WebApp1K's n = 10)"
    )
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--single",
        type=int,
        default=None,
        help="time only this many samples with one jest process each (default: every sample)",
    )
    parser.add_argument(
        "--same-code",
        action="store_true",
        help="samples of one kind share their code (Babel's output is reused)",
    )
    parser.add_argument(
        "--profile", action="store_true", help="then print where a sample's time goes"
    )
    args = parser.parse_args()
    byte_compile_plugin()

    node = find_node()
    toolchain = ensure_toolchain(node)
    problems = load_webapp1k(SUITE, "react")
    by_id = {p.id: p for p in problems}
    rows, counts = build_samples(problems, args.samples, not args.same_code)
    total = len(rows)
    keys: list[Sample] = [(r["task_id"], r["sample_index"]) for r in rows]
    if args.single is None or args.single >= total:
        subset = keys
    else:
        stride = max(1, total // args.single)
        while stride > 1 and stride % args.samples == 0:
            stride -= 1  # step across sample kinds, not along one of them
        subset = keys[::stride][: args.single]

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        samples = workdir / "samples.jsonl"
        write_replay(samples, rows)
        batched_root = workdir / "batched"
        batched_dirs = lay_out(batched_root, by_id, rows)
        single_dirs = lay_out(workdir / "single", by_id, rows, with_config=True)

        single_times, batched_times, plugin_times, body_times, graded_times = [], [], [], [], []
        cpu: dict[int, list[float]] = {1: [], 2: [], 3: []}  # CPU seconds per sample, by run
        xdist_cpu = run_xdist_floor(total, workdir) / total if args.profile else 0.0
        for _ in range(args.repeat):
            before = children_cpu()
            t_single, v_single = run_single(node, toolchain, single_dirs, subset)
            after_single = children_cpu()
            t_batched, v_batched, body_s = run_batched(node, toolchain, batched_root, batched_dirs)
            after_batched = children_cpu()
            t_plugin, v_plugin, tests_passed, graded_s = run_plugin(samples, args.samples, workdir)
            cpu[1].append((after_single - before) / len(subset))
            cpu[2].append((after_batched - after_single) / total)
            cpu[3].append((children_cpu() - after_batched) / total)
            single_times.append(t_single / len(subset))
            batched_times.append(t_batched / total)
            plugin_times.append(t_plugin / total)
            body_times.append(body_s)
            graded_times.append(graded_s)

    s1, s2, s3 = (statistics.median(x) for x in (single_times, batched_times, plugin_times))
    body = statistics.median(body_times)
    graded = statistics.median(graded_times)
    diff_batched = disagreements(v_batched, v_plugin)
    diff_single = disagreements(v_single, {k: v_plugin.get(k) for k in subset})
    kinds = ", ".join(f"{counts[k]} {k}" for k in KINDS)
    subset_note = "all" if len(subset) == total else f"subset of {len(subset)}"
    ms = 1000
    print(
        f"samples:                        {total} (48 problems x {args.samples}: {kinds})"
        + ("" if args.same_code else ", the code of each distinct")
    )
    print(f"node / toolchain:               {node.version} ({node.source}) / {toolchain}")
    print(
        f"(1) jest per sample, 2 at once: {s1 * ms:7.0f} ms/sample  "
        f"({subset_note}; {len(subset) * s1:.1f} s, {1 / s1:5.1f} samples/s"
        f"{spread(single_times)})"
    )
    print(
        f"(2) jest --maxWorkers=2, batch: {s2 * ms:7.0f} ms/sample  "
        f"({total * s2:.1f} s, {1 / s2:5.1f} samples/s{spread(batched_times)})"
    )
    print(
        f"(3) pytest-codegen -n 2:        {s3 * ms:7.0f} ms/sample  "
        f"({total * s3:.1f} s, {1 / s3:5.1f} samples/s{spread(plugin_times)})"
    )
    print(
        f"    of which grading (duration_s): {graded * ms / total:4.0f} ms/sample summed, "
        f"{graded * ms / total / 2:.0f} ms/sample over 2 workers ({graded:.1f} s in all)"
    )
    c1, c2, c3 = (statistics.median(cpu[run]) for run in (1, 2, 3))
    print(
        f"CPU per sample (1) / (2) / (3): {c1 * ms:.0f} / {c2 * ms:.0f} / {c3 * ms:.0f} ms "
        f"(every process of each run; ratios {c1 / c3:.2f}x and {c2 / c3:.2f}x)"
    )
    print(
        f"ratio (1)/(3):                  {s1 / s3:7.2f}x (medians of {args.repeat}"
        f"{per_run_ratios(single_times, plugin_times)})"
    )
    print(
        f"ratio (2)/(3):                  {s2 / s3:7.2f}x (medians of {args.repeat}"
        f"{per_run_ratios(batched_times, plugin_times)})"
    )
    print(
        f"test-body floor (run 2):        {body * ms / total:7.0f} ms/sample summed over "
        f"tests, {body * ms / total / 2:.0f} ms/sample over 2 workers "
        f"({body:.1f} s in all)"
    )
    print(
        f"samples passed (2) / (3):       {sum(v_batched.values())} / "
        f"{sum(bool(v) for v in v_plugin.values())}; tests passed (3): {tests_passed}"
    )
    print(
        f"same verdicts (2) vs (3):       {not diff_batched}"
        + (f" ({len(diff_batched)} differ, e.g. {diff_batched[:3]})" if diff_batched else "")
    )
    print(
        f"same verdicts (1) vs (3):       {not diff_single} (on the {len(subset)} samples of (1))"
        + (f" ({len(diff_single)} differ, e.g. {diff_single[:3]})" if diff_single else "")
    )
    if args.profile:
        print(f"pytest and xdist alone:         {xdist_cpu * ms:.1f} ms CPU per item (empty tests)")
        print_profile(profile_runner(rows[:60], by_id))


if __name__ == "__main__":
    main()
