"""Throughput of LiveCodeBench grading: pytest-codegen (-n 2) vs LiveCodeBench's own grader
(``evaluate_generations`` from the nvidia-livecodebench 26.3 wheel, 2 processes), on the same
synthetic release file and samples, in the same run.

P problems, half stdin programs (the sum of a line of numbers) and half LeetCode methods
(the same sum, called), each with T test cases (2 public, the rest hidden, packed as
upstream packs them); N samples per problem, every other one wrong on the last hidden test
only, so both graders run every test of every sample. Prints each one's wall time and
samples/s, the ratio, and whether every sample's verdict agrees.

    python benchmarks/perf/livecodebench_throughput.py [--problems 20] [--tests 100]
        [--samples 4] [--repeat 1] [--official PATH]

``--official``: the wheel's files unpacked (default: where tests/test_livecodebench_fidelity.py
keeps them in pytest's cache; run it once first).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from livecodebench_data import call_case, row, stdin_case  # noqa: E402
from livecodebench_fidelity_samples import DRIVER  # noqa: E402
from plugin_run import run_pytest_codegen  # noqa: E402

DEFAULT_OFFICIAL = ROOT / ".pytest_cache" / "d" / "nvidia-livecodebench-26.3" / "unpacked"


def write_data(work: Path, problems: int, tests: int, samples: int) -> tuple[Path, Path, dict]:
    rows, answers, job = [], [], {"samples": [], "generations": []}
    for p in range(problems):
        numbers = [list(range(i, i + 200)) for i in range(tests)]
        if p % 2 == 0:
            cases = [
                stdin_case(f"{len(xs)}\n{' '.join(map(str, xs))}\n", f"{sum(xs)}\n")
                for xs in numbers
            ]
            right = "input()\nprint(sum(map(int, input().split())))\n"
            wrong = (
                "input()\nxs = list(map(int, input().split()))\n"
                f"print(sum(xs) + (xs[0] == {tests - 1}))\n"
            )
            fields: dict = {}
        else:
            cases = [call_case([xs], sum(xs)) for xs in numbers]
            right = (
                "class Solution:\n    def total(self, xs: List[int]) -> int:\n"
                "        return sum(xs)\n"
            )
            wrong = (
                "class Solution:\n    def total(self, xs: List[int]) -> int:\n"
                f"        return sum(xs) + (xs[0] == {tests - 1})\n"
            )
            fields = {"func_name": "total", "platform": "leetcode"}
        problem = row(f"p{p}", cases[:2], cases[2:], **fields)
        rows.append(problem)
        codes = [wrong if s % 2 else right for s in range(samples)]
        answers += [{"task_id": f"p{p}", "solution": code} for code in codes]
        job["samples"].append(
            {
                "input_output": json.dumps(
                    {
                        "inputs": [c["input"] for c in cases],
                        "outputs": [c["output"] for c in cases],
                        "fn_name": fields.get("func_name"),
                    }
                )
            }
        )
        job["generations"].append(codes)
    data, sample_file = work / "test.jsonl", work / "samples.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    sample_file.write_text("".join(json.dumps(a) + "\n" for a in answers))
    return data, sample_file, job


def run_official(official: Path, job: dict, work: Path) -> tuple[float, dict]:
    path = work / "job.json"
    path.write_text(json.dumps(job))
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(official), str(path)],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULTS "))
    results = json.loads(line.removeprefix("RESULTS "))["results"]
    verdicts = {
        (f"p{p}", i): all(r is True for r in res)
        for p, per_sample in results.items()
        for i, res in enumerate(per_sample)
    }
    return wall, verdicts


def run_plugin(data: Path, samples: Path, work: Path, n: int) -> tuple[float, dict]:
    wall, records = run_pytest_codegen(data, samples, work, n)
    return wall, {(r["task_id"], r["sample_index"]): r["outcome"] == "passed" for r in records}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--tests", type=int, default=100)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--official", default=str(DEFAULT_OFFICIAL))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="livecodebench-perf-") as tmp:
        work = Path(tmp)
        data, samples, job = write_data(work, args.problems, args.tests, args.samples)
        total = args.problems * args.samples
        theirs_walls, ours_walls, agree = [], [], True
        for _ in range(args.repeat):
            wall, theirs = run_official(Path(args.official), job, work)
            theirs_walls.append(wall)
            wall, ours = run_plugin(data, samples, work, args.samples)
            ours_walls.append(wall)
            agree = agree and ours == theirs
        theirs_wall, ours_wall = statistics.median(theirs_walls), statistics.median(ours_walls)
        print(f"{total} samples x {args.tests} tests, median of {args.repeat}")
        walls = (("livecodebench 26.3", theirs_wall), ("pytest-codegen -n 2", ours_wall))
        for name, wall in walls:
            print(f"{name + ':':24} {wall:7.2f} s  {total / wall:7.1f} samples/s")
        print(f"ratio (livecodebench / ours): {theirs_wall / ours_wall:.2f}")
        print(f"every verdict agrees: {agree}")


if __name__ == "__main__":
    main()
