"""Throughput of HumanEval+-style grading: pytest-codegen (-n 2) vs the evalplus package's own
``evaluate`` (parallel 2), on the same synthetic dataset and samples, in the same run.

The dataset has P problems of E base and 10 x E plus inputs each (small arithmetic, the
canonical solution instant: every limit is EvalPlus's 1 s floor); the samples are the
canonical solutions, N per problem, every other one wrong on its last plus input. Prints each
one's wall time, samples/s and CPU per sample (its whole process tree), the ratios, the load
average, and whether every base and plus verdict agrees. The expected outputs are measured
first by each (not timed). ``--profile`` also prints where a sample's CPU goes
(``evalplus_profile.py``).

    python benchmarks/perf/evalplus_throughput.py [--problems 40] [--inputs 10] [--samples 5]
        [--repeat 1] [--evalplus-python PATH] [--profile]

``--evalplus-python``: a Python with evalplus==0.3.1 (default: the virtualenv that
tests/test_evalplus_fidelity.py keeps in pytest's cache).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evalplus_profile import profile
from humaneval_throughput import byte_compile_plugin, children_cpu, per_run_ratios
from plugin_run import run_pytest_codegen

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_EVALPLUS = ROOT / ".pytest_cache" / "d" / "evalplus-0.3.1" / "venv" / "bin" / "python"
DRIVER = """
import os, sys
from evalplus.evaluate import evaluate
evaluate(dataset="humaneval", samples=sys.argv[1], parallel=2, i_just_wanna_run=True)
sys.stdout.flush()
os._exit(0)
"""
# What byte_compile_plugin does, for the plugin of another Python.
COMPILE_PLUGIN = (
    "import compileall, pytest_codegen as p; compileall.compile_dir(p.__path__[0], quiet=1)"
)


def write_data(work: Path, problems: int, inputs: int, samples: int) -> tuple[Path, Path]:
    rows, answers = [], []
    for p in range(problems):
        name = f"f{p}"
        rows.append(
            {
                "task_id": f"HumanEval/{p}",
                "prompt": f'def {name}(a: int, b: list) -> int:\n    """Task {p}."""\n',
                "entry_point": name,
                "canonical_solution": f"    return a * {p + 1} + sum(b)\n",
                "base_input": [[i, list(range(i))] for i in range(inputs)],
                "plus_input": [[i * 7, list(range(i % 50))] for i in range(10 * inputs)],
                "atol": 0,
                "contract": "",
            }
        )
        last = 7 * (10 * inputs - 1)
        for s in range(samples):
            wrong = f" + (1 if a == {last} else 0)" if s % 2 else ""
            completion = f"    return a * {p + 1} + sum(b){wrong}\n"
            answers.append({"task_id": f"HumanEval/{p}", "completion": completion})
    data, sample_file = work / "HumanEvalPlus-synthetic.jsonl", work / "samples.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    sample_file.write_text("".join(json.dumps(a) + "\n" for a in answers))
    return data, sample_file


def run_evalplus(python: str, data: Path, samples: Path, work: Path) -> tuple[float, float, dict]:
    env = {**os.environ, "HUMANEVAL_OVERRIDE_PATH": str(data), "XDG_CACHE_HOME": str(work)}
    # It asks before overwriting its results file, and there is no one to answer.
    samples.with_name("samples_eval_results.json").unlink(missing_ok=True)
    started, cpu = time.perf_counter(), children_cpu()
    subprocess.run([python, "-c", DRIVER, str(samples)], env=env, check=True, capture_output=True)
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu
    results = json.loads(samples.with_name("samples_eval_results.json").read_text())["eval"]
    verdicts = {
        (task, i): (r["base_status"] == "pass", r["plus_status"] == "pass")
        for task, rows in results.items()
        for i, r in enumerate(rows)
    }
    return wall, cpu, verdicts


def run_plugin(
    data: Path, samples: Path, work: Path, n: int, python: str = sys.executable
) -> tuple[float, float, dict]:
    cpu = children_cpu()
    wall, records = run_pytest_codegen(data, samples, work, n, python)
    cpu = children_cpu() - cpu
    verdicts = {
        (r["task_id"], r["sample_index"]): (
            r.get("base_outcome") == "passed",
            r.get("plus_outcome") == "passed",
        )
        for r in records
    }
    return wall, cpu, verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=40)
    parser.add_argument("--inputs", type=int, default=10)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--evalplus-python", default=str(DEFAULT_EVALPLUS))
    parser.add_argument("--profile", action="store_true", help="where a sample's CPU goes")
    parser.add_argument(
        "--against",
        metavar="PYTHON",
        help="also grade with the plugin of this Python (another checkout's virtualenv) in "
        "every repeat: an A/B on a noisy machine",
    )
    args = parser.parse_args()
    byte_compile_plugin()
    with tempfile.TemporaryDirectory(prefix="evalplus-perf-") as tmp:
        work = Path(tmp)
        data, samples = write_data(work, args.problems, args.inputs, args.samples)
        total = args.problems * args.samples
        # The expected outputs, measured once by each (EvalPlus caches them by the file's hash).
        run_evalplus(args.evalplus_python, data, samples, work)
        run_plugin(data, samples, work, args.samples)
        order = ["theirs", "ours"] + (["against"] if args.against else [])
        if args.against:
            # Byte-compiled alike (see byte_compile_plugin), then its expected outputs.
            subprocess.run([args.against, "-c", COMPILE_PLUGIN], check=True)
            run_plugin(data, samples, work, args.samples, args.against)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in order}
        agree, loads = True, [os.getloadavg()[0]]
        for i in range(args.repeat):
            # Which one goes first alternates: each run leaves the machine busier for the next.
            for name in order if i % 2 == 0 else reversed(order):
                if name == "theirs":
                    wall, cpu, theirs = run_evalplus(args.evalplus_python, data, samples, work)
                elif name == "ours":
                    wall, cpu, ours = run_plugin(data, samples, work, args.samples)
                else:
                    wall, cpu, other = run_plugin(data, samples, work, args.samples, args.against)
                    agree = agree and other == theirs
                runs[name].append((wall, cpu))
            agree = agree and ours == theirs
            loads.append(os.getloadavg()[0])
        print(
            f"{total} samples x {args.inputs} base + {10 * args.inputs} plus inputs, "
            f"median of {args.repeat}; load average (1 min) {min(loads):.1f} to {max(loads):.1f}"
        )
        walls = {k: [w for w, _ in v] for k, v in runs.items()}
        cpus = {k: [c for _, c in v] for k, v in runs.items()}
        medians = {k: (statistics.median(walls[k]), statistics.median(cpus[k])) for k in runs}
        names = {
            "theirs": "evalplus 0.3.1 evaluate",
            "ours": "pytest-codegen -n 2",
            "against": "  the same, --against",
        }
        for key in order:
            name, (wall, cpu) = names[key], medians[key]
            print(
                f"{name + ':':24} {wall:7.2f} s  {total / wall:7.1f} samples/s  "
                f"{cpu * 1e3 / total:6.1f} ms CPU per sample"
            )
        print(
            f"ratio (evalplus / ours): {medians['theirs'][0] / medians['ours'][0]:.2f} wall"
            f"{per_run_ratios(walls['theirs'], walls['ours'])}; "
            f"{medians['theirs'][1] / medians['ours'][1]:.2f} CPU"
        )
        if args.against:
            print(
                "ratio (evalplus / --against): "
                f"{medians['theirs'][0] / medians['against'][0]:.2f} wall"
                f"{per_run_ratios(walls['theirs'], walls['against'])}; "
                f"{medians['theirs'][1] / medians['against'][1]:.2f} CPU"
            )
        print(f"every base and plus verdict agrees: {agree}")
        if args.profile:
            whole_ms = medians["ours"][1] * 1e3 / total
            profile(data, samples, work, total, args.samples, args.repeat, whole_ms)


if __name__ == "__main__":
    main()
